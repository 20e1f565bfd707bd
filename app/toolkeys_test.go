package app

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
)

// TestToolWindowsCloseKeys: Esc closes the Insights, SQL console, Recent
// edits and Team windows as soon as they open.
func TestToolWindowsCloseKeys(t *testing.T) {
	pw, _, _ := insightWindow(t)
	t.Cleanup(pw.close)
	drv := pw.ui.fa.Driver()
	opens := []struct {
		name string
		open func()
	}{
		{"Insights", pw.tools.showInsights},
		{"SQL console", pw.tools.showSQLConsole},
		{"Recent edits", pw.tools.showRecentEdits},
		{"Team", func() { newTeamWindow(pw.ui, pw.ui.fa.NewWindow("Team"), "") }},
	}
	for _, o := range opens {
		before := drv.AllWindows()
		o.open()
		pw.wg.Wait()
		var w fyne.Window
		for _, x := range drv.AllWindows() {
			if !slices.Contains(before, x) {
				w = x
			}
		}
		if w == nil {
			t.Fatalf("%s: no window opened", o.name)
		}
		if h := w.Canvas().OnTypedKey(); h != nil {
			h(&fyne.KeyEvent{Name: fyne.KeyEscape})
		}
		if slices.Contains(drv.AllWindows(), w) {
			t.Errorf("%s: Esc left the window open", o.name)
			w.Close()
		}
	}
}
