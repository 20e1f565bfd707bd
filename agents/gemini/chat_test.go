package gemini

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/jsonlines"
)

// The captures Gemini CLI 0.61.0 wrote against the scripted model
// (internal/agentcapture): after the multi-tool turn, after its resumed
// second prompt, and after a third session whose prompt got HTTP 500.
const capture = "testdata/capture"

// chatFile returns the one chat file of session id8 as it was after
// scenario.
func chatFile(t *testing.T, scenario, id8 string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(capture, scenario+".home", ".gemini", "tmp", "proj", "chats", "session-*-"+id8+"*.jsonl"))
	if err != nil || len(m) != 1 {
		t.Fatalf("chat file of %s in %s: %v %v", id8, scenario, m, err)
	}
	return m[0]
}

// sessions returns the ids (first 8 characters) of the chat files after
// scenario, by the stdout init lines of the captures.
func sessionOf(t *testing.T, scenario string) string {
	t.Helper()
	for _, o := range jsonLines(t, filepath.Join(capture, scenario+".stdout.jsonl")) {
		if o["type"] == "init" {
			return o["session_id"].(string)[:8]
		}
	}
	t.Fatalf("%s: no init line", scenario)
	return ""
}

func jsonLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var o map[string]any
		if err := json.Unmarshal(sc.Bytes(), &o); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, o)
	}
	return out
}

func parseChat(t *testing.T, path string) ([]codec.Event, *ChatParser) {
	t.Helper()
	p := NewChatParser()
	evs, st, err := parse.ReadFile(path, p)
	if err != nil || st.Malformed != 0 || st.Ignored != 0 {
		t.Fatalf("%s: %v %+v", path, err, st)
	}
	return evs, p
}

// chatRecords returns the last version of every record of a chat file, in
// first-seen order, as Gemini keeps them.
func chatRecords(t *testing.T, path string) []map[string]any {
	var order []string
	last := map[string]map[string]any{}
	for _, o := range jsonLines(t, path) {
		id, ok := o["id"].(string)
		if !ok {
			continue
		}
		if _, seen := last[id]; !seen {
			order = append(order, id)
		}
		last[id] = o
	}
	var out []map[string]any
	for _, id := range order {
		out = append(out, last[id])
	}
	return out
}

func TestChatMatchesTheFileFieldByField(t *testing.T) {
	path := chatFile(t, "resumed", sessionOf(t, "multitool"))
	evs, p := parseChat(t, path)
	if evs[0].Kind != codec.KindInit || evs[0].Model != "gemini-2.5-pro" || evs[0].CWD != "/tmp/lazuli-capture-gemini/proj" {
		t.Errorf("init = %+v", evs[0])
	}
	if p.SessionID() != jsonLines(t, path)[0]["sessionId"] || p.Started().IsZero() {
		t.Errorf("session %q started %v", p.SessionID(), p.Started())
	}
	// Walk the records and the events together.
	i := 1
	next := func() codec.Event {
		t.Helper()
		if i >= len(evs) {
			t.Fatalf("events end at %d", i)
		}
		i++
		return evs[i-1]
	}
	var prompts, calls, replies int
	var wantIn, wantOut int64
	for _, r := range chatRecords(t, path) {
		switch r["type"] {
		case "user":
			parts := r["content"].([]any)
			text, _ := parts[0].(map[string]any)["text"].(string)
			if text == "" || strings.HasPrefix(text, "<session_context>") {
				continue // tool responses fed back, and Gemini's own context
			}
			if prompts > 0 {
				if e := next(); e.Kind != codec.KindComplete || !e.Success || e.DurationMS == 0 {
					t.Errorf("turn end = %+v", e)
				}
			}
			prompts++
			if e := next(); e.Kind != codec.KindUserMessage || e.Content != text {
				t.Errorf("prompt = %+v, want %q", e, text)
			}
		case "gemini":
			replies++
			tok := r["tokens"].(map[string]any)
			wantIn += int64(tok["input"].(float64))
			wantOut += int64(tok["output"].(float64))
			for _, th := range r["thoughts"].([]any) {
				if e := next(); e.Kind != "Thinking" || e.Text != th.(map[string]any)["description"] {
					t.Errorf("thinking = %+v", e)
				}
			}
			if e := next(); e.Kind != codec.KindAssistantText || e.Text != r["content"] {
				t.Errorf("text = %+v, want %q", e, r["content"])
			}
			tcs, _ := r["toolCalls"].([]any)
			for _, x := range tcs {
				calls++
				tc := x.(map[string]any)
				call, res := next(), next()
				checkToolPair(t, tc, call, res)
			}
		}
	}
	if e := next(); e.Kind != codec.KindComplete || !e.Success {
		t.Errorf("last = %+v", e)
	}
	if i != len(evs) || prompts != 2 || calls != 7 || replies != 5 {
		t.Errorf("%d of %d events checked; %d prompts, %d calls, %d replies", i, len(evs), prompts, calls, replies)
	}
	var in, out int64
	for _, u := range p.Usage() {
		in, out = in+u.Usage().Input, out+u.Usage().Output
		if u.Usage().Backend != "gemini" || u.Usage().Model != "gemini-2.5-pro" || u.Usage().At == "" {
			t.Errorf("usage %+v", u.Usage())
		}
	}
	if len(p.Usage()) != replies || in != wantIn || out != wantOut {
		t.Errorf("usage: %d rows, in %d out %d; want %d, %d, %d", len(p.Usage()), in, out, replies, wantIn, wantOut)
	}
}

