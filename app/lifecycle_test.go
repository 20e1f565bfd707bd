package app

import (
	"context"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// TestForkSession: "Fork from here" creates the fork, shows it with the
// prompt's text in its prompt box and the header's link back to the
// parent, and the sidebar's groups carry the link.
func TestForkSession(t *testing.T) {
	fa := test.NewTempApp(t)
	dir := t.TempDir()
	wt := Worktree{Dir: dir, Branch: "main", StorePath: filepath.Join(dir, StoreRelPath)}
	bg := context.Background()
	st, err := store.Open(bg, wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := st.CreateSessionWithEvents(bg, "main", "plan", []store.Event{store.UserMessage("one"),
		store.AssistantText("a"), store.UserMessage("two"), store.AssistantText("b")})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	parent := views.SessionRef{StorePath: wt.StorePath, ID: s.ID}
	pw.ForkSession(parent, 3, "two")
	pw.wg.Wait()
	fork := views.SessionRef{StorePath: wt.StorePath, ID: s.ID + 1}
	if pw.current != fork || pw.mv.Transcript().Session().Name != "plan ⑂ 1" || pw.mv.Transcript().Session().EventCount != 2 {
		t.Fatalf("shown %v %+v, want the fork %v", pw.current, pw.mv.Transcript().Session(), fork)
	}
	if got := pw.mv.PromptBox().Text(); got != "two" {
		t.Errorf("prompt box %q, want the prompt's text", got)
	}
	if o := pw.mv.ForkOrigin(); o.Parent != parent || o.ParentName != "plan" || o.ParentSeq != 3 {
		t.Errorf("header origin %+v", o)
	}
	groups, errs := pw.listGroups()
	pw.markForks(groups)
	if len(errs) != 0 || len(groups) != 1 || groups[0].Forks[fork.ID] != parent.ID {
		t.Errorf("groups %+v, %v", groups, errs)
	}
	pw.SelectSession(parent)
	pw.wg.Wait()
	if o := pw.mv.ForkOrigin(); o != (views.ForkOrigin{}) {
		t.Errorf("the parent shows an origin %+v", o)
	}
}
