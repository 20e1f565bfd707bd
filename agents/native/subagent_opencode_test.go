package native

import (
	"context"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// The captured OpenCode run's task call and the child session it started
// (agents/opencode/testdata/capture, RUNS.txt "multi").
const (
	openCodeTaskCall = "toolu_fkm_6_0"
	openCodeChild    = "ses_dde20db89ffemQeDV5wWagBRbE"
	openCodeMain     = "ses_dde2161e1ffes6w5OkD3f45rB5"
)

// TestImportOpenCodeSubagent: the child session OpenCode's task tool
// started is imported as a sub-agent of its parent, linked to the task
// call, with its own events; a second import is a no-op.
func TestImportOpenCodeSubagent(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	ctx := context.Background()
	dir := unpackOpenCode(t)
	scan := mustScan(t, Options{Dirs: Dirs{OpenCode: dir}})
	parent := mainByID(scan.Sessions, openCodeMain)
	if parent == nil || len(parent.Subagents) != 1 || parent.Subagents[0].ID != openCodeChild || parent.Subagents[0].ParentID != openCodeMain {
		t.Fatalf("scan: parent %+v", parent)
	}
	st := mustOpenStore(t)
	res := mustImport(t, st, scan.Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(res); got[Imported] != 3 {
		t.Fatalf("outcomes %v", got)
	}
	mustCheck(t, st)
	parentID, childID := resultSession(res, openCodeMain), resultSession(res, openCodeChild)
	checkOpenCodeLink(t, st, parentID, childID)
	child, err := st.Events().All(ctx, childID)
	if err != nil {
		t.Fatal(err)
	}
	want := []codec.Event{
		{Kind: codec.KindInit, Model: "claude-sonnet-4-5"},
		{Kind: codec.KindUserMessage, Content: "Count the lines of notes.txt and report the number."},
		{Kind: codec.KindToolCall, ToolUseID: "toolu_fkm_0_0", ToolName: "Bash"},
		{Kind: codec.KindToolResult, ToolUseID: "toolu_fkm_0_0", ToolName: "Bash", Content: "2"},
		{Kind: codec.KindAssistantText, Text: "notes.txt has 2 lines."},
		{Kind: codec.KindComplete, Success: true},
	}
	if len(child) != len(want) {
		t.Fatalf("child events %+v, want %d", child, len(want))
	}
	for i, w := range want {
		g := child[i].Event
		if g.Kind != w.Kind || g.Model != w.Model || g.Content != w.Content || g.ToolUseID != w.ToolUseID || g.ToolName != w.ToolName || g.Text != w.Text || g.Success != w.Success {
			t.Errorf("child event %d = %+v, want %+v", i, g, w)
		}
	}
	if !strings.HasSuffix(child[0].Event.CWD, "/work") || !strings.Contains(string(child[2].Event.Input), `wc -l < notes.txt`) {
		t.Errorf("child Init cwd %q, call input %s", child[0].Event.CWD, child[2].Event.Input)
	}
	again := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{OpenCode: dir}}).Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(again); got[Unchanged] != 3 {
		t.Errorf("re-import outcomes %v, want all unchanged", got)
	}
}

// TestOpenCodeSubagentLinkedOnReimport: a store that imported the child
// session as a main session (before Lazuli read OpenCode's parentID) gets
// the link on the next import, without a session more.
func TestOpenCodeSubagentLinkedOnReimport(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	ctx := context.Background()
	dir := unpackOpenCode(t)
	scan := mustScan(t, Options{Dirs: Dirs{OpenCode: dir}})
	var flat []Session // as the scan before the change found them
	for _, n := range scan.Sessions {
		for _, s := range n.Subagents {
			s.ParentID = ""
			flat = append(flat, s)
		}
		n.Subagents = nil
		flat = append(flat, n)
	}
	st := mustOpenStore(t)
	res := mustImport(t, st, flat, ImportOptions{FallbackWorktree: "main"})
	parentID, childID := resultSession(res, openCodeMain), resultSession(res, openCodeChild)
	if links, err := st.Subagents().Of(ctx, parentID); err != nil || len(links) != 0 {
		t.Fatalf("before: links %+v, %v", links, err)
	}
	before, err := st.Sessions().List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	again := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{OpenCode: dir}}).Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(again); got[Unchanged] != 3 {
		t.Errorf("re-import outcomes %v, want all unchanged", got)
	}
	checkOpenCodeLink(t, st, parentID, childID)
	after, err := st.Sessions().List(ctx, "")
	if err != nil || len(after) != len(before) {
		t.Errorf("sessions %d after, %d before (%v)", len(after), len(before), err)
	}
	mustCheck(t, st)
	third := mustImport(t, st, mustScan(t, Options{Dirs: Dirs{OpenCode: dir}}).Sessions, ImportOptions{FallbackWorktree: "main"})
	if got := outcomes(third); got[Unchanged] != 3 {
		t.Errorf("third import outcomes %v", got)
	}
}

// checkOpenCodeLink checks that childID is parentID's sub-agent, started
// by the task call the parent's events hold.
func checkOpenCodeLink(t *testing.T, st *store.Store, parentID, childID int64) {
	t.Helper()
	ctx := context.Background()
	links, err := st.Subagents().Of(ctx, parentID)
	if err != nil || len(links) != 1 {
		t.Fatalf("links of S%d: %+v, %v", parentID, links, err)
	}
	if l := links[0]; l.SessionID != childID || l.ToolUseID != openCodeTaskCall {
		t.Errorf("link %+v, want S%d by %s", l, childID, openCodeTaskCall)
	}
	evs, err := st.Events().All(ctx, parentID)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Event.Kind == codec.KindToolCall && e.Event.ToolUseID == openCodeTaskCall {
			if e.Event.ToolName != "Task" {
				t.Errorf("the task call is %q, want Task (the card that opens the sub-agent)", e.Event.ToolName)
			}
			return
		}
	}
	t.Errorf("the parent holds no call %s", openCodeTaskCall)
}

// mainByID is the main session of sessions with id.
func mainByID(sessions []Session, id string) *Session {
	for i := range sessions {
		if sessions[i].ID == id {
			return &sessions[i]
		}
	}
	return nil
}

// resultSession is the session the result of native id names.
func resultSession(res []Result, id string) int64 {
	for _, r := range res {
		if r.ID == id {
			return r.SessionID
		}
	}
	return 0
}
