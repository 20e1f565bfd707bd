package app

import (
	"context"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
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
	if pw.mv.ParentLink() != "" {
		t.Fatalf("the parent shows a parent link %q", pw.mv.ParentLink())
	}
	pw.shown.OpenSubagent(parent, "toolu_agent")
	pw.wg.Wait()
	if pw.shown.current.ID == parentID || pw.mv.Transcript().Session().Name != "take stock › List." {
		t.Fatalf("shown %v (%q), want the sub-agent's session", pw.shown.current, pw.mv.Transcript().Session().Name)
	}
	if got := pw.mv.ParentLink(); got != "↖ take stock" {
		t.Fatalf("parent link %q", got)
	}
	pw.shown.OpenParent(pw.shown.current)
	pw.wg.Wait()
	if pw.shown.current != parent || pw.mv.ParentLink() != "" {
		t.Fatalf("shown %v with link %q, want the parent", pw.shown.current, pw.mv.ParentLink())
	}
}