// checkToolPair checks a call and its result against a toolCalls entry.
func checkToolPair(t *testing.T, tc map[string]any, call, res codec.Event) {
	t.Helper()
	args := tc["args"].(map[string]any)
	var input map[string]any
	if err := json.Unmarshal(call.Input, &input); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		name string
		keys map[string]string // stored key: Gemini's key
	}{
		"write_file":        {"Write", map[string]string{"file_path": "file_path", "content": "content"}},
		"read_file":         {"Read", map[string]string{"file_path": "file_path"}},
		"replace":           {"Edit", map[string]string{"file_path": "file_path", "old_string": "old_string", "new_string": "new_string"}},
		"run_shell_command": {"Bash", map[string]string{"command": "command"}},
		"grep_search":       {"Grep", map[string]string{"pattern": "pattern"}},
	}[tc["name"].(string)]
	if call.Kind != codec.KindToolCall || call.ToolName != want.name || call.ToolUseID != tc["id"] {
		t.Errorf("call = %+v, want %s %v", call, want.name, tc["id"])
	}
	for k, gk := range want.keys {
		if input[k] != args[gk] {
			t.Errorf("%s input %s = %v, want %v", want.name, k, input[k], args[gk])
		}
	}
	out := tc["result"].([]any)[0].(map[string]any)["functionResponse"].(map[string]any)["response"].(map[string]any)["output"]
	if res.Kind != codec.KindToolResult || res.ToolUseID != tc["id"] || res.Content != out || res.ToolName != want.name {
		t.Errorf("result = %+v, want %q", res, out)
	}
	failing := strings.Contains(out.(string), "Exit Code: 1")
	if res.IsError != failing {
		t.Errorf("%s %v: error %v, want %v (Gemini says %v)", want.name, args, res.IsError, failing, tc["status"])
	}
}

func TestChatRollBackKeepsThePromptAndFails(t *testing.T) {
	evs, p := parseChat(t, chatFile(t, "apierror", sessionOf(t, "apierror")))
	kinds := []codec.Kind{}
	for _, e := range evs {
		kinds = append(kinds, e.Kind)
	}
	if len(evs) != 3 || evs[1].Content != "Say hello" || evs[2].Kind != codec.KindComplete || evs[2].Success {
		t.Errorf("events %v %+v", kinds, evs)
	}
	if len(p.Usage()) != 0 {
		t.Errorf("usage %v for a failed turn", p.Usage())
	}
}

func TestChatFormatIsDetected(t *testing.T) {
	for _, c := range []struct{ path string }{{chatFile(t, "multitool", sessionOf(t, "multitool"))}} {
		f, err := os.Open(c.path)
		if err != nil {
			t.Fatal(err)
		}
		head, _ := parse.PeekLines(bufio.NewReader(f), 20)
		f.Close()
		if got, err := parse.DetectFormat(head); err != nil || got != FormatChat {
			t.Errorf("%s: %q %v", c.path, got, err)
		}
	}
	f, _ := os.Open(filepath.Join(capture, "multitool.stdout.jsonl"))
	defer f.Close()
	head, _ := parse.PeekLines(bufio.NewReader(f), 20)
	if got, err := parse.DetectFormat(head); err != nil || got != FormatStream {
		t.Errorf("stdout: %q %v", got, err)
	}
}

// TestChatCacheAndThoughtTokens: a reply's cached input moves from Input
// to CacheRead and its thoughts count as output and as reasoning. The
// scripted model reports neither, so the captured chat file holds zeros
// there; it is parsed with each reply's cached and thoughts counts set to
// distinct values (every version of a record alike), nothing else changed.
func TestChatCacheAndThoughtTokens(t *testing.T) {
	counts := map[string]int64{}
	path := jsonlines.Edit(t, chatFile(t, "resumed", sessionOf(t, "multitool")), func(o map[string]any) {
		if tok, ok := o["tokens"].(map[string]any); ok {
			id, _ := o["id"].(string)
			if counts[id] == 0 {
				counts[id] = int64(len(counts) + 1)
			}
			tok["cached"], tok["thoughts"] = 10*counts[id], counts[id]
		}
	})
	_, p := parseChat(t, path)
	var want, got struct{ in, cached, out, reasoning int64 }
	for _, r := range chatRecords(t, path) {
		tok, ok := r["tokens"].(map[string]any)
		if !ok {
			continue
		}
		in, cached, thoughts := int64(tok["input"].(float64)), int64(tok["cached"].(float64)), int64(tok["thoughts"].(float64))
		want.in, want.cached = want.in+in-min(cached, in), want.cached+min(cached, in)
		want.out, want.reasoning = want.out+int64(tok["output"].(float64))+thoughts, want.reasoning+thoughts
	}
	for _, u := range p.Usage() {
		t := u.Usage().Tokens
		got.in, got.cached, got.out, got.reasoning = got.in+t.Input, got.cached+t.CacheRead, got.out+t.Output, got.reasoning+t.Reasoning
	}
	if len(counts) == 0 || want.cached == 0 || got != want {
		t.Errorf("%d replies: tokens %+v, want %+v", len(counts), got, want)
	}
}
