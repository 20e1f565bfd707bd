package app

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/nativetree"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// TestOpenSubagentAndBack opens a sub-agent's session from its parent's
// Agent call, shows the link back, and follows it.
func TestOpenSubagentAndBack(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	parentID, _, err := st.Sessions().CreateWithSubagents(bg, "main", "take stock",
		[]codec.Event{codec.UserMessage("take stock"), codec.ToolCall("toolu_agent", "Agent", nil, []byte(`{"prompt":"List."}`))},
		[]store.SubagentBatch{{ToolUseID: "toolu_agent", Events: []codec.Event{codec.UserMessage("List.")},
			Name: func(parent string) string { return parent + " › List." }}})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	parent := views.SessionRef{StorePath: wt.StorePath, ID: parentID}
	pw.shown.loadSession(parent, pw.shown.loadGen)
	if pw.mv.Header().ParentLink() != "" {
		t.Fatalf("the parent shows a parent link %q", pw.mv.Header().ParentLink())
	}
	pw.shown.OpenSubagent(parent, "toolu_agent")
	pw.wg.Wait()
	if pw.shown.current.ID == parentID || pw.mv.Transcript().Session().Name != "take stock › List." {
		t.Fatalf("shown %v (%q), want the sub-agent's session", pw.shown.current, pw.mv.Transcript().Session().Name)
	}
	if got := pw.mv.Header().ParentLink(); got != "↖ take stock" {
		t.Fatalf("parent link %q", got)
	}
	pw.shown.OpenParent(pw.shown.current)
	pw.wg.Wait()
	if pw.shown.current != parent || pw.mv.Header().ParentLink() != "" {
		t.Fatalf("shown %v with link %q, want the parent", pw.shown.current, pw.mv.Header().ParentLink())
	}
}

// importedSubagentStore imports the shared fixtures' native history (a
// parent with a sub-agent in its subagents/ folder) into a new worktree's
// store, then removes the links, as imports before Lazuli linked native
// sub-agents left it. It returns the parent's session, the sub-agent's and
// the call that started it.
func importedSubagentStore(t *testing.T) (wt Worktree, parent, sub int64, call string) {
	t.Helper()
	bg := context.Background()
	wt, st := openTestWorktree(t)
	defer st.Close()
	tree := nativetree.ForTest(t)
	scan, err := native.Scan(bg, native.Options{Dirs: native.Dirs{native.Claude: tree.ClaudeDir}})
	if err != nil {
		t.Fatal(err)
	}
	const parentID = "29ccd257-68b1-427f-ae5f-6524b7cb6f20"
	var sessions []native.Session
	for _, n := range scan.Sessions {
		if n.ID == parentID {
			sessions = append(sessions, n)
		}
	}
	res, err := native.Import(bg, st, sessions, native.ImportOptions{ClaudeHome: os.DevNull})
	if err != nil || len(res) != 2 {
		t.Fatalf("Import = %+v, %v; want the parent and its sub-agent", res, err)
	}
	for _, r := range res {
		switch r.ID {
		case parentID:
			parent = r.SessionID
		case parentID + "/agent-a2271d1":
			sub = r.SessionID
		}
	}
	db, err := sql.Open("sqlite", "file:"+wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("DELETE FROM " + store.SubagentTable); err != nil {
		t.Fatal(err)
	}
	return wt, parent, sub, "toolu_01SXaWzD5YZ73zGwchbcxeWi"
}

// TestOpenImportedSubagentOfAnOldStore: in a store imported before Lazuli
// linked native sub-agents, "open sub-agent ›" on the parent's Task call
// opens the sub-agent's session, which shows "↖ parent" and goes back: the
// window links them when it opens the store. A read-only window leaves the
// store as it is.
func TestOpenImportedSubagentOfAnOldStore(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, parentID, subID, call := importedSubagentStore(t)

	before, err := os.ReadFile(wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	ro := newWindowParts(&gui{ctx: context.Background(), fa: fa}, []Worktree{wt}, true)
	ro.win = test.NewTempWindow(t, ro.mv.Content())
	ro.shown.loadSession(views.SessionRef{StorePath: wt.StorePath, ID: subID}, ro.shown.loadGen)
	ro.close()
	if after, _ := os.ReadFile(wt.StorePath); !bytes.Equal(before, after) {
		t.Fatal("a read-only window changed the store")
	}

	pw := testWindow(t, fa, wt)
	defer pw.close()
	parent := views.SessionRef{StorePath: wt.StorePath, ID: parentID}
	pw.shown.loadSession(parent, pw.shown.loadGen)
	pw.shown.OpenSubagent(parent, call)
	pw.wg.Wait()
	if pw.shown.current.ID != subID {
		t.Fatalf("OpenSubagent(S%d, %q) shows S%d, want the sub-agent's S%d", parentID, call, pw.shown.current.ID, subID)
	}
	// The parent's name is long ("Use the Explore task in sub-agents with
	// Haiku model…"): the link is cut as a sub-agent's name cuts it, so
	// that it does not widen the header past an 800 px window.
	if got := pw.mv.Header().ParentLink(); got != "↖ Use the Explore task in sub-a…" {
		t.Fatalf("the sub-agent's parent link is %q, want ↖ and its parent's name, shortened", got)
	}
	pw.shown.OpenParent(pw.shown.current)
	pw.wg.Wait()
	if pw.shown.current != parent {
		t.Fatalf("OpenParent shows %v, want the parent %v", pw.shown.current, parent)
	}
}
