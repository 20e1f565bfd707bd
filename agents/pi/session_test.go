package pi

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

// captured returns the captured session files: the multi-tool session
// continued by a second prompt, and the session whose requests failed.
func captured(t testing.TB) (multi, failed string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "capture", "sessions", "*", "*.jsonl"))
	if err != nil || len(files) != 2 {
		t.Fatalf("want 2 captured sessions, got %v (%v)", files, err)
	}
	return files[0], files[1] // named by start time: the multi-tool session began first
}

// rawLines decodes every line of a file as JSON, independently of the parser.
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

func partsText(content any) string {
	var texts []string
	for _, c := range content.([]any) {
		if m := c.(map[string]any); m["type"] == "text" {
			texts = append(texts, m["text"].(string))
		}
	}
	return strings.Join(texts, "\n")
}

// TestSessionFile checks every prompt, thought, text, tool call, result and
// token count of the captured session against the file's own lines.
func TestSessionFile(t *testing.T) {
	multi, _ := captured(t)
	evs, p := parseFile(t, multi)
	var prompts, thoughts, texts []string
	type callWant struct{ name, args string }
	calls := map[string]callWant{}
	results := map[string]string{}
	resultErr := map[string]bool{}
	var in, out, turns int64
	var cost float64
	for _, l := range rawLines(t, multi) {
		if l["type"] != "message" {
			continue
		}
		m := l["message"].(map[string]any)
		switch m["role"] {
		case "user":
			prompts = append(prompts, partsText(m["content"]))
			turns++
		case "assistant":
			for _, c := range m["content"].([]any) {
				c := c.(map[string]any)
				switch c["type"] {
				case "thinking":
					thoughts = append(thoughts, c["thinking"].(string))
				case "text":
					texts = append(texts, c["text"].(string))
				case "toolCall":
					b, _ := json.Marshal(c["arguments"])
					calls[c["id"].(string)] = callWant{c["name"].(string), string(b)}
				}
			}
			u := m["usage"].(map[string]any)
			in += int64(u["input"].(float64))
			out += int64(u["output"].(float64))
			cost += u["cost"].(map[string]any)["total"].(float64)
		case "toolResult":
			results[m["toolCallId"].(string)] = partsText(m["content"])
			resultErr[m["toolCallId"].(string)] = m["isError"].(bool)
		}
	}
	if len(prompts) != 2 || len(calls) != 7 || len(thoughts) != 1 {
		t.Fatalf("capture: %d prompts, %d calls, %d thoughts; want 2, 7, 1", len(prompts), len(calls), len(thoughts))
	}
	checkTexts(t, "prompts", ofKind(evs, codec.KindUserMessage), func(e codec.Event) string { return e.Content }, prompts)
	checkTexts(t, "thinking", ofKind(evs, codec.KindThinking), func(e codec.Event) string { return e.Text }, thoughts)
	checkTexts(t, "texts", ofKind(evs, codec.KindAssistantText), func(e codec.Event) string { return e.Text }, texts)

	wantName := map[string]string{"write": "Write", "read": "Read", "edit": "Edit", "bash": "Bash", "grep": "Grep"}
	for _, e := range ofKind(evs, codec.KindToolCall) {
		w, ok := calls[e.ToolUseID]
		if !ok || e.ToolName != wantName[w.name] {
			t.Errorf("call %s %s, want %s (%s)", e.ToolUseID, e.ToolName, wantName[w.name], w.name)
			continue
		}
		var args, input map[string]any
		_ = json.Unmarshal([]byte(w.args), &args)
		if err := json.Unmarshal(e.Input, &input); err != nil {
			t.Fatalf("call %s input %s: %v", e.ToolUseID, e.Input, err)
		}
		switch w.name {
		case "write":
			if input["file_path"] != args["path"] || input["content"] != args["content"] || *e.FilePath != args["path"] {
				t.Errorf("Write input %s, from %s", e.Input, w.args)
			}
		case "read":
			if input["file_path"] != args["path"] {
				t.Errorf("Read input %s, from %s", e.Input, w.args)
			}
		case "edit":
			ed := args["edits"].([]any)[0].(map[string]any)
			files := editdiff.Files(*e.FilePath, e.Input)
			if input["old_string"] != ed["oldText"] || input["new_string"] != ed["newText"] || len(files) != 1 || files[0].Path != args["path"] {
				t.Errorf("Edit input %s (diff %+v), from %s", e.Input, files, w.args)
			}
		case "bash", "grep":
			for k, v := range args {
				if input[k] != v {
					t.Errorf("%s input %s, from %s", e.ToolName, e.Input, w.args)
				}
			}
		}
		delete(calls, e.ToolUseID)
	}
	if len(calls) != 0 {
		t.Errorf("calls not imported: %v", calls)
	}
	for _, e := range ofKind(evs, codec.KindToolResult) {
		if e.Content != results[e.ToolUseID] || e.IsError != resultErr[e.ToolUseID] {
			t.Errorf("result %s = %q (error %v), want %q (error %v)", e.ToolUseID, e.Content, e.IsError, results[e.ToolUseID], resultErr[e.ToolUseID])
		}
		delete(results, e.ToolUseID)
	}
	if len(results) != 0 {
		t.Errorf("results not imported: %v", results)
	}
	var gotIn, gotOut int64
	var gotCost float64
	for _, u := range parse.PlaceUsage(evs, p.Usage()) {
		gotIn, gotOut, gotCost = gotIn+u.Input, gotOut+u.Output, gotCost+u.CostUSD
		if u.Backend != "pi" || u.Model != "claude-sonnet-4-5" || !u.HasCost {
			t.Errorf("usage row %+v", u)
		}
	}
	if gotIn != in || gotOut != out || !near(gotCost, cost) {
		t.Errorf("usage in %d out %d cost %g, want %d %d %g", gotIn, gotOut, gotCost, in, out, cost)
	}
	completes := ofKind(evs, codec.KindComplete)
	if int64(len(completes)) != turns {
		t.Fatalf("%d completes, want one per prompt (%d)", len(completes), turns)
	}
	var sum float64
	for _, c := range completes {
		if !c.Success || c.DurationMS == 0 {
			t.Errorf("complete %+v, want success with a duration", c)
		}
		sum += c.CostUSD
	}
	if !near(sum, cost) {
		t.Errorf("completes cost %g, want %g", sum, cost)
	}
	if evs[0].Kind != codec.KindInit || evs[0].Model != "claude-sonnet-4-5" || !strings.HasSuffix(evs[0].CWD, "/work") {
		t.Errorf("first event %+v, want the Init with model and folder", evs[0])
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func checkTexts(t *testing.T, what string, evs []codec.Event, get func(codec.Event) string, want []string) {
	t.Helper()
	if len(evs) != len(want) {
		t.Errorf("%s: %d events, want %d", what, len(evs), len(want))
		return
	}
	for i, e := range evs {
		if get(e) != want[i] {
			t.Errorf("%s[%d] = %q, want %q", what, i, get(e), want[i])
		}
	}
}

// TestAPIError: Pi records each failed attempt and exits 0; the import
// shows the error once and ends the turn failed.
func TestAPIError(t *testing.T) {
	_, failed := captured(t)
	evs, _ := parseFile(t, failed)
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, string(e.Kind))
	}
	if got := strings.Join(kinds, " "); got != "Init UserMessage AssistantText Complete" {
		t.Fatalf("events %s", got)
	}
	if !strings.HasPrefix(evs[2].Text, "Error: 500 ") || evs[3].Success || evs[3].DurationMS == 0 {
		t.Errorf("error %q, complete %+v", evs[2].Text, evs[3])
	}
}

