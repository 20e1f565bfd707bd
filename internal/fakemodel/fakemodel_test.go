package fakemodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// event is one decoded server-sent event.
type event struct {
	typ  string
	data map[string]any
}

// post sends body to path and returns the status and the events (or the
// raw body when it is not an event stream).
func post(t *testing.T, s *Server, path, session string, body any) (int, []event, string) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, s.URL+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Claude-Code-Session-Id", session)
	req.Header.Set("session-id", session)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, nil, string(raw)
	}
	return resp.StatusCode, readEvents(t, resp.Body), ""
}

func readEvents(t *testing.T, r io.Reader) []event {
	t.Helper()
	var out []event
	var typ string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			typ = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("event %s: bad data %q: %v", typ, line, err)
			}
			if d["type"] != typ {
				t.Errorf("event %s has data type %v", typ, d["type"])
			}
			out = append(out, event{typ, d})
		}
	}
	return out
}

func types(evs []event) string {
	var s []string
	for _, e := range evs {
		s = append(s, e.typ)
	}
	return strings.Join(s, " ")
}

// anthropicBody returns a request body whose assistant turns carry the
// given tool ids.
func anthropicBody(prompt string, toolIDs ...string) map[string]any {
	msgs := []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "<system-reminder>x</system-reminder>"},
		map[string]any{"type": "text", "text": prompt},
	}}}
	for _, id := range toolIDs {
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{}}}},
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}})
	}
	msgs = append(msgs, map[string]any{"role": "system", "content": "# Environment\n - Primary working directory: /w/tree\n"})
	return map[string]any{"model": "claude-test", "stream": true, "messages": msgs}
}

func openaiBody(prompt string, callIDs ...string) map[string]any {
	input := []any{
		map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "dev"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "<environment_context>\n  <cwd>/w/tree</cwd>\n</environment_context>"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": prompt}}},
	}
	for _, id := range callIDs {
		input = append(input,
			map[string]any{"type": "function_call", "name": "exec_command", "arguments": "{}", "call_id": id},
			map[string]any{"type": "function_call_output", "call_id": id, "output": "ok"})
	}
	return map[string]any{"model": "gpt-5.5", "stream": true, "input": input}
}

// anthropicText returns the text of the text deltas and the tool inputs.
func anthropicReply(t *testing.T, evs []event) (text string, tools []map[string]any, stop string) {
	t.Helper()
	var inputs []string
	for _, e := range evs {
		switch e.typ {
		case "content_block_start":
			if cb := e.data["content_block"].(map[string]any); cb["type"] == "tool_use" {
				tools = append(tools, map[string]any{"id": cb["id"], "name": cb["name"]})
				inputs = append(inputs, "")
			}
		case "content_block_delta":
			d := e.data["delta"].(map[string]any)
			switch d["type"] {
			case "text_delta":
				text += d["text"].(string)
			case "input_json_delta":
				inputs[len(inputs)-1] += d["partial_json"].(string)
			}
		case "message_delta":
			stop = e.data["delta"].(map[string]any)["stop_reason"].(string)
		}
	}
	for i, in := range inputs {
		var v map[string]any
		if err := json.Unmarshal([]byte(in), &v); err != nil {
			t.Fatalf("tool input %q: %v", in, err)
		}
		tools[i]["input"] = v
	}
	return text, tools, stop
}

