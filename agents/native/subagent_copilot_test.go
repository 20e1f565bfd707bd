package native

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// The captured Copilot CLI run whose task call started a sub-agent
// (agents/copilot/testdata/capture, RUNS.txt "multi").
const (
	copilotMain     = "3ae6ebc8-51de-4139-b69f-deeb912998b6"
	copilotTaskCall = "toolu_fkm_6_0"
)

// copilotEvents is the captured session's events.jsonl under dir.
func copilotEvents(dir string) string { return filepath.Join(dir, copilotMain, "events.jsonl") }

// TestImportCopilotSubagent: the sub-agent whose work Copilot CLI keeps in
// its parent's events.jsonl is imported as a session of its own, linked
// to the task call, with the events `lazuli import FILE` gives it; a
// second import is a no-op.
func TestImportCopilotSubagent(t *testing.T) {
	ctx := context.Background()
	dir := copyTree(t, "copilot/testdata/capture/session-state")
	st := mustOpenStore(t)
	res := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{Copilot: dir}}).Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(res); got[Imported] != 3 || len(res) != 3 {
		t.Fatalf("outcomes %v: %+v", got, res)
	}
	mustCheck(t, st)
	parentID, childID := resultSession(res, copilotMain), resultSession(res, copilotMain+"/"+copilotTaskCall)
	checkLinked(t, st, parentID, childID, copilotTaskCall)
	got, err := st.Events().All(ctx, childID)
	if err != nil {
		t.Fatal(err)
	}
	want := fileSubagent(t, copilotEvents(dir), copilotTaskCall)
	if len(want) != 6 {
		t.Fatalf("import FILE gives the sub-agent %d events: %+v", len(want), want)
	}
	checkSameEvents(t, got, want)
	if w := want[0]; w.Kind != codec.KindInit || !strings.HasSuffix(w.CWD, "/work") || w.Model != "claude-sonnet-4.5" {
		t.Errorf("sub-agent Init %+v", w)
	}
	if w := want[1]; w.Content != "Count the lines of notes.txt and report the number." {
		t.Errorf("sub-agent prompt %+v", w)
	}
	if w := want[2]; w.Kind != codec.KindToolCall || w.ToolUseID != "toolu_fkm_0_0" || w.ToolName != "Bash" || !strings.Contains(string(w.Input), "wc -l < notes.txt") {
		t.Errorf("sub-agent call %+v", w)
	}
	if w := want[3]; w.Kind != codec.KindToolResult || w.ToolUseID != "toolu_fkm_0_0" || !strings.HasPrefix(w.Content, "2") || w.IsError {
		t.Errorf("sub-agent result %+v", w)
	}
	if w := want[4]; w.Kind != codec.KindAssistantText || w.Text != "notes.txt has 2 lines." {
		t.Errorf("sub-agent answer %+v", w)
	}
	if w := want[5]; w.Kind != codec.KindComplete || !w.Success || w.DurationMS != 232 {
		t.Errorf("sub-agent end %+v", w)
	}
	sessions, _ := st.Sessions().List(ctx, "")
	again := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{Copilot: dir}}).Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(again); got[Unchanged] != len(again) || len(again) != 2 {
		t.Errorf("re-import outcomes %v (%d results), want the two files unchanged", got, len(again))
	}
	if now, _ := st.Sessions().List(ctx, ""); len(now) != len(sessions) {
		t.Errorf("re-import: %d sessions, before %d", len(now), len(sessions))
	}
}

// TestCopilotSubagentGrows: a file imported while its sub-agent was at
// work gets the rest of the sub-agent's events on the next import, into
// the same session: the sub-agent ends as a whole import gives it.
func TestCopilotSubagentGrows(t *testing.T) {
	ctx := context.Background()
	dir := copyTree(t, "copilot/testdata/capture/session-state")
	path := copilotEvents(dir)
	full, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := 0 // after the sub-agent's tool result
	for _, line := range strings.SplitAfter(string(full), "\n") {
		cut += len(line)
		if strings.Contains(line, `"type":"tool.execution_complete"`) && strings.Contains(line, `"agentId"`) {
			break
		}
	}
	if err := os.WriteFile(path, full[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	st := mustOpenStore(t)
	first := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{Copilot: dir}}).Sessions, ImportOptions{FallbackWorktree: "main"})
	childID := resultSession(first, copilotMain+"/"+copilotTaskCall)
	if evs, _ := st.Events().All(ctx, childID); childID == 0 || len(evs) != 4 {
		t.Fatalf("first import: sub-agent S%d with %d events, want 4", childID, len(evs))
	}
	if err := os.WriteFile(path, full, 0o644); err != nil {
		t.Fatal(err)
	}
	second := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{Copilot: dir}}).Sessions, ImportOptions{FallbackWorktree: "main"})
	for _, r := range second {
		if r.ID == copilotMain+"/"+copilotTaskCall && (r.Outcome != Appended || r.SessionID != childID || r.Events != 2) {
			t.Errorf("second import of the sub-agent: %+v, want 2 events appended to S%d", r, childID)
		}
	}
	got, err := st.Events().All(ctx, childID)
	if err != nil {
		t.Fatal(err)
	}
	checkSameEvents(t, got, fileSubagent(t, path, copilotTaskCall))
	checkLinked(t, st, resultSession(first, copilotMain), childID, copilotTaskCall)
	mustCheck(t, st)
}

