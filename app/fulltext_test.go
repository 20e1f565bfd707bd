package app

import (
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"
)

// TestKeepFullTextSetting: the project's setting (on by default) goes to
// every store the window opens, the menu item turns it off for the open
// stores and for later windows on the same project, whichever worktree
// they list first, and not for another project.
func TestKeepFullTextSetting(t *testing.T) {
	fa := test.NewTempApp(t)
	a, b := t.TempDir(), t.TempDir()
	wtA := Worktree{Dir: a, Branch: "main", StorePath: filepath.Join(a, StoreRelPath)}
	wtB := Worktree{Dir: b, Branch: "feature", StorePath: filepath.Join(b, StoreRelPath)}
	window := func(wts ...Worktree) *projectWindow {
		pw := testWindow(t, fa, wts...)
		t.Cleanup(pw.close)
		return pw
	}
	pw := window(wtA, wtB)
	st, err := pw.store(wtA.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	if !st.FullText().Keeps() {
		t.Error("full text is off by default")
	}
	item := pw.fullTextMenuItem()
	if !item.Checked {
		t.Error("the menu item is not checked by default")
	}
	item.Action()
	if item.Checked || st.FullText().Keeps() {
		t.Errorf("after turning it off: checked %v, store keeps %v", item.Checked, st.FullText().Keeps())
	}
	other := window(wtB, wtA)
	if st2, err := other.store(wtB.StorePath); err != nil || st2.FullText().Keeps() {
		t.Errorf("the same project from its other worktree keeps full text (%v)", err)
	}
	c := t.TempDir()
	third := window(Worktree{Dir: c, Branch: "main", StorePath: filepath.Join(c, StoreRelPath)})
	if st3, err := third.store(filepath.Join(c, StoreRelPath)); err != nil || !st3.FullText().Keeps() {
		t.Errorf("another project lost full text (%v)", err)
	}
}