func TestAnthropic(t *testing.T) {
	s := New(Script{
		Tools("Writing.", Call("Write", map[string]any{"file_path": "{{CWD}}/a.txt", "content": "é\n"}), Bash("ls")),
		Text("All done ✓"),
	})
	defer s.Close()

	status, evs, _ := post(t, s, "/v1/messages?beta=true", "conv1", anthropicBody("hi"))
	if status != 200 {
		t.Fatalf("status %d", status)
	}
	want := "message_start content_block_start content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_stop " +
		"content_block_start content_block_delta content_block_stop message_delta message_stop"
	if got := types(evs); got != want {
		t.Errorf("events:\n got %s\nwant %s", got, want)
	}
	text, tools, stop := anthropicReply(t, evs)
	if text != "Writing." || stop != "tool_use" || len(tools) != 2 {
		t.Fatalf("reply = %q %v %s", text, tools, stop)
	}
	if tools[0]["id"] != "toolu_fkm_0_0" || tools[1]["id"] != "toolu_fkm_0_1" {
		t.Errorf("tool ids = %v, %v", tools[0]["id"], tools[1]["id"])
	}
	if got := tools[0]["input"].(map[string]any)["file_path"]; got != "/w/tree/a.txt" {
		t.Errorf("file_path = %v, want {{CWD}} replaced", got)
	}

	_, evs, _ = post(t, s, "/v1/messages", "conv1", anthropicBody("hi", "toolu_fkm_0_0", "toolu_fkm_0_1"))
	if text, tools, stop := anthropicReply(t, evs); text != "All done ✓" || len(tools) != 0 || stop != "end_turn" {
		t.Errorf("second reply = %q %v %s", text, tools, stop)
	}
	_, evs, _ = post(t, s, "/v1/messages", "conv1", anthropicBody("hi", "toolu_fkm_1_0"))
	if text, _, _ := anthropicReply(t, evs); !strings.Contains(text, "no more steps") {
		t.Errorf("past the end: %q", text)
	}

	reqs := s.Model()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range []struct {
		step   int
		served string
	}{{0, ServedReply}, {1, ServedReply}, {2, ServedExhausted}} {
		if reqs[i].Step != want.step || reqs[i].Served != want.served || reqs[i].Conversation != "conv1" {
			t.Errorf("request %d: step %d served %s conv %q", i, reqs[i].Step, reqs[i].Served, reqs[i].Conversation)
		}
	}
	if got := LastUserText(reqs[0]); got != "hi" {
		t.Errorf("LastUserText = %q", got)
	}
	if got := UserText(reqs[1]); got != "<system-reminder>x</system-reminder>\nhi" {
		t.Errorf("UserText = %q (tool results must not count)", got)
	}
}

func TestOpenAI(t *testing.T) {
	s := New(Script{
		Tools("Patching.", ApplyPatch("*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"), Exec("cat {{CWD}}/a.txt")),
		Text("Done."),
	})
	defer s.Close()

	_, evs, _ := post(t, s, "/v1/responses", "c", openaiBody("go"))
	want := "response.created response.output_item.added response.output_text.delta response.output_item.done " +
		"response.output_item.added response.output_item.done response.output_item.added response.output_item.done response.completed"
	if got := types(evs); got != want {
		t.Fatalf("events:\n got %s\nwant %s", got, want)
	}
	resp := evs[len(evs)-1].data["response"].(map[string]any)
	out := resp["output"].([]any)
	patch, exec := out[1].(map[string]any), out[2].(map[string]any)
	if patch["type"] != "custom_tool_call" || patch["call_id"] != "call_fkm_0_0" || !strings.HasPrefix(patch["input"].(string), "*** Begin Patch") {
		t.Errorf("patch item = %v", patch)
	}
	if exec["type"] != "function_call" || exec["call_id"] != "call_fkm_0_1" || exec["arguments"] != `{"cmd":"cat /w/tree/a.txt"}` {
		t.Errorf("exec item = %v", exec)
	}
	if _, ok := resp["usage"].(map[string]any)["input_tokens"]; !ok {
		t.Errorf("no usage in %v", resp)
	}

	_, evs, _ = post(t, s, "/v1/responses", "c", openaiBody("go", "call_fkm_0_0", "call_fkm_0_1"))
	done := evs[len(evs)-2].data["item"].(map[string]any)
	if got := done["content"].([]any)[0].(map[string]any)["text"]; got != "Done." {
		t.Errorf("second reply = %v", got)
	}
	reqs := s.Model()
	if got := LastUserText(reqs[0]); got != "go" {
		t.Errorf("LastUserText = %q", got)
	}
	if got := FirstUserText(reqs[1]); !strings.HasSuffix(got, "</environment_context>\ngo") {
		t.Errorf("FirstUserText = %q", got)
	}
}

func TestErrorSteps(t *testing.T) {
	s := New(Script{Fail(529, 1), Text("after the retry")},
		Route{Contains: "always", Script: Script{Fail(500, 0)}})
	defer s.Close()

	status, _, body := post(t, s, "/v1/messages", "a", anthropicBody("once"))
	if status != 529 || !strings.Contains(body, "overloaded_error") {
		t.Errorf("first = %d %s", status, body)
	}
	status, evs, _ := post(t, s, "/v1/messages", "a", anthropicBody("once"))
	if text, _, _ := anthropicReply(t, evs); status != 200 || text != "after the retry" {
		t.Errorf("retry = %d %q", status, text)
	}
	// A new conversation meets the error step again.
	if status, _, _ := post(t, s, "/v1/messages", "b", anthropicBody("once")); status != 529 {
		t.Errorf("new conversation = %d, want 529", status)
	}
	for range 3 {
		status, _, body := post(t, s, "/v1/responses", "c", openaiBody("always fail"))
		if status != 500 || !strings.Contains(body, "server_error") {
			t.Errorf("always = %d %s", status, body)
		}
	}
	if r := s.Model()[3]; r.Route != 0 || r.Served != ServedError {
		t.Errorf("routed request: route %d served %s", r.Route, r.Served)
	}
}