// TestStream: `pi --mode json` prints the messages the session file keeps;
// both parse to the same events.
func TestStream(t *testing.T) {
	multi, _ := captured(t)
	fromFile, _ := parseFile(t, multi)
	for i, run := range []string{"multi", "continue"} {
		evs, _ := parseFile(t, filepath.Join("testdata", "capture", run+".stdout.jsonl"))
		turn := turnOf(fromFile, i)
		if i > 0 {
			evs = evs[1:] // the continued run's stream starts with its own Init
		}
		if len(evs) != len(turn) {
			t.Fatalf("%s: %d events from the stream, %d from the file", run, len(evs), len(turn))
		}
		for j := range evs {
			a, b := evs[j], turn[j]
			if a.Kind != b.Kind || a.Text != b.Text || a.Content != b.Content || string(a.Input) != string(b.Input) || a.IsError != b.IsError || a.Success != b.Success {
				t.Errorf("%s event %d: stream %+v, file %+v", run, j, a, b)
			}
		}
	}
}

// turnOf returns the events of the n-th turn (the Init with the first).
func turnOf(evs []codec.Event, n int) []codec.Event {
	start, turn := 0, 0
	for i, e := range evs {
		if e.Kind == codec.KindComplete {
			if turn == n {
				return evs[start : i+1]
			}
			turn++
			start = i + 1
		}
	}
	return nil
}

