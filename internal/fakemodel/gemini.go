package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// geminiStream writes Gemini API replies (POST
// /v1beta/models/M:streamGenerateContent?alt=sse and :generateContent),
// the API of Gemini CLI: GenerateContentResponse chunks as "data:" events,
// the text first, then one functionCall part per tool call (with the
// call_fkm_<step>_<n> id), the last with finishReason STOP and
// usageMetadata; :generateContent gets one such response.
type geminiStream struct {
	streaming bool
}

func (g geminiStream) contentType() string {
	if g.streaming {
		return "text/event-stream"
	}
	return "application/json"
}

// response returns a GenerateContentResponse with parts, finished when
// finish is set.
func (geminiStream) response(r reply, parts []any, finish bool) map[string]any {
	cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
	resp := map[string]any{"candidates": []any{cand}, "modelVersion": geminiModel(r), "responseId": "resp_" + r.msgID}
	if finish {
		cand["finishReason"] = "STOP"
		resp["usageMetadata"] = map[string]any{"promptTokenCount": fakeInputTokens, "candidatesTokenCount": fakeOutputTokens,
			"totalTokenCount": fakeInputTokens + fakeOutputTokens, "cachedContentTokenCount": 0, "thoughtsTokenCount": 0}
	}
	return resp
}

func geminiModel(r reply) string {
	if r.model == "" {
		return "gemini-fake"
	}
	return r.model
}

func (geminiStream) start(*sseWriter, reply) {}

func (g geminiStream) finish(w *sseWriter, r reply) {
	text := withCWD(r.step.Text, r.cwd)
	var calls []any
	for n, call := range r.step.Tools {
		var args any
		if err := json.Unmarshal([]byte(toolInput(call, r.cwd)), &args); err != nil {
			args = map[string]any{}
		}
		calls = append(calls, map[string]any{"functionCall": map[string]any{"id": openaiCallID(r.index, n), "name": call.Name, "args": args}})
	}
	var thought []any
	if r.step.Thinking != "" {
		thought = []any{map[string]any{"text": r.step.Thinking, "thought": true}}
	}
	if !g.streaming {
		parts := thought
		if text != "" {
			parts = append(parts, map[string]any{"text": text})
		}
		w.json(mustJSON(g.response(r, append(parts, calls...), true)))
		return
	}
	if thought != nil {
		w.data(mustJSON(g.response(r, thought, false)))
	}
	pieces := chunks(text, 1000)
	for i, p := range pieces {
		last := i == len(pieces)-1 && len(calls) == 0
		w.data(mustJSON(g.response(r, []any{map[string]any{"text": p}}, last)))
	}
	if len(calls) > 0 || len(pieces) == 0 {
		if calls == nil {
			calls = []any{map[string]any{"text": ""}}
		}
		w.data(mustJSON(g.response(r, calls, true)))
	}
}

func (geminiStream) errorBody(status int) string {
	code, msg := "INTERNAL", "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
	switch status {
	case http.StatusTooManyRequests:
		code, msg = "RESOURCE_EXHAUSTED", "Resource has been exhausted (e.g. check quota)."
	case http.StatusBadRequest:
		code, msg = "INVALID_ARGUMENT", "Request contains an invalid argument."
	}
	return string(mustJSON(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": code}}))
}

// geminiMethod returns the method of a Gemini model path
// (/v1beta/models/M:method), or "".
func geminiMethod(path string) string {
	rest, ok := strings.CutPrefix(path, "/v1beta/models/")
	if !ok {
		rest, ok = strings.CutPrefix(path, "/v1/models/")
	}
	if !ok {
		return ""
	}
	_, method, _ := strings.Cut(rest, ":")
	return method
}

// geminiModelOf returns the model named in a Gemini model path.
func geminiModelOf(path string) string {
	rest := path[strings.LastIndex(path, "/models/")+len("/models/"):]
	m, _, _ := strings.Cut(rest, ":")
	return m
}

// geminiMessages returns a Gemini request's contents as the messages the
// other APIs have: role user or assistant (for model), content text
// blocks, and the function calls' and responses' ids as tool_use /
// tool_result blocks.
func geminiMessages(contents []any) []map[string]any {
	var out []map[string]any
	for _, c := range contents {
		o, ok := c.(map[string]any)
		if !ok {
			continue
		}
		role, _ := o["role"].(string)
		if role == "model" {
			role = "assistant"
		}
		var blocks []any
		parts, _ := o["parts"].([]any)
		for _, p := range parts {
			po, ok := p.(map[string]any)
			if !ok {
				continue
			}
			if t, ok := po["text"].(string); ok {
				if th, _ := po["thought"].(bool); !th {
					blocks = append(blocks, map[string]any{"type": "text", "text": t})
				}
			}
			if fc, ok := po["functionCall"].(map[string]any); ok {
				blocks = append(blocks, map[string]any{"type": "tool_use", "id": fc["id"], "name": fc["name"]})
			}
			if fr, ok := po["functionResponse"].(map[string]any); ok {
				blocks = append(blocks, map[string]any{"type": "tool_result", "tool_use_id": fr["id"]})
			}
		}
		out = append(out, map[string]any{"role": role, "content": blocks})
	}
	return out
}