func TestRoutes(t *testing.T) {
	s := New(Script{Text("default")},
		Route{Contains: "<transcript>", Script: Script{Text("SUMMARY")}},
		Route{Contains: "<azureal-internal-auto-continue>", Script: Script{Text("continuing")}})
	defer s.Close()
	for prompt, want := range map[string]string{
		"hello": "default",
		"Summarize\n<transcript>\nx\n</transcript>":                                  "SUMMARY",
		"<azureal-internal-auto-continue>\ngo on\n</azureal-internal-auto-continue>": "continuing",
	} {
		_, evs, _ := post(t, s, "/v1/messages", want, anthropicBody(prompt))
		if text, _, _ := anthropicReply(t, evs); text != want {
			t.Errorf("prompt %q: reply %q, want %q", prompt, text, want)
		}
	}
}

func TestCountTokensAndUnknown(t *testing.T) {
	s := New(nil)
	defer s.Close()
	status, _, body := post(t, s, "/v1/messages/count_tokens?beta=true", "", map[string]any{"messages": []any{}})
	if status != 200 || !strings.Contains(body, `"input_tokens":`) {
		t.Errorf("count_tokens = %d %s", status, body)
	}
	if status, _, _ := post(t, s, "/v1/models", "", nil); status != 404 {
		t.Errorf("unknown path = %d", status)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].API != CountTokens || reqs[1].API != Unknown || len(s.Model()) != 0 {
		t.Errorf("requests = %+v", reqs)
	}
}

func TestConnectRefused(t *testing.T) {
	s := New(nil)
	defer s.Close()
	proxy, _ := url.Parse(s.URL)
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}, Timeout: 10 * time.Second}
	_, err := c.Get("https://example.invalid/")
	if err == nil {
		t.Fatal("CONNECT through the server succeeded")
	}
	if got := s.Connects(); len(got) != 1 || got[0] != "example.invalid:443" {
		t.Errorf("Connects() = %v (err %v)", got, err)
	}
}

func TestHangAndWait(t *testing.T) {
	release := make(chan struct{})
	s := New(Script{Hang()}, Route{Contains: "wait", Script: Script{{Text: "released", Wait: release}}})
	defer s.Close()

	// Hang: the stream starts, then stays open until the client leaves.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, _ := json.Marshal(openaiBody("hang"))
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/responses", bytes.NewReader(b))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if line, _ := br.ReadString('\n'); line != "event: response.created\n" {
		t.Errorf("first line %q", line)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer wcancel()
	if _, err := s.WaitFor(wctx, func(r Request) bool { return r.Served == ServedHang }); err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := io.ReadAll(br); !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel: %v", err)
	}
	resp.Body.Close()

	// Wait: nothing is sent until the channel is closed.
	got := make(chan string, 1)
	go func() {
		b, _ := json.Marshal(anthropicBody("wait"))
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", bytes.NewReader(b))
		if err != nil {
			got <- err.Error()
			return
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		got <- string(raw)
	}()
	if _, err := s.WaitFor(wctx, func(r Request) bool { return r.Route == 0 }); err != nil {
		t.Fatal(err)
	}
	select {
	case g := <-got:
		t.Fatalf("reply before release: %q", g)
	case <-time.After(100 * time.Millisecond):
	}
	close(release)
	if g := <-got; !strings.Contains(g, "released") {
		t.Errorf("after release: %q", g)
	}
}

func TestCloseReleasesHang(t *testing.T) {
	s := New(Script{Hang()})
	b, _ := json.Marshal(anthropicBody("x"))
	resp, err := http.Post(s.URL+"/v1/messages", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	done := make(chan struct{})
	go func() { s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute): // a hang, not a slow machine
		t.Fatal("Close blocked on a hanging reply")
	}
}

func TestChunks(t *testing.T) {
	s := strings.Repeat("aé✓", 1000)
	parts := chunks(s, 7)
	if strings.Join(parts, "") != s {
		t.Fatal("chunks lost bytes")
	}
	for _, p := range parts {
		if len(p) > 7 || !strings.HasPrefix(p, "a") && !isRuneStart(p[0]) {
			t.Fatalf("bad chunk %q", p)
		}
	}
}