func FuzzParser(f *testing.F) {
	for _, p := range []string{"multi", "continue", "error"} {
		b, _ := os.ReadFile(filepath.Join("testdata", "capture", p+".stdout.jsonl"))
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
	})
}

// TestRunModel: a run's parser reports the model the run asked for.
func TestRunModel(t *testing.T) {
	p := NewParser(parse.Options{Model: "pi-default"})
	evs, _, err := parse.ReadFile(filepath.Join("testdata", "capture", "multi.stdout.jsonl"), p)
	if err != nil || evs[0].Kind != codec.KindInit || evs[0].Model != "pi-default" || len(ofKind(evs, codec.KindModelSwitch)) != 0 {
		t.Errorf("Init %+v, %v", evs[0], err)
	}
}

// BenchmarkPiParser reads the captured session file, repeated to about
// 1 MB, the way the native importer feeds it.
func BenchmarkPiParser(b *testing.B) {
	multi, _ := captured(b)
	data, err := os.ReadFile(multi)
	if err != nil {
		b.Fatal(err)
	}
	benchLines(b, bytes.Repeat(data, 1+(1<<20)/len(data)), func() parse.Parser { return NewParser(parse.Options{}) })
}

// benchLines feeds data's lines to a fresh parser per op.
func benchLines(b *testing.B, data []byte, newParser func() parse.Parser) {
	lines := bytes.Split(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p := newParser()
		n := 0
		for _, l := range lines {
			n += len(p.Feed(l))
		}
		n += len(p.Finish())
		b.ReportMetric(float64(n), "events/op")
	}
}

// TestCacheTokens: each usage row gets its message's cacheRead and
// cacheWrite. The scripted model reports no cache tokens, so the captured
// session's usage holds zeros there; its lines are parsed with each
// usage's two cache counts set to distinct values, nothing else changed.
func TestCacheTokens(t *testing.T) {
	multi, _ := captured(t)
	var n, wantRead, wantWrite int64
	path := jsonlines.Edit(t, multi, func(m map[string]any) {
		if msg, ok := m["message"].(map[string]any); ok {
			if u, ok := msg["usage"].(map[string]any); ok {
				n++
				u["cacheRead"], u["cacheWrite"] = 1000*n, n
				wantRead, wantWrite = wantRead+1000*n, wantWrite+n
			}
		}
	})
	p := NewParser(parse.Options{})
	evs, _, err := parse.ReadFile(path, p)
	if err != nil {
		t.Fatal(err)
	}
	var gotRead, gotWrite int64
	for _, u := range parse.PlaceUsage(evs, p.Usage()) {
		gotRead, gotWrite = gotRead+u.CacheRead, gotWrite+u.CacheWrite
	}
	if n == 0 || gotRead != wantRead || gotWrite != wantWrite {
		t.Errorf("%d usages: cache read %d, write %d; want %d, %d", n, gotRead, gotWrite, wantRead, wantWrite)
	}
}
