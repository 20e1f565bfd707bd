package fakemodel

import (
	"time"
)

// chatStream writes OpenAI Chat Completions replies (POST
// /v1/chat/completions), the API of Qwen Code and of OpenAI-compatible
// providers: chat.completion.chunk events ending in "data: [DONE]" when
// the request asks to stream, else one chat.completion object. Tool calls
// stream as their id and name, then their arguments in pieces.
type chatStream struct {
	streaming bool // the request's "stream"
	usage     bool // stream_options.include_usage: a last chunk with usage
}

// newChatStream reads what the request asks for.
func newChatStream(body map[string]any) chatStream {
	st, _ := body["stream"].(bool)
	opts, _ := body["stream_options"].(map[string]any)
	usage, _ := opts["include_usage"].(bool)
	return chatStream{streaming: st, usage: usage}
}

func (c chatStream) contentType() string {
	if c.streaming {
		return "text/event-stream"
	}
	return "application/json"
}

// chunk returns a chat.completion.chunk with one choice.
func (chatStream) chunk(r reply, delta map[string]any, finish any) map[string]any {
	return map[string]any{"id": "chatcmpl-" + r.msgID, "object": "chat.completion.chunk", "created": time.Now().Unix(),
		"model": chatModel(r), "choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
}

func chatModel(r reply) string {
	if r.model == "" {
		return "gpt-fake"
	}
	return r.model
}

func chatUsage() map[string]any {
	return map[string]any{"prompt_tokens": fakeInputTokens, "completion_tokens": fakeOutputTokens,
		"total_tokens":          fakeInputTokens + fakeOutputTokens,
		"prompt_tokens_details": map[string]any{"cached_tokens": 0}}
}

func (c chatStream) start(w *sseWriter, r reply) {
	if c.streaming {
		w.data(mustJSON(c.chunk(r, map[string]any{"role": "assistant", "content": ""}, nil)))
	}
}

func (c chatStream) finish(w *sseWriter, r reply) {
	text := withCWD(r.step.Text, r.cwd)
	finish := "stop"
	if len(r.step.Tools) > 0 {
		finish = "tool_calls"
	}
	if !c.streaming {
		msg := map[string]any{"role": "assistant", "content": text}
		if r.step.Thinking != "" {
			msg["reasoning_content"] = r.step.Thinking
		}
		if len(r.step.Tools) > 0 {
			var calls []any
			for n, call := range r.step.Tools {
				calls = append(calls, map[string]any{"id": openaiCallID(r.index, n), "type": "function",
					"function": map[string]any{"name": call.Name, "arguments": toolInput(call, r.cwd)}})
			}
			msg["tool_calls"] = calls
		}
		w.json(mustJSON(map[string]any{"id": "chatcmpl-" + r.msgID, "object": "chat.completion", "created": time.Now().Unix(),
			"model": chatModel(r), "choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage": chatUsage()}))
		return
	}
	for _, s := range chunks(r.step.Thinking, 1000) {
		w.data(mustJSON(c.chunk(r, map[string]any{"reasoning_content": s}, nil)))
	}
	for _, s := range chunks(text, 1000) {
		w.data(mustJSON(c.chunk(r, map[string]any{"content": s}, nil)))
	}
	for n, call := range r.step.Tools {
		w.data(mustJSON(c.chunk(r, map[string]any{"tool_calls": []any{map[string]any{"index": n,
			"id": openaiCallID(r.index, n), "type": "function",
			"function": map[string]any{"name": call.Name, "arguments": ""}}}}, nil)))
		for _, piece := range chunks(toolInput(call, r.cwd), 40) {
			w.data(mustJSON(c.chunk(r, map[string]any{"tool_calls": []any{map[string]any{"index": n,
				"function": map[string]any{"arguments": piece}}}}, nil)))
		}
	}
	last := c.chunk(r, map[string]any{}, finish)
	if c.usage {
		w.data(mustJSON(last))
		last = map[string]any{"id": "chatcmpl-" + r.msgID, "object": "chat.completion.chunk", "created": time.Now().Unix(),
			"model": chatModel(r), "choices": []any{}}
	}
	last["usage"] = chatUsage()
	w.data(mustJSON(last))
	w.data([]byte("[DONE]"))
}

func (chatStream) errorBody(status int) string {
	return openaiStream{}.errorBody(status)
}

// chatToolIDs returns the tool-call ids of Chat Completions messages:
// assistant tool_calls' ids and tool messages' tool_call_id.
func chatToolIDs(m map[string]any) []string {
	var ids []string
	if id, ok := m["tool_call_id"].(string); ok {
		ids = append(ids, id)
	}
	calls, _ := m["tool_calls"].([]any)
	for _, c := range calls {
		if o, ok := c.(map[string]any); ok {
			if id, ok := o["id"].(string); ok {
				ids = append(ids, id)
			}
		}
	}
	return ids
}
