package app

import (
	"context"
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/views"
)

// TestForkSession: "Fork from here" creates the fork, shows it with the
// prompt's text in its prompt box and the header's link back to the
// parent, and the sidebar's groups carry the link.
func TestForkSession(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	s, _, err := st.Sessions().CreateWithEvents(bg, "main", "plan", []codec.Event{codec.UserMessage("one"),
		codec.AssistantText("a"), codec.UserMessage("two"), codec.AssistantText("b")})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	renderAll(pw)
	parent := views.SessionRef{StorePath: wt.StorePath, ID: s.ID}
	pw.shown.ForkSession(parent, 3, "two")
	pw.wg.Wait()
	fork := views.SessionRef{StorePath: wt.StorePath, ID: s.ID + 1}
	if pw.shown.current != fork || pw.mv.Transcript().Session().Name != "plan ⑂ 1" || pw.mv.Transcript().Session().EventCount != 2 {
		t.Fatalf("shown %v %+v, want the fork %v", pw.shown.current, pw.mv.Transcript().Session(), fork)
	}
	if got := pw.mv.PromptBox().Text(); got != "two" {
		t.Errorf("prompt box %q, want the prompt's text", got)
	}
	if o := pw.mv.ForkOrigin(); o.Parent != parent || o.ParentName != "plan" || o.ParentSeq != 3 {
		t.Errorf("header origin %+v", o)
	}
	groups, errs := pw.list.listGroups()
	pw.list.markLifecycle(groups)
	if len(errs) != 0 || len(groups) != 1 || groups[0].Forks[fork.ID] != parent.ID {
		t.Errorf("groups %+v, %v", groups, errs)
	}
	pw.shown.loadSession(parent, pw.shown.loadGen)
	if o := pw.mv.ForkOrigin(); o != (views.ForkOrigin{}) {
		t.Errorf("the parent shows an origin %+v", o)
	}
}

// TestPinArchiveInWindow: the Session menu's items pin and archive the
// session shown; an archived session leaves the sidebar's groups until
// "Show archived sessions" is checked, and then is marked archived.
func TestPinArchiveInWindow(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	a, _ := st.Sessions().Create(bg, "main", "a")
	b, _ := st.Sessions().Create(bg, "main", "b")
	st.Close()
	pw := testWindow(t, fa, wt)
	defer pw.close()
	renderAll(pw)
	items := map[string]*fyne.MenuItem{}
	for _, it := range pw.list.lifecycleMenuItems() {
		items[it.Label] = it
	}
	groups := func() map[int64]string {
		t.Helper()
		gs, errs := pw.list.listGroups()
		pw.list.markLifecycle(gs)
		if len(errs) != 0 || len(gs) != 1 {
			t.Fatalf("groups %+v, %v", gs, errs)
		}
		out := map[int64]string{}
		for _, s := range gs[0].Sessions {
			out[s.ID] = fmt.Sprintf("pinned=%v archived=%v", gs[0].Pinned[s.ID], gs[0].Archived[s.ID])
		}
		return out
	}
	pw.shown.loadSession(views.SessionRef{StorePath: wt.StorePath, ID: a.ID}, pw.shown.loadGen)
	items["Pin or unpin session"].Action()
	pw.wg.Wait()
	pw.shown.loadSession(views.SessionRef{StorePath: wt.StorePath, ID: b.ID}, pw.shown.loadGen)
	items["Archive or unarchive session"].Action()
	pw.wg.Wait()
	if got := groups(); len(got) != 1 || got[a.ID] != "pinned=true archived=false" {
		t.Errorf("groups %v, want a pinned and b hidden", got)
	}
	items["Show archived sessions"].Action()
	pw.wg.Wait()
	if got := groups(); len(got) != 2 || got[b.ID] != "pinned=false archived=true" || !items["Show archived sessions"].Checked {
		t.Errorf("groups with archived shown %v", got)
	}
	items["Archive or unarchive session"].Action()
	pw.wg.Wait()
	if got := groups(); got[b.ID] != "pinned=false archived=false" {
		t.Errorf("after unarchive %v", got)
	}
}

// renderAll lays the window out and draws it once, so every widget has its
// renderer before background work (which the test driver runs on its own
// goroutine, not the Fyne one) shows something in it.
func renderAll(pw *projectWindow) {
	pw.win.Resize(fyne.NewSize(1000, 700))
	pw.win.Canvas().Capture()
}

// TestArchiveShownSession: archiving the session shown keeps it open with
// the header's "Archived" mark and says so in the status with Undo; Undo
// (and the header's Unarchive) clear the mark, and showing the session
// again shows its mark.
func TestArchiveShownSession(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	s, _, err := st.Sessions().CreateWithEvents(bg, "main", "", []codec.Event{codec.UserMessage("hi")})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	renderAll(pw)
	ref := views.SessionRef{StorePath: wt.StorePath, ID: s.ID}
	pw.shown.loadSession(ref, pw.shown.loadGen)
	archive := func() {
		for _, it := range pw.list.lifecycleMenuItems() {
			if it.Label == "Archive or unarchive session" {
				it.Action()
			}
		}
		pw.wg.Wait()
	}
	undo := func() *widget.Button {
		for _, b := range widgetsOf[*widget.Button](pw.mv.PromptBox().Content()) {
			if b.Text == "Undo" && b.Visible() {
				return b
			}
		}
		return nil
	}
	archived := func() bool {
		t.Helper()
		st, err := pw.store(wt.StorePath)
		if err != nil {
			t.Fatal(err)
		}
		flags, err := st.Flags().All(bg)
		if err != nil {
			t.Fatal(err)
		}
		return flags[s.ID].Archived()
	}
	archive()
	name := fmt.Sprintf("S%d", s.ID)
	if !archived() || !pw.mv.Archive().Shown() || pw.shown.ref() != ref {
		t.Fatalf("archived %v, mark %v, shown %v: want the session archived, marked and still shown", archived(), pw.mv.Archive().Shown(), pw.shown.ref())
	}
	if got := pw.mv.PromptBox().Status(); got != "Archived "+name || undo() == nil {
		t.Fatalf("status %q (undo %v), want %q with Undo", got, undo() != nil, "Archived "+name)
	}
	test.Tap(undo())
	pw.wg.Wait()
	if archived() || pw.mv.Archive().Shown() || undo() != nil {
		t.Errorf("after Undo: archived %v, mark %v, undo shown %v", archived(), pw.mv.Archive().Shown(), undo() != nil)
	}
	archive()
	pw.mv.ClearSession()
	pw.shown.loadSession(ref, pw.shown.loadGen) // shown again, e.g. after a restart
	if !pw.mv.Archive().Shown() {
		t.Error("an archived session shown again has no mark")
	}
	pw.mv.Archive().Unarchive()
	pw.wg.Wait()
	if archived() || pw.mv.Archive().Shown() {
		t.Errorf("after Unarchive: archived %v, mark %v", archived(), pw.mv.Archive().Shown())
	}
}
