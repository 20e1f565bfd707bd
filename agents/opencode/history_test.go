package opencode

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/editdiff"
)

// capturedDB unpacks the captured database, its -wal and -shm together,
// into a temporary folder and returns the database's path.
func capturedDB(t testing.TB) string {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "capture", "opencode-db.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(h.Name)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "opencode.db")
}

func openCaptured(t testing.TB) (*DB, string) {
	t.Helper()
	path := capturedDB(t)
	db, err := OpenDB(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

// sessionEvents parses one session of the database.
func sessionEvents(t testing.TB, db *DB, s Session) ([]codec.Event, *Parser) {
	t.Helper()
	lines, err := db.Lines(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser(parse.Options{})
	var evs []codec.Event
	for _, l := range lines {
		evs = append(evs, p.Feed(l)...)
	}
	evs = append(evs, p.Finish()...)
	if st := p.Stats(); st.Malformed != 0 {
		t.Fatalf("malformed lines: %+v", st)
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

// sessions returns the captured sessions: the multi-tool one (continued),
// its task sub-agent, and the failed one.
func sessions(t testing.TB, db *DB) (multi, sub, failed Session) {
	t.Helper()
	ss, err := db.Sessions(context.Background())
	if err != nil || len(ss) != 3 {
		t.Fatalf("sessions %v, %v; want 3", ss, err)
	}
	return ss[0], ss[1], ss[2]
}

// rows reads a session's parts straight from the database, as the test's
// own account of what OpenCode wrote.
type rawPart struct {
	msgRole string
	data    map[string]any
}

func rawParts(t testing.TB, path, session string) []rawPart {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT json_extract(m.data, '$.role'), p.data FROM part p JOIN message m ON m.id = p.message_id
WHERE p.session_id = ? ORDER BY m.time_created, m.id, p.id`, session)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []rawPart
	for rows.Next() {
		var role string
		var data []byte
		if err := rows.Scan(&role, &data); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, rawPart{role, m})
	}
	return out
}

// TestHistory checks every prompt, thought, text, tool call, result and
// token count of the captured session against the database's rows.
func TestHistory(t *testing.T) {
	db, path := openCaptured(t)
	multi, _, _ := sessions(t, db)
	evs, p := sessionEvents(t, db, multi)

	var prompts, texts, thoughts []string
	calls := map[string]map[string]any{}
	var in, out int64
	var cost float64
	for _, r := range rawParts(t, path, multi.ID) {
		d := r.data
		switch d["type"] {
		case "text":
			if r.msgRole == "user" {
				prompts = append(prompts, d["text"].(string))
			} else {
				texts = append(texts, d["text"].(string))
			}
		case "reasoning":
			thoughts = append(thoughts, d["text"].(string))
		case "tool":
			calls[d["callID"].(string)] = d
		case "step-finish":
			tk := d["tokens"].(map[string]any)
			in += int64(tk["input"].(float64))
			out += int64(tk["output"].(float64))
			cost += d["cost"].(float64)
		}
	}
	if len(prompts) != 2 || len(calls) != 8 || len(thoughts) != 1 {
		t.Fatalf("capture: %d prompts, %d calls, %d thoughts; want 2, 8, 1", len(prompts), len(calls), len(thoughts))
	}
	for i, e := range ofKind(evs, codec.KindUserMessage) {
		// OpenCode stored the prompt wrapped in literal quotes.
		if `"`+e.Content+`"` != prompts[i] {
			t.Errorf("prompt %d = %q, stored %q", i, e.Content, prompts[i])
		}
	}
	for i, e := range ofKind(evs, codec.KindAssistantText) {
		if e.Text != texts[i] {
			t.Errorf("text %d = %q, want %q", i, e.Text, texts[i])
		}
	}
	if th := ofKind(evs, codec.KindThinking); len(th) != 1 || th[0].Text != thoughts[0] {
		t.Errorf("thinking %+v, want %q", th, thoughts)
	}
	wantName := map[string]string{"write": "Write", "read": "Read", "edit": "Edit", "bash": "Bash", "grep": "Grep", "task": "Task"}
	results := map[string]codec.Event{}
	for _, e := range ofKind(evs, codec.KindToolResult) {
		results[e.ToolUseID] = e
	}
	for _, e := range ofKind(evs, codec.KindToolCall) {
		raw, ok := calls[e.ToolUseID]
		if !ok {
			t.Errorf("call %s not in the database", e.ToolUseID)
			continue
		}
		st := raw["state"].(map[string]any)
		args := st["input"].(map[string]any)
		if e.ToolName != wantName[raw["tool"].(string)] {
			t.Errorf("call %s named %s, want %s", e.ToolUseID, e.ToolName, wantName[raw["tool"].(string)])
		}
		var input map[string]any
		if err := json.Unmarshal(e.Input, &input); err != nil {
			t.Fatal(err)
		}
		switch raw["tool"] {
		case "write":
			if input["file_path"] != args["filePath"] || input["content"] != args["content"] {
				t.Errorf("Write input %s from %v", e.Input, args)
			}
		case "edit":
			files := editdiff.Files(*e.FilePath, e.Input)
			if input["old_string"] != args["oldString"] || input["new_string"] != args["newString"] || len(files) != 1 {
				t.Errorf("Edit input %s from %v, diff %+v", e.Input, args, files)
			}
		default:
			for k, v := range args {
				if k != "filePath" && input[k] != v {
					t.Errorf("%s input %s from %v", e.ToolName, e.Input, args)
				}
			}
		}
		res, ok := results[e.ToolUseID]
		wantOut, _ := st["output"].(string)
		if st["status"] == "error" {
			wantOut = st["error"].(string)
		}
		exit, _ := st["metadata"].(map[string]any)["exit"].(float64)
		wantErr := st["status"] == "error" || exit != 0
		if !ok || res.Content != wantOut || res.IsError != wantErr || res.ToolName != e.ToolName {
			t.Errorf("result of %s = %+v, want %q error %v", e.ToolUseID, res, wantOut, wantErr)
		}
		delete(calls, e.ToolUseID)
	}
	if len(calls) != 0 {
		t.Errorf("calls not imported: %v", calls)
	}
	var gotIn, gotOut int64
	var gotCost float64
	for _, u := range parse.PlaceUsage(evs, p.Usage()) {
		gotIn, gotOut, gotCost = gotIn+u.Input, gotOut+u.Output, gotCost+u.CostUSD
	}
	if gotIn != in || gotOut != out || !near(gotCost, cost) || cost == 0 {
		t.Errorf("usage in %d out %d cost %g, want %d %d %g", gotIn, gotOut, gotCost, in, out, cost)
	}
	completes := ofKind(evs, codec.KindComplete)
	var sum float64
	for _, c := range completes {
		if !c.Success || c.DurationMS == 0 {
			t.Errorf("complete %+v", c)
		}
		sum += c.CostUSD
	}
	if len(completes) != 2 || !near(sum, cost) {
		t.Errorf("%d completes costing %g, want 2 costing %g", len(completes), sum, cost)
	}
	if evs[0].Kind != codec.KindInit || evs[0].Model != "claude-sonnet-4-5" || evs[0].CWD != multi.Directory {
		t.Errorf("Init %+v", evs[0])
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// TestSubagentAndError: the task's child session has the parent's id and
// its own turn; the failed session shows OpenCode's error and ends failed.
func TestSubagentAndError(t *testing.T) {
	db, _ := openCaptured(t)
	multi, sub, failed := sessions(t, db)
	if sub.ParentID != multi.ID || failed.ParentID != "" {
		t.Fatalf("parents: %q, %q", sub.ParentID, failed.ParentID)
	}
	evs, _ := sessionEvents(t, db, sub)
	if u := ofKind(evs, codec.KindUserMessage); len(u) != 1 || !strings.HasPrefix(u[0].Content, "Count the lines") {
		t.Errorf("sub-agent prompt %+v", u)
	}
	evs, _ = sessionEvents(t, db, failed)
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, string(e.Kind))
	}
	if got := strings.Join(kinds, " "); got != "Init UserMessage AssistantText Complete" {
		t.Fatalf("failed session: %s", got)
	}
	if evs[2].Text != "Error: Internal server error" || evs[3].Success {
		t.Errorf("error %q, complete %+v", evs[2].Text, evs[3])
	}
}

// TestReadOnly: reading the database leaves the database and its WAL as
// they were, and a write through the handle is refused.
func TestReadOnly(t *testing.T) {
	path := capturedDB(t)
	before := map[string][]byte{}
	for _, n := range []string{"", "-wal"} {
		b, _ := os.ReadFile(path + n)
		before[n] = b
	}
	db, err := OpenDB(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	ss, _ := db.Sessions(context.Background())
	for _, s := range ss {
		if _, err := db.Lines(context.Background(), s); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.db.Exec("DELETE FROM part"); err == nil {
		t.Error("a write through the read-only handle succeeded")
	}
	db.Close()
	for n, b := range before {
		now, _ := os.ReadFile(path + n)
		if !bytes.Equal(now, b) {
			t.Errorf("opencode.db%s changed by reading it", n)
		}
	}
}

func TestOpenDBRefuses(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.db")
	db, err := sql.Open("sqlite", "file:"+other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t(x)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, p := range []string{other, filepath.Join(dir, "missing.db")} {
		if d, err := OpenDB(context.Background(), p); err == nil {
			d.Close()
			t.Errorf("OpenDB(%s) succeeded", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "missing.db")); err == nil {
		t.Error("OpenDB created the missing database")
	}
}

// TestStream: `opencode run --format json` prints the parts the database
// keeps; both parse to the same assistant events, and the error line ends
// the turn failed.
func TestStream(t *testing.T) {
	db, _ := openCaptured(t)
	multi, _, _ := sessions(t, db)
	hist, _ := sessionEvents(t, db, multi)
	var fromDB []codec.Event
	for _, e := range hist {
		if e.Kind != codec.KindInit && e.Kind != codec.KindUserMessage && e.Kind != codec.KindThinking {
			fromDB = append(fromDB, e)
		}
	}
	var fromRun []codec.Event
	for _, run := range []string{"multi", "continue"} {
		p := NewStreamParser(parse.Options{Model: "claude-sonnet-4-5"})
		evs, _, err := parse.ReadFile(filepath.Join("testdata", "capture", run+".stdout.jsonl"), p)
		if err != nil || evs[0].Kind != codec.KindInit || evs[0].Model != "claude-sonnet-4-5" {
			t.Fatalf("%s: %v, first %+v", run, err, evs[0])
		}
		fromRun = append(fromRun, evs[1:]...)
	}
	if len(fromRun) != len(fromDB) {
		t.Fatalf("%d events from the runs, %d from the database", len(fromRun), len(fromDB))
	}
	for i := range fromRun {
		a, b := fromRun[i], fromDB[i]
		if a.Kind != b.Kind || a.Text != b.Text || a.Content != b.Content || string(a.Input) != string(b.Input) ||
			a.IsError != b.IsError || a.Success != b.Success || !near(a.CostUSD, b.CostUSD) {
			t.Errorf("event %d: run %+v, database %+v", i, a, b)
		}
	}
	p := NewStreamParser(parse.Options{})
	evs, _, _ := parse.ReadFile(filepath.Join("testdata", "capture", "error.stdout.jsonl"), p)
	if len(evs) != 3 || evs[0].Model != DefaultModel || evs[1].Text != "Error: Internal server error" || evs[2].Kind != codec.KindComplete || evs[2].Success {
		t.Errorf("error run: %+v", evs)
	}
}

func TestUnquote(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"Say hello."`, "Say hello."}, {`Say "hi"`, `Say "hi"`}, {`"`, `"`}, {`""`, ``}, {`"a" and "b"`, `a" and "b`},
		// As opencode 1.18.33 stored the prompt He said "hi"⏎and C:\new.
		{"\"He said \\\"hi\\\"\nand C:\\new\"", "He said \"hi\"\nand C:\\new"},
	} {
		if got := unquote(c.in); got != c.want {
			t.Errorf("unquote(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func FuzzParsers(f *testing.F) {
	for _, run := range []string{"multi", "continue", "error"} {
		b, _ := os.ReadFile(filepath.Join("testdata", "capture", run+".stdout.jsonl"))
		for l := range strings.SplitSeq(string(b), "\n") {
			f.Add(l)
		}
	}
	f.Add(`{"type":"opencode.message","info":{"role":"assistant","error":{}},"parts":[{"type":"tool","state":{"status":"error"}}]}`)
	f.Fuzz(func(t *testing.T, line string) {
		h := NewParser(parse.Options{})
		h.Feed([]byte(line))
		h.Finish()
		s := NewStreamParser(parse.Options{})
		s.Feed([]byte(line))
		s.Finish()
	})
}

// BenchmarkOpenCodeParser reads the captured sessions as DB.Lines hands
// them over, repeated to about 1 MB of lines (the parsing alone).
func BenchmarkOpenCodeParser(b *testing.B) {
	db, _ := openCaptured(b)
	ss, err := db.Sessions(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	var lines [][]byte
	size := 0
	for size < 1<<20 {
		for _, s := range ss {
			ls, err := db.Lines(context.Background(), s)
			if err != nil {
				b.Fatal(err)
			}
			for _, l := range ls {
				lines = append(lines, l)
				size += len(l) + 1
			}
		}
	}
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		p := NewParser(parse.Options{})
		n := 0
		for _, l := range lines {
			n += len(p.Feed(l))
		}
		b.ReportMetric(float64(n), "events/op")
	}
}

// BenchmarkOpenCodeRead reads every session of the captured database
// (query and lines, no parsing): MB/s of the lines produced.
func BenchmarkOpenCodeRead(b *testing.B) {
	db, _ := openCaptured(b)
	ctx := context.Background()
	size := 0
	ss, _ := db.Sessions(ctx)
	for _, s := range ss {
		ls, _ := db.Lines(ctx, s)
		for _, l := range ls {
			size += len(l) + 1
		}
	}
	b.SetBytes(int64(size))
	for b.Loop() {
		ss, err := db.Sessions(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range ss {
			if _, err := db.Lines(ctx, s); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestCacheAndReasoningTokens: each step's reasoning and cache read and
// write tokens go into its usage row. The scripted model reports none, so
// the captured database holds zeros there; its session's lines, as DB.Lines
// hands them over, are parsed with those three counts of each step-finish
// part set to distinct values, nothing else changed.
func TestCacheAndReasoningTokens(t *testing.T) {
	db, _ := openCaptured(t)
	multi, _, _ := sessions(t, db)
	lines, err := db.Lines(context.Background(), multi)
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser(parse.Options{})
	var n int64
	var want, got struct{ read, write, reasoning int64 }
	for _, l := range lines {
		var o map[string]any
		if err := json.Unmarshal(l, &o); err != nil {
			t.Fatal(err)
		}
		parts, _ := o["parts"].([]any)
		for _, x := range parts {
			part, _ := x.(map[string]any)
			tk, ok := part["tokens"].(map[string]any)
			if !ok || part["type"] != "step-finish" {
				continue
			}
			n++
			tk["reasoning"], tk["cache"] = n, map[string]any{"read": 1000 * n, "write": 100 * n}
			want.read, want.write, want.reasoning = want.read+1000*n, want.write+100*n, want.reasoning+n
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatal(err)
		}
		p.Feed(b)
	}
	p.Finish()
	for _, r := range p.Usage() {
		u := r.Usage()
		got.read, got.write, got.reasoning = got.read+u.CacheRead, got.write+u.CacheWrite, got.reasoning+u.Reasoning
	}
	if n == 0 || got != want {
		t.Errorf("%d steps: %+v, want %+v", n, got, want)
	}
}
