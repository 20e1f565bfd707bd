package fakemodel

import (
	"fmt"
	"net/http"
	"time"
)

// openaiStream writes OpenAI Responses API streams.
type openaiStream struct{}

// response returns the response object of a reply in a given status.
func (openaiStream) response(r reply, status string, output []any) map[string]any {
	model := r.model
	if model == "" {
		model = "gpt-fake"
	}
	resp := map[string]any{"id": "resp_" + r.msgID, "object": "response", "created_at": time.Now().Unix(),
		"status": status, "model": model, "output": output}
	if status == "completed" {
		resp["usage"] = map[string]any{
			"input_tokens": fakeInputTokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": fakeOutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0},
			"total_tokens": fakeInputTokens + fakeOutputTokens,
		}
	}
	return resp
}

func (o openaiStream) start(w *sseWriter, r reply) {
	w.event("response.created", mustJSON(map[string]any{"type": "response.created",
		"response": o.response(r, "in_progress", []any{})}))
}

func (o openaiStream) finish(w *sseWriter, r reply) {
	var output []any
	if text := withCWD(r.step.Text, r.cwd); text != "" || len(r.step.Tools) == 0 {
		id := "msg_" + r.msgID
		w.event("response.output_item.added", mustJSON(map[string]any{"type": "response.output_item.added",
			"output_index": len(output), "item": map[string]any{"type": "message", "id": id,
				"status": "in_progress", "role": "assistant", "content": []any{}}}))
		for _, c := range chunks(text, 1000) {
			w.event("response.output_text.delta", mustJSON(map[string]any{"type": "response.output_text.delta",
				"item_id": id, "output_index": len(output), "content_index": 0, "delta": c}))
		}
		item := map[string]any{"type": "message", "id": id, "status": "completed", "role": "assistant",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
		w.event("response.output_item.done", mustJSON(map[string]any{"type": "response.output_item.done",
			"output_index": len(output), "item": item}))
		output = append(output, item)
	}
	for n, call := range r.step.Tools {
		item := openaiCall(call, r.index, n, r.cwd)
		w.event("response.output_item.added", mustJSON(map[string]any{"type": "response.output_item.added",
			"output_index": len(output), "item": item}))
		w.event("response.output_item.done", mustJSON(map[string]any{"type": "response.output_item.done",
			"output_index": len(output), "item": item}))
		output = append(output, item)
	}
	w.event("response.completed", mustJSON(map[string]any{"type": "response.completed",
		"response": o.response(r, "completed", output)}))
}

// openaiCall returns the output item of call n of step k.
func openaiCall(call ToolCall, k, n int, cwd string) map[string]any {
	callID := openaiCallID(k, n)
	if call.Freeform != "" {
		return map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_fkm_%d_%d", k, n),
			"status": "completed", "call_id": callID, "name": call.Name, "input": withCWD(call.Freeform, cwd)}
	}
	item := map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_fkm_%d_%d", k, n),
		"status": "completed", "call_id": callID, "name": call.Name, "arguments": toolInput(call, cwd)}
	if call.Namespace != "" {
		item["namespace"] = call.Namespace
	}
	return item
}

func (openaiStream) contentType() string { return "text/event-stream" }

func (openaiStream) errorBody(status int) string {
	typ, msg := "server_error", "The server had an error while processing your request."
	switch status {
	case http.StatusTooManyRequests:
		typ, msg = "rate_limit_exceeded", "Rate limit reached."
	case http.StatusBadRequest:
		typ, msg = "invalid_request_error", "Invalid request."
	}
	return string(mustJSON(map[string]any{"error": map[string]any{"type": typ, "message": msg,
		"param": nil, "code": nil}}))
}
