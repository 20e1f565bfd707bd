package app

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestLayoutRemembered: the sidebar divider (and the window size) a
// window is closed with are those the next window opens with; a
// remembered divider out of range is ignored.
func TestLayoutRemembered(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	st.Close()
	first := testWindow(t, fa, wt)
	defer first.close()
	renderAll(first)
	first.mv.Split().SetOffset(0.37)
	first.ui.saveLayout(first)

	next := testWindow(t, fa, wt)
	defer next.close()
	next.ui.restoreLayout(next)
	if got := next.mv.Split().Offset; got != 0.37 {
		t.Errorf("restored divider at %v, want 0.37", got)
	}
	if got := next.win.Canvas().Size(); got != first.win.Canvas().Size() {
		t.Errorf("restored size %v, want %v", got, first.win.Canvas().Size())
	}

	fa.Preferences().SetFloat(prefSplitOffset, 7)
	bad := testWindow(t, fa, wt)
	defer bad.close()
	bad.ui.restoreLayout(bad)
	if got := bad.mv.Split().Offset; got != 0 {
		t.Errorf("a divider remembered at 7 gives %v, want the default 0", got)
	}
}
