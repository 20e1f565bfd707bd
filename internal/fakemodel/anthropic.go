package fakemodel

import (
	"encoding/json"
	"net/http"
)

// anthropicStream writes Anthropic Messages API streams.
type anthropicStream struct{}

// Token counts reported in usage: small, so no CLI thinks its context is
// full.
const (
	fakeInputTokens  = 100
	fakeOutputTokens = 20
)

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own literal values are marshalled here
	}
	return b
}

func (anthropicStream) start(w *sseWriter, r reply) {
	model := r.model
	if model == "" {
		model = "claude-fake"
	}
	w.event("message_start", mustJSON(map[string]any{"type": "message_start", "message": map[string]any{
		"id": "msg_" + r.msgID, "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": fakeInputTokens, "output_tokens": 1,
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	}}))
}

func (anthropicStream) finish(w *sseWriter, r reply) {
	index := 0
	if th := r.step.Thinking; th != "" {
		w.event("content_block_start", mustJSON(map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}}))
		w.event("content_block_delta", mustJSON(map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "thinking_delta", "thinking": th}}))
		w.event("content_block_delta", mustJSON(map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "signature_delta", "signature": "fkm-signature"}}))
		w.event("content_block_stop", mustJSON(map[string]any{"type": "content_block_stop", "index": index}))
		index++
	}
	if text := withCWD(r.step.Text, r.cwd); text != "" || len(r.step.Tools) == 0 {
		w.event("content_block_start", mustJSON(map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "text", "text": ""}}))
		for _, c := range chunks(text, 1000) {
			w.event("content_block_delta", mustJSON(map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "text_delta", "text": c}}))
		}
		w.event("content_block_stop", mustJSON(map[string]any{"type": "content_block_stop", "index": index}))
		index++
	}
	for n, call := range r.step.Tools {
		w.event("content_block_start", mustJSON(map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": anthropicToolID(r.index, n),
				"name": call.Name, "input": map[string]any{}}}))
		for _, c := range chunks(toolInput(call, r.cwd), 200) {
			w.event("content_block_delta", mustJSON(map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": c}}))
		}
		w.event("content_block_stop", mustJSON(map[string]any{"type": "content_block_stop", "index": index}))
		index++
	}
	stop := "end_turn"
	if len(r.step.Tools) > 0 {
		stop = "tool_use"
	}
	w.event("message_delta", mustJSON(map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": fakeOutputTokens}}))
	w.event("message_stop", []byte(`{"type":"message_stop"}`))
}

func (anthropicStream) contentType() string { return "text/event-stream" }

func (anthropicStream) errorBody(status int) string {
	typ, msg := "api_error", "Internal server error"
	switch status {
	case 529:
		typ, msg = "overloaded_error", "Overloaded"
	case http.StatusTooManyRequests:
		typ, msg = "rate_limit_error", "Rate limited"
	case http.StatusBadRequest:
		typ, msg = "invalid_request_error", "Invalid request"
	}
	return string(mustJSON(map[string]any{"type": "error",
		"error": map[string]any{"type": typ, "message": msg}}))
}

// toolInput returns a call's input as JSON, {{CWD}} replaced.
func toolInput(call ToolCall, cwd string) string {
	if call.Input == nil {
		return "{}"
	}
	b, err := json.Marshal(replaceCWD(call.Input, cwd))
	if err != nil {
		return string(mustJSON(map[string]string{"fakemodel_error": err.Error()}))
	}
	return string(b)
}

// replaceCWD returns v with {{CWD}} replaced in its strings, converting
// v to its JSON value form first.
func replaceCWD(v any, cwd string) any {
	return mapStrings(v, func(s string) string { return withCWD(s, cwd) })
}

// mapStrings returns v, in its JSON value form, with fn applied to each of
// its strings.
func mapStrings(v any, fn func(string) string) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var generic any
	if err := json.Unmarshal(b, &generic); err != nil {
		return v
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case string:
			return fn(t)
		case []any:
			for i := range t {
				t[i] = walk(t[i])
			}
		case map[string]any:
			for k := range t {
				t[k] = walk(t[k])
			}
		}
		return x
	}
	return walk(generic)
}
