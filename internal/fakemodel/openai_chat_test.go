package fakemodel

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func chatBody(stream bool, prompt string, callIDs ...string) map[string]any {
	msgs := []any{
		map[string]any{"role": "system", "content": "You are Qwen Code."},
		map[string]any{"role": "user", "content": "I'm currently working in the directory: /w/tree\n"},
		map[string]any{"role": "user", "content": prompt},
	}
	for _, id := range callIDs {
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": id, "type": "function",
				"function": map[string]any{"name": "run_shell_command", "arguments": "{}"}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": "ok"})
	}
	return map[string]any{"model": "qwen3-coder-plus", "stream": stream, "stream_options": map[string]any{"include_usage": true}, "messages": msgs}
}

// postChat posts body and returns the status, the data lines of a stream
// (decoded, [DONE] as nil) or the raw body.
func postChat(t *testing.T, s *Server, body any) (int, []map[string]any, bool, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(s.URL+"/v1/chat/completions", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw bytes.Buffer
	if _, err := raw.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp.StatusCode, nil, false, raw.String()
	}
	var out []map[string]any
	done := false
	sc := bufio.NewScanner(&raw)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			if sc.Text() != "" {
				t.Errorf("not a data line: %q", sc.Text())
			}
			continue
		}
		if line == "[DONE]" {
			done = true
			continue
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("bad chunk %q: %v", line, err)
		}
		out = append(out, d)
	}
	return resp.StatusCode, out, done, ""
}

func TestOpenAIChatStreamsToolCalls(t *testing.T) {
	s := New(Script{
		Tools("Writing.", Call("write_file", map[string]any{"file_path": "{{CWD}}/a.txt", "content": strings.Repeat("x", 100)}),
			Call("run_shell_command", map[string]any{"command": "ls"})),
		Text("Done."),
	})
	defer s.Close()
	status, chunks, done, _ := postChat(t, s, chatBody(true, "go"))
	if status != 200 || !done {
		t.Fatalf("status %d, [DONE] %v", status, done)
	}
	var text string
	type call struct{ id, name, args string }
	var calls []call
	var finish any
	var usage map[string]any
	for _, c := range chunks {
		if u, ok := c["usage"].(map[string]any); ok {
			usage = u
		}
		choices := c["choices"].([]any)
		if len(choices) == 0 {
			continue
		}
		ch := choices[0].(map[string]any)
		if f := ch["finish_reason"]; f != nil {
			finish = f
		}
		d := ch["delta"].(map[string]any)
		if s, ok := d["content"].(string); ok {
			text += s
		}
		tcs, _ := d["tool_calls"].([]any)
		for _, tc := range tcs {
			o := tc.(map[string]any)
			i := int(o["index"].(float64))
			if i == len(calls) {
				calls = append(calls, call{})
			}
			if id, ok := o["id"].(string); ok {
				calls[i].id = id
			}
			fn := o["function"].(map[string]any)
			if n, ok := fn["name"].(string); ok {
				calls[i].name = n
			}
			calls[i].args += fn["arguments"].(string)
		}
	}
	if text != "Writing." || finish != "tool_calls" || usage["prompt_tokens"] == nil {
		t.Errorf("text %q, finish %v, usage %v", text, finish, usage)
	}
	if len(calls) != 2 || calls[0].id != "call_fkm_0_0" || calls[0].name != "write_file" || calls[1].id != "call_fkm_0_1" {
		t.Fatalf("calls %+v", calls)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(calls[0].args), &args); err != nil || args["file_path"] != "/w/tree/a.txt" {
		t.Errorf("arguments %q (%v): want the cwd put in", calls[0].args, err)
	}
	// The tool results move the conversation to the next step.
	_, chunks, _, _ = postChat(t, s, chatBody(true, "go", "call_fkm_0_0", "call_fkm_0_1"))
	var second string
	for _, c := range chunks {
		if ch, _ := c["choices"].([]any); len(ch) > 0 {
			if s, ok := ch[0].(map[string]any)["delta"].(map[string]any)["content"].(string); ok {
				second += s
			}
		}
	}
	if second != "Done." {
		t.Errorf("second reply %q", second)
	}
	reqs := s.Model()
	if len(reqs) != 2 || reqs[0].API != OpenAIChat || LastUserText(reqs[0]) != "go" || reqs[1].Step != 1 {
		t.Errorf("requests %+v", reqs)
	}
}

func TestOpenAIChatWithoutStreamAndErrors(t *testing.T) {
	s := New(Script{Fail(500, 1), Tools("", Call("read_file", map[string]any{"absolute_path": "/x"}))})
	defer s.Close()
	status, _, _, body := postChat(t, s, chatBody(false, "go"))
	if status != 500 || !strings.Contains(body, "server_error") {
		t.Errorf("first: %d %s", status, body)
	}
	status, _, _, body = postChat(t, s, chatBody(false, "go"))
	var resp struct {
		Object  string
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				ToolCalls []struct {
					ID       string
					Function struct{ Name, Arguments string }
				} `json:"tool_calls"`
			}
		}
		Usage map[string]any
	}
	if err := json.Unmarshal([]byte(body), &resp); err != nil || status != 200 {
		t.Fatalf("second: %d %s (%v)", status, body, err)
	}
	c := resp.Choices[0]
	if resp.Object != "chat.completion" || c.FinishReason != "tool_calls" || c.Message.ToolCalls[0].ID != "call_fkm_1_0" ||
		c.Message.ToolCalls[0].Function.Arguments != `{"absolute_path":"/x"}` || resp.Usage["completion_tokens"] == nil {
		t.Errorf("reply %+v", resp)
	}
}