func TestCodexConfig(t *testing.T) {
	c := CodexConfig("http://127.0.0.1:1234/")
	top, _, _ := strings.Cut(c, "[")
	if !strings.Contains(top, `model = "gpt-5.5"`) || !strings.Contains(top, `model_provider = "fake"`) {
		t.Errorf("top-level keys must precede the first table:\n%s", c)
	}
	if !strings.Contains(c, `base_url = "http://127.0.0.1:1234/v1"`) {
		t.Errorf("base_url:\n%s", c)
	}
}

// TestMatchToolResults: a step's {{MATCH:re}} is replaced, in its text and
// in its tool inputs, by what re matches (its first group) in the tool
// results the request carries, Anthropic's and OpenAI's; nothing matched
// gives "".
func TestMatchToolResults(t *testing.T) {
	s := New(Script{
		Tools("", Call("mcp__lazuli__search_sessions", map[string]any{"query": "x"})),
		Tools("Reading {{MATCH:(S\\d+)#}}.", Call("read", map[string]any{"session": "{{MATCH:\\[(S\\d+)#}}", "none": "<{{MATCH:nowhere}}>"})),
		Text("The word is {{MATCH:word (\\w+)}}."),
	})
	defer s.Close()
	body := anthropicBody("go", "toolu_fkm_0_0")
	msgs := body["messages"].([]any)
	msgs[2].(map[string]any)["content"].([]any)[0].(map[string]any)["content"] = []any{map[string]any{"type": "text", "text": "hit [S12#4] the word zebra"}}
	_, evs, _ := post(t, s, "/v1/messages", "c1", body)
	text, tools, _ := anthropicReply(t, evs)
	if text != "Reading S12." || len(tools) != 1 || tools[0]["input"].(map[string]any)["session"] != "S12" || tools[0]["input"].(map[string]any)["none"] != "<>" {
		t.Errorf("anthropic: text %q, tools %v", text, tools)
	}
	ob := openaiBody("go", "call_fkm_1_0")
	in := ob["input"].([]any)
	in[len(in)-1].(map[string]any)["output"] = "the word giraffe"
	_, evs, _ = post(t, s, "/v1/responses", "c2", ob)
	var got string
	for _, e := range evs {
		if e.typ == "response.output_text.delta" {
			got += e.data["delta"].(string)
		}
	}
	if got != "The word is giraffe." {
		t.Errorf("openai: text %q", got)
	}
}

// TestToolResultsChat: a chat completions request's tool messages (Qwen
// Code's, OpenCode's) are its tool results, text or parts.
func TestToolResultsChat(t *testing.T) {
	body := map[string]any{"messages": []any{
		map[string]any{"role": "user", "content": "go"},
		map[string]any{"role": "tool", "tool_call_id": "c1", "content": "hit [S3#4]"},
		map[string]any{"role": "tool", "tool_call_id": "c2", "content": []any{map[string]any{"type": "text", "text": "the word okapi"}}},
	}}
	if got := ToolResults(Request{Body: body}); got != "hit [S3#4]\nthe word okapi" {
		t.Errorf("ToolResults() = %q", got)
	}
}

func TestAnthropicThinking(t *testing.T) {
	s := New(Script{{Thinking: "Plan: answer.", Text: "Answer."}})
	defer s.Close()
	_, evs, _ := post(t, s, "/v1/messages", "conv1", anthropicBody("hi"))
	var thinking, signature string
	for _, e := range evs {
		if e.typ != "content_block_delta" {
			continue
		}
		d := e.data["delta"].(map[string]any)
		switch d["type"] {
		case "thinking_delta":
			thinking += d["thinking"].(string)
		case "signature_delta":
			signature += d["signature"].(string)
		}
	}
	if thinking != "Plan: answer." || signature == "" {
		t.Errorf("thinking %q, signature %q", thinking, signature)
	}
	if cb := evs[1].data["content_block"].(map[string]any); cb["type"] != "thinking" {
		t.Errorf("first block %v, want the thinking block", cb)
	}
	if text, _, _ := anthropicReply(t, evs); text != "Answer." {
		t.Errorf("text %q", text)
	}
}

func TestRetryAfter(t *testing.T) {
	s := New(Script{{Status: 500, RetryAfterMS: 1500}, {Status: 503}})
	defer s.Close()
	for i, want := range [][2]string{{"1500", "2"}, {"", ""}} {
		body, _ := json.Marshal(anthropicBody("hi"))
		if i == 1 {
			body, _ = json.Marshal(anthropicBody("hi", "toolu_fkm_0_0"))
		}
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := [2]string{resp.Header.Get("retry-after-ms"), resp.Header.Get("retry-after")}; got != want {
			t.Errorf("step %d: retry-after-ms, retry-after = %q, want %q", i, got, want)
		}
	}
}
