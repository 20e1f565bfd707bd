package export

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/store"
)

// sharedDir is the shared fixtures folder; a test that reads it goes through
// fixtures.Dir or fixtures.Missing first.
var sharedDir, _ = fixtures.Path()

// synthEvents has every kind of event, with content that tries to break
// out of fences and markup.
func synthEvents() []codec.Event {
	path := "/work/app/main.go"
	return []codec.Event{
		codec.Init("/work/app", "claude-opus-4"),
		codec.Hook("SessionStart", "hook says <hi>\nsecond line"),
		codec.UserMessage("Fix the parser <script>alert('x')</script> & add a test.\n```\nunclosed fence in a prompt"),
		codec.AssistantText("I'll look at `main.go` first.\n\n- one\n- **two**\n\n```go\nfunc main() {}\n```"),
		codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"go test ./... && echo '`+"```"+`'"}`)),
		codec.ToolResult("t1", "Bash", nil, "ok  \tapp\t0.01s\n```\n````\nthis tries to close the fence", false),
		codec.ToolCall("t2", "Edit", &path, json.RawMessage(`{"file_path":"/work/app/main.go","old_string":"func main() {}\n","new_string":"func main() {\n\trun()\n}\n"}`)),
		codec.ToolResult("t2", "Edit", &path, "The file has been updated.", false),
		codec.ToolCall("t3", "Write", &path, json.RawMessage(`{"file_path":"/work/app/run.go","_lines":12,"_purpose":"// run starts the app"}`)),
		codec.ToolCall("t4", "Grep", nil, json.RawMessage(`{"pattern":"TODO","path":"src","glob":"*.go"}`)),
		codec.ToolResult("t4", "Grep", nil, "", false),
		codec.ToolCall("t5", "Read", &path, json.RawMessage(`{"file_path":"/work/app/missing.go"}`)),
		codec.ToolResult("t5", "Read", &path, "File does not exist.", true),
		codec.Plan("Plan", "1. Parse\n2. Test"),
		codec.Command("/compact"),
		codec.ModelSwitch("sonnet"),
		codec.Unit(codec.KindCompacting),
		codec.Unit(codec.KindCompacted),
		codec.Unit(codec.KindMayBeCompacting),
		codec.Complete(true, 12_345, 0.0123),
		codec.UserMessage("Second prompt"),
		codec.AssistantText("Done."),
		codec.Complete(false, 2_000, 0.5),
	}
}

// synthSource builds a Source of synthEvents without a store.
func synthSource() Source {
	evs := synthEvents()
	stored := make([]store.StoredEvent, len(evs))
	for i, e := range evs {
		stored[i] = store.StoredEvent{ID: int64(i + 1), Seq: int64(i + 1), Kind: e.Kind, CharLen: codec.CharLen(e), Event: e}
	}
	done := false
	dur, cost := int64(2000), 0.5
	s := store.Session{ID: 3, Name: "Fix <the> parser", Worktree: "main", Created: "2026-05-01 10:00:00",
		Completed: &done, DurationMS: &dur, CostUSD: &cost, EventCount: int64(len(evs)), MessageCount: 5}
	comps := []store.Compaction{{ID: 1, SessionID: 3, AfterSeq: 20, Summary: "## Summary\nThe user asked to fix the parser.", Created: "2026-05-01 10:05:00"}}
	return NewSource(s, stored, comps)
}

// storeWith writes events as session "name" into a new store in a temp
// folder and returns the store's path.
func storeWith(t testing.TB, name string, events []codec.Event) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".azureal", "sessions.azs")
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, _, err := st.Sessions().CreateWithEvents(ctx, "main", name, events); err != nil {
		t.Fatal(err)
	}
	return path
}

// fixtureEvents parses a real transcript from the shared fixtures (see
// internal/fixtures for what happens when it is missing).
func fixtureEvents(t testing.TB, rel string) []codec.Event {
	t.Helper()
	path := fixtures.Dir(t, rel)
	events, _, _, err := agents.LoadTranscript(path, parse.FormatAuto, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// loadReadOnly loads session 1 of the store at path through a read-only
// store.
func loadReadOnly(t testing.TB, path string) Source {
	t.Helper()
	st, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	src, err := Load(context.Background(), st, 1)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func render(t testing.TB, src Source, f Format) string {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, src, f); err != nil {
		t.Fatalf("Render(%s): %v", f, err)
	}
	return b.String()
}
