package copilot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/editdiff"
	"github.com/lazuli-app/lazuli/internal/jsonlines"
)

// captured returns the captured event logs: the multi-tool session
// (continued, with a sub-agent) and the failed one, told apart by size.
func captured(t testing.TB) (multi, failed string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "capture", "session-state", "*", "events.jsonl"))
	if err != nil || len(files) != 2 {
		t.Fatalf("want 2 captured sessions, got %v (%v)", files, err)
	}
	a, _ := os.Stat(files[0])
	b, _ := os.Stat(files[1])
	if a.Size() < b.Size() {
		return files[1], files[0]
	}
	return files[0], files[1]
}

func rawLines(t testing.TB, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

func parseFile(t testing.TB, path string) ([]codec.Event, *Parser) {
	t.Helper()
	p := NewParser(parse.Options{})
	evs, st, err := parse.ReadFile(path, p)
	if err != nil || st.Malformed != 0 {
		t.Fatalf("ReadFile(%s): %v, %+v", path, err, st)
	}
	return evs, p
}

func ofKind(evs []codec.Event, k codec.Kind) []codec.Event {
	var out []codec.Event
	for _, e := range evs {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// TestEventLog checks every prompt, thought, text, tool call, result and
// token count of the captured session against its events.jsonl.
func TestEventLog(t *testing.T) {
	multi, _ := captured(t)
	evs, p := parseFile(t, multi)
	var prompts, thoughts, texts []string
	calls := map[string]map[string]any{}
	results := map[string]map[string]any{}
	var in, out int64
	for _, l := range rawLines(t, multi) {
		d, _ := l["data"].(map[string]any)
		if l["type"] == "session.usage_record" {
			u := d["usage"].(map[string]any)
			in += int64(u["inputTokens"].(float64))
			out += int64(u["outputTokens"].(float64))
		}
		if l["agentId"] != nil {
			continue
		}
		switch l["type"] {
		case "user.message":
			prompts = append(prompts, d["content"].(string))
		case "assistant.message":
			if s, _ := d["reasoningText"].(string); s != "" {
				thoughts = append(thoughts, s)
			}
			if s := d["content"].(string); s != "" {
				texts = append(texts, s)
			}
			for _, r := range d["toolRequests"].([]any) {
				r := r.(map[string]any)
				calls[r["toolCallId"].(string)] = r
			}
		case "tool.execution_complete":
			results[d["toolCallId"].(string)] = d
		}
	}
	if len(prompts) != 2 || len(calls) != 8 || len(thoughts) != 1 || len(results) != 8 {
		t.Fatalf("capture: %d prompts, %d calls, %d thoughts, %d results", len(prompts), len(calls), len(thoughts), len(results))
	}
	check := func(what string, evs []codec.Event, get func(codec.Event) string, want []string) {
		if len(evs) != len(want) {
			t.Errorf("%s: %d, want %d", what, len(evs), len(want))
			return
		}
		for i := range evs {
			if get(evs[i]) != want[i] {
				t.Errorf("%s[%d] = %q, want %q", what, i, get(evs[i]), want[i])
			}
		}
	}
	check("prompts", ofKind(evs, codec.KindUserMessage), func(e codec.Event) string { return e.Content }, prompts)
	check("thinking", ofKind(evs, codec.KindThinking), func(e codec.Event) string { return e.Text }, thoughts)
	check("texts", ofKind(evs, codec.KindAssistantText), func(e codec.Event) string { return e.Text }, texts)

	wantName := map[string]string{"create": "Write", "view": "Read", "edit": "Edit", "bash": "Bash", "grep": "Grep", "task": "Task"}
	res := map[string]codec.Event{}
	for _, e := range ofKind(evs, codec.KindToolResult) {
		res[e.ToolUseID] = e
	}
	for _, e := range ofKind(evs, codec.KindToolCall) {
		r := calls[e.ToolUseID]
		if r == nil || e.ToolName != wantName[r["name"].(string)] {
			t.Errorf("call %s %s, capture %v", e.ToolUseID, e.ToolName, r)
			continue
		}
		args := r["arguments"].(map[string]any)
		var input map[string]any
		if err := json.Unmarshal(e.Input, &input); err != nil {
			t.Fatal(err)
		}
		switch r["name"] {
		case "create":
			if input["file_path"] != args["path"] || input["content"] != args["file_text"] || *e.FilePath != args["path"] {
				t.Errorf("Write input %s from %v", e.Input, args)
			}
		case "view":
			if input["file_path"] != args["path"] {
				t.Errorf("Read input %s from %v", e.Input, args)
			}
		case "edit":
			files := editdiff.Files(*e.FilePath, e.Input)
			if input["old_string"] != args["old_str"] || input["new_string"] != args["new_str"] || len(files) != 1 {
				t.Errorf("Edit input %s from %v, diff %+v", e.Input, args, files)
			}
		case "bash", "grep":
			for k, v := range args {
				if input[k] != v {
					t.Errorf("%s input %s from %v", e.ToolName, e.Input, args)
				}
			}
		}
		d := results[e.ToolUseID]
		want := d["result"].(map[string]any)["content"].(string)
		wantErr := d["success"] != true
		if sh, ok := d["shellExecution"].(map[string]any); ok && sh["exitCode"].(float64) != 0 {
			wantErr = true
		}
		if got := res[e.ToolUseID]; got.Content != want || got.IsError != wantErr || got.ToolName != e.ToolName {
			t.Errorf("result %s = %q error %v, want %q error %v", e.ToolUseID, got.Content, got.IsError, want, wantErr)
		}
		delete(calls, e.ToolUseID)
	}
	if len(calls) != 0 {
		t.Errorf("calls not imported: %v", calls)
	}
	var gotIn, gotOut int64
	for _, u := range parse.PlaceUsage(evs, p.Usage()) {
		gotIn, gotOut = gotIn+u.Input, gotOut+u.Output
		if u.Backend != "copilot" || u.Model != "claude-sonnet-4.5" || u.HasCost {
			t.Errorf("usage row %+v", u)
		}
	}
	if gotIn != in || gotOut != out {
		t.Errorf("usage in %d out %d, want %d %d", gotIn, gotOut, in, out)
	}
	completes := ofKind(evs, codec.KindComplete)
	if len(completes) != 2 || !completes[0].Success || !completes[1].Success || completes[0].DurationMS == 0 {
		t.Errorf("completes %+v", completes)
	}
	if evs[0].Kind != codec.KindInit || evs[0].Model != "claude-sonnet-4.5" || !strings.HasSuffix(evs[0].CWD, "/work") {
		t.Errorf("Init %+v", evs[0])
	}
	p.Finish()
	subs := p.TakeSubagents()
	if len(subs) != 1 || subs[0].ToolUseID != "toolu_fkm_6_0" || !strings.HasPrefix(subs[0].Asked, "Count the lines") {
		t.Fatalf("sub-agents %+v", subs)
	}
	var kinds []string
	for _, e := range subs[0].Events {
		kinds = append(kinds, string(e.Kind))
	}
	if got := strings.Join(kinds, " "); got != "Init UserMessage ToolCall ToolResult AssistantText Complete" {
		t.Errorf("sub-agent events: %s", got)
	}
	if init := subs[0].Events[0]; init.CWD != evs[0].CWD || init.Model != "claude-sonnet-4.5" {
		t.Errorf("sub-agent Init %+v, want the session's folder and the sub-agent's model", init)
	}
}

// TestSessionError: a request that failed after Copilot's retries is a
// session.error: shown, and the turn ends failed.
func TestSessionError(t *testing.T) {
	_, failed := captured(t)
	evs, _ := parseFile(t, failed)
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, string(e.Kind))
	}
	if got := strings.Join(kinds, " "); got != "Init UserMessage AssistantText Complete" {
		t.Fatalf("events %s", got)
	}
	if !strings.Contains(evs[2].Text, "500 Internal server error") || evs[3].Success {
		t.Errorf("error %q, complete %+v", evs[2].Text, evs[3])
	}
}

// TestStream: `copilot -p --output-format json` prints the events the log
// keeps (not its session.start): the same content events.
func TestStream(t *testing.T) {
	multi, _ := captured(t)
	fromLog, _ := parseFile(t, multi)
	var want []codec.Event
	for _, e := range fromLog {
		if e.Kind != codec.KindInit {
			want = append(want, e)
		}
	}
	var got []codec.Event
	for _, run := range []string{"multi", "continue"} {
		evs, _ := parseFile(t, filepath.Join("testdata", "capture", run+".stdout.jsonl"))
		for _, e := range evs {
			if e.Kind != codec.KindInit {
				got = append(got, e)
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d events from the runs, %d from the log", len(got), len(want))
	}
	for i := range got {
		a, b := got[i], want[i]
		if a.Kind != b.Kind || a.Text != b.Text || a.Content != b.Content || string(a.Input) != string(b.Input) || a.IsError != b.IsError || a.Success != b.Success {
			t.Errorf("event %d: run %+v, log %+v", i, a, b)
		}
	}
}

func FuzzParser(f *testing.F) {
	for _, run := range []string{"multi", "error"} {
		b, _ := os.ReadFile(filepath.Join("testdata", "capture", run+".stdout.jsonl"))
		for l := range strings.SplitSeq(string(b), "\n") {
			if len(l) < 4096 {
				f.Add(l)
			}
		}
	}
	f.Fuzz(func(t *testing.T, line string) {
		p := NewParser(parse.Options{})
		p.Feed([]byte(line))
		p.Feed([]byte(line))
		p.Finish()
		p.TakeSubagents()
	})
}

// TestStreamInit: the stream has no session.start; its Init comes first,
// with the model the stream names before the prompt.
func TestStreamInit(t *testing.T) {
	p := NewParser(parse.Options{Model: "copilot-default"})
	if evs, _, _ := parse.ReadFile(filepath.Join("testdata", "capture", "multi.stdout.jsonl"), p); evs[0].Model != "copilot-default" {
		t.Errorf("a run reports the model it asked for; got %+v", evs[0])
	}
	evs, _ := parseFile(t, filepath.Join("testdata", "capture", "multi.stdout.jsonl"))
	if evs[0].Kind != codec.KindInit || evs[0].Model != "claude-sonnet-4.5" || evs[1].Kind != codec.KindUserMessage {
		t.Errorf("first events %+v %+v", evs[0], evs[1])
	}
}

// BenchmarkCopilotParser reads the captured event log, repeated to about
// 1 MB, the way the native importer feeds it.
func BenchmarkCopilotParser(b *testing.B) {
	multi, _ := captured(b)
	data, err := os.ReadFile(multi)
	if err != nil {
		b.Fatal(err)
	}
	data = bytes.Repeat(data, 1+(1<<20)/len(data))
	lines := bytes.Split(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p := NewParser(parse.Options{})
		n := 0
		for _, l := range lines {
			n += len(p.Feed(l))
		}
		n += len(p.Finish())
		b.ReportMetric(float64(n), "events/op")
	}
}

// TestCacheAndReasoningTokens: each model call's cacheReadTokens,
// cacheWriteTokens and reasoningTokens go into its usage row. The scripted
// model reports none, so the captured log holds zeros there; it is parsed
// with those three counts of each usage record set to distinct values,
// nothing else changed.
func TestCacheAndReasoningTokens(t *testing.T) {
	multi, _ := captured(t)
	var n int64
	var want, got struct{ read, write, reasoning int64 }
	path := jsonlines.Edit(t, multi, func(o map[string]any) {
		if d, ok := o["data"].(map[string]any); ok {
			if u, ok := d["usage"].(map[string]any); ok {
				n++
				u["cacheReadTokens"], u["cacheWriteTokens"], u["reasoningTokens"] = 1000*n, 100*n, n
				want.read, want.write, want.reasoning = want.read+1000*n, want.write+100*n, want.reasoning+n
			}
		}
	})
	_, p := parseFile(t, path)
	for _, r := range p.Usage() {
		u := r.Usage()
		got.read, got.write, got.reasoning = got.read+u.CacheRead, got.write+u.CacheWrite, got.reasoning+u.Reasoning
	}
	if n == 0 || got != want {
		t.Errorf("%d usage records: %+v, want %+v", n, got, want)
	}
}