// TestCopilotSubagentOnReimport: a store that imported the Copilot
// session before Lazuli read its sub-agents gets the sub-agent's session,
// linked, on the next import, though the file is unchanged; the parent's
// events are not stored again, and the import after is a no-op.
func TestCopilotSubagentOnReimport(t *testing.T) {
	ctx := context.Background()
	dir := copyTree(t, "copilot/testdata/capture/session-state")
	scan := mustScan(t, Options{Dirs: Dirs{Copilot: dir}})
	st := mustOpenStore(t)
	// As Lazuli imported it before: the file's events, no sub-agent, and
	// a record without a resume.
	im := &nativeImporter{st: st, records: map[store.NativeKey]store.NativeImport{}}
	var old []store.NativeBatch
	for _, n := range scan.Sessions {
		b, _, _, err := im.prepare(ctx, n, "main", n.Title)
		if err != nil || b == nil {
			t.Fatalf("prepare %s: %v, %v", n.ID, b, err)
		}
		b.Resume = nil
		old = append(old, *b)
	}
	stored, err := st.Native().Import(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	parentEvents := 0
	for i, b := range old {
		if b.Key.ID == copilotMain {
			parentEvents = stored[i].Events
		}
	}
	res := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{Copilot: dir}}).Sessions, ImportOptions{FallbackWorktree: "main"})
	var parentID, childID int64
	for _, r := range res {
		switch r.ID {
		case copilotMain:
			parentID = r.SessionID
			if r.Outcome != Unchanged || r.Events != 0 {
				t.Errorf("parent %+v, want unchanged", r)
			}
		case copilotMain + "/" + copilotTaskCall:
			childID = r.SessionID
			if r.Outcome != Imported || r.Events != 6 {
				t.Errorf("sub-agent %+v, want imported with 6 events", r)
			}
		}
	}
	if evs, _ := st.Events().All(ctx, parentID); len(evs) != parentEvents {
		t.Errorf("parent has %d events, had %d", len(evs), parentEvents)
	}
	checkLinked(t, st, parentID, childID, copilotTaskCall)
	mustCheck(t, st)
	again := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{Copilot: dir}}).Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(again); got[Unchanged] != len(again) || len(again) != 2 {
		t.Errorf("the import after: %v (%d results), want a no-op", got, len(again))
	}
}

// fileSubagent is the events `lazuli import FILE` gives the sub-agent of
// the transcript at path that call started.
func fileSubagent(t *testing.T, path, call string) []codec.Event {
	t.Helper()
	tr, err := agents.ReadTranscript(path, parse.FormatAuto, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tr.Subagents {
		if s.ToolUseID == call {
			return store.FilterInjectedEvents(s.Events)
		}
	}
	t.Fatalf("%s holds no sub-agent of %s", path, call)
	return nil
}

// checkSameEvents compares stored events with want, field by field.
func checkSameEvents(t *testing.T, got []store.StoredEvent, want []codec.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d events stored, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i].Event
		if g.Kind != w.Kind || g.CWD != w.CWD || g.Model != w.Model || g.Content != w.Content || g.Text != w.Text ||
			g.ToolUseID != w.ToolUseID || g.ToolName != w.ToolName || string(g.Input) != string(codec.CompactEvent(w).Input) ||
			g.IsError != w.IsError || g.Success != w.Success || g.DurationMS != w.DurationMS {
			t.Errorf("event %d = %+v, want %+v", i, g, w)
		}
	}
}

// checkLinked checks that childID is parentID's sub-agent started by call,
// a call the parent's events hold as a Task card.
func checkLinked(t *testing.T, st *store.Store, parentID, childID int64, call string) {
	t.Helper()
	ctx := context.Background()
	links, err := st.Subagents().Of(ctx, parentID)
	if err != nil || len(links) != 1 {
		t.Fatalf("links of S%d: %+v, %v (child S%d)", parentID, links, err, childID)
	}
	if l := links[0]; childID == 0 || l.SessionID != childID || l.ToolUseID != call {
		t.Errorf("link %+v, want S%d by %s", l, childID, call)
	}
	evs, err := st.Events().All(ctx, parentID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Event.Kind == codec.KindToolCall && e.Event.ToolUseID == call {
			if e.Event.ToolName != "Task" {
				t.Errorf("the call is %q, want Task (the card that opens the sub-agent)", e.Event.ToolName)
			}
			return
		}
	}
	t.Errorf("the parent holds no call %s", call)
}
