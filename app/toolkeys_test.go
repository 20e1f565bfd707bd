package app

import (
	"context"
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/views"
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
		serialUI(o.open) // as the Fyne goroutine: a view's background load hands over after it
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
			serialUI(func() { h(&fyne.KeyEvent{Name: fyne.KeyEscape}) })
		}
		if slices.Contains(drv.AllWindows(), w) {
			t.Errorf("%s: Esc left the window open", o.name)
			w.Close()
		}
	}
}

// menuShortcuts returns the shortcuts of menu's items (and their child
// menus), by name, with the item's label.
func menuShortcuts(m *fyne.MainMenu) map[string]string {
	out := map[string]string{}
	var walk func(items []*fyne.MenuItem)
	walk = func(items []*fyne.MenuItem) {
		for _, it := range items {
			if it.Shortcut != nil {
				out[it.Shortcut.ShortcutName()] = it.Label
			}
			if it.ChildMenu != nil {
				walk(it.ChildMenu.Items)
			}
		}
	}
	for _, menu := range m.Items {
		walk(menu.Items)
	}
	return out
}

// TestShortcutsTable: the menus' shortcuts and views' shortcuts table
// (which Help › Keyboard shortcuts lists) are the same keys: each menu
// shortcut is a row of the table, each row with a shortcut is on a menu
// (but the prompt box's and the SQL console's Ctrl+Enter, which their
// entries handle), and so is each key the transcript binds: the menu runs
// its shortcuts before the widget that has the keyboard, so they work
// after a click on a card's text too.
func TestShortcutsTable(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	st.Close()
	pw := testWindow(t, fa, wt)
	defer pw.close()
	ro := newWindowParts(&gui{ctx: context.Background(), fa: fa}, []Worktree{wt}, true)
	ro.win = test.NewTempWindow(t, ro.mv.Content())
	defer ro.close()
	ro.setupReadOnly("a test", func() {})

	onMenus := menuShortcuts(pw.mainMenu())
	for name, label := range menuShortcuts(ro.mainMenu()) {
		onMenus[name] = label
	}
	table := map[string]views.KeyBinding{}
	for _, b := range views.KeyBindings() {
		if b.Shortcut != nil {
			table[b.Shortcut.ShortcutName()] = b
		}
	}
	for name, label := range onMenus {
		if _, ok := table[name]; !ok {
			t.Errorf("menu item %q has shortcut %s, which the shortcuts table does not list", label, name)
		}
	}
	for name, b := range table {
		if _, ok := onMenus[name]; !ok && b.ID != views.KeySend && b.ID != views.KeyRunQuery {
			t.Errorf("shortcut %s (%s) is on no menu", b.KeyText(), b.Action)
		}
	}
	for _, s := range append(pw.mv.Transcript().Shortcuts(), views.PromptShortcuts.Next, views.PromptShortcuts.Previous, views.PromptOutlineShortcut) {
		if _, ok := onMenus[s.ShortcutName()]; !ok {
			t.Errorf("the transcript's shortcut %s is not on the menu: a focused card text would keep it", s.ShortcutName())
		}
	}
	for id := range pw.canvasKeys() {
		if views.Shortcut(id) == nil {
			t.Errorf("canvas key %d has no row in the table", id)
		}
	}
}
