package app

import (
	"context"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/views"
)

// TestRememberedSessionGone: the session remembered from the last run was
// deleted since; showing it opens no error dialog, it shows the newest
// session of its store instead; with none left, it shows none and forgets
// it.
func TestRememberedSessionGone(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	older, _, err := st.Sessions().CreateWithEvents(bg, "main", "older", []codec.Event{codec.UserMessage("a")})
	if err != nil {
		t.Fatal(err)
	}
	newer, _, err := st.Sessions().CreateWithEvents(bg, "main", "newer", []codec.Event{codec.UserMessage("b")})
	if err != nil {
		t.Fatal(err)
	}
	gone, _, err := st.Sessions().CreateWithEvents(bg, "main", "viewed, then deleted", []codec.Event{codec.UserMessage("c")})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Sessions().Delete(bg, gone.ID); err != nil {
		t.Fatal(err)
	}
	st.Close()
	pw := testWindow(t, fa, wt)
	defer pw.close()
	pw.ui.rememberSession(views.SessionRef{StorePath: wt.StorePath, ID: gone.ID})
	ref, _ := pw.ui.lastSession()
	pw.shown.SelectSession(ref)
	pw.wg.Wait()
	if o := pw.win.Canvas().Overlays().Top(); o != nil {
		t.Errorf("a dialog opened: %v", o)
	}
	if want := (views.SessionRef{StorePath: wt.StorePath, ID: newer.ID}); pw.shown.current != want {
		t.Errorf("shows %v, want the newest session %v", pw.shown.current, want)
	}

	// Nothing left to show.
	st2, _ := pw.store(wt.StorePath)
	for _, id := range []int64{older.ID, newer.ID} {
		if err := st2.Sessions().Delete(bg, id); err != nil {
			t.Fatal(err)
		}
	}
	pw.shown.SelectSession(views.SessionRef{StorePath: wt.StorePath, ID: newer.ID})
	pw.wg.Wait()
	if o := pw.win.Canvas().Overlays().Top(); o != nil {
		t.Errorf("a dialog opened: %v", o)
	}
	if _, ok := pw.ui.lastSession(); ok || pw.shown.current.ID != 0 {
		t.Errorf("current %v, remembered %v; want none", pw.shown.current, ok)
	}
}
