package views

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

// pressKey delivers a key as the desktop driver does: to the focused
// widget, else to the canvas's key handler.
func pressKey(c fyne.Canvas, name fyne.KeyName) {
	ev := &fyne.KeyEvent{Name: name}
	if f := c.Focused(); f != nil {
		f.TypedKey(ev)
	} else if h := c.OnTypedKey(); h != nil {
		h(ev)
	}
}

// pressShortcut delivers a shortcut as the desktop driver does (after the
// main menu): to the focused widget when it takes shortcuts, else to the
// canvas.
func pressShortcut(c fyne.Canvas, s fyne.Shortcut) {
	if f, ok := c.Focused().(fyne.Shortcutable); ok {
		f.TypedShortcut(s)
		return
	}
	c.(fyne.Shortcutable).TypedShortcut(s)
}

// sessionRows lists the rows the keys stop at, as "store#id".
func sessionRows(s *Sidebar) []string {
	var out []string
	for _, r := range s.rows {
		if !r.header {
			out = append(out, fmt.Sprintf("%s#%d", r.ref.StorePath, r.ref.ID))
		}
	}
	return out
}

// TestSidebarListKeys moves through the session list with the keyboard:
// taking the focus highlights the open session, Up and Down pass over the
// group headers, Enter opens the highlighted session.
func TestSidebarListKeys(t *testing.T) {
	s, a, w := newTestSidebar(t)
	c := w.Canvas()
	rows := sessionRows(s)
	second := s.rows[1+1].ref // the group's second session
	s.Select(second)

	c.Focus(s.list)
	if c.Focused() != s.list || s.list.highlighted != 2 {
		t.Fatalf("focus on the list: focused %T, highlight %d; want the list, row 2 (the open session)", c.Focused(), s.list.highlighted)
	}
	if n := len(focusMarks(s)); n != 1 {
		t.Errorf("focus on the list: %d rows marked, want 1", n)
	}
	for range len(rows) + 2 { // past the last row: stays there
		pressKey(c, fyne.KeyDown)
	}
	last := len(s.rows) - 1
	if s.list.highlighted != last {
		t.Errorf("Down to the end: highlight %d, want %d", s.list.highlighted, last)
	}
	pressKey(c, fyne.KeyUp) // over the second group's header
	if got := s.list.highlighted; s.rows[got].header || got >= last {
		t.Errorf("Up from the last row: highlight %d (header %v), want the session above the header", got, s.rows[got].header)
	}
	pressKey(c, fyne.KeyReturn)
	c.Unfocus()
	if n := len(focusMarks(s)); n != 0 {
		t.Errorf("focus gone: %d rows marked, want none", n)
	}
	c.Focus(s.list)
	want := fmt.Sprintf("select %s#%d", s.rows[s.list.highlighted].ref.StorePath, s.rows[s.list.highlighted].ref.ID)
	if len(a.calls) != 1 || a.calls[0] != want {
		t.Errorf("Enter: intents %q, want [%q]", a.calls, want)
	}
	for range len(rows) + 2 {
		pressKey(c, fyne.KeyUp)
	}
	if s.list.highlighted != 1 {
		t.Errorf("Up to the top: highlight %d, want 1 (the first session, not its header)", s.list.highlighted)
	}
}

// focusMarks are the outlines shown on the sidebar's rows.
func focusMarks(s *Sidebar) []*canvas.Rectangle {
	var out []*canvas.Rectangle
	for _, r := range collectObjects[*canvas.Rectangle](s.list, true) {
		if r.StrokeWidth == 2 {
			out = append(out, r)
		}
	}
	return out
}

// TestSidebarFilterKeys: in the filter box, Down moves the keyboard to
// the first matching session and Enter opens the first match.
func TestSidebarFilterKeys(t *testing.T) {
	s, a, w := newTestSidebar(t)
	c := w.Canvas()
	c.Focus(s.filters.entry)
	test.Type(s.filters.entry, "login")
	rows := sessionRows(s)
	if len(rows) != 2 {
		t.Fatalf("filter login shows %q, want 2 sessions", rows)
	}
	pressKey(c, fyne.KeyReturn)
	if want := "select " + rows[0]; len(a.calls) != 1 || a.calls[0] != want {
		t.Errorf("Enter in the filter: intents %q, want [%q]", a.calls, want)
	}
	c.Focus(s.filters.entry)
	pressKey(c, fyne.KeyDown)
	if c.Focused() != s.list || s.rows[s.list.highlighted].header || s.list.highlighted != s.list.next(-1, 1) {
		t.Errorf("Down in the filter: focused %T, highlight %d; want the list on its first session", c.Focused(), s.list.highlighted)
	}
	c.Focus(s.filters.entry)
	pressKey(c, fyne.KeyEscape)
	if s.filters.entry.Text != "" || len(sessionRows(s)) != 5 {
		t.Errorf("Esc in the filter: text %q, %d sessions shown; want it cleared, 5", s.filters.entry.Text, len(sessionRows(s)))
	}
}

// TestSidebarNoMatch: a filter that matches nothing says so, with Clear.
func TestSidebarNoMatch(t *testing.T) {
	s, _, _ := newTestSidebar(t)
	if s.filters.none.Visible() {
		t.Fatal("the no-match note shows without a filter")
	}
	test.Type(s.filters.entry, "zzz")
	if !s.filters.none.Visible() || s.filters.noneL.Text != "No session matches “zzz”" {
		t.Fatalf("no match: note shown %v, %q", s.filters.none.Visible(), s.filters.noneL.Text)
	}
	s.SetFilter(SidebarFilter{Failed: true})
	if got := s.filters.noneL.Text; !strings.Contains(got, "with the filters set") {
		t.Errorf("no match with filters: %q", got)
	}
	var clearBtn *widget.Button
	for _, b := range objectsOf[*widget.Button](s.filters.none) {
		if b.Text == "Clear" {
			clearBtn = b
		}
	}
	if clearBtn == nil {
		t.Fatal("no Clear button in the note")
	}
	test.Tap(clearBtn)
	if s.filters.none.Visible() || s.filters.entry.Text != "" || s.Filter().active() != 0 || len(sessionRows(s)) != 5 {
		t.Errorf("Clear: note %v, text %q, %d filters, %d sessions", s.filters.none.Visible(), s.filters.entry.Text, s.Filter().active(), len(sessionRows(s)))
	}
}

// TestPromptOutlineKeys: the outline opens with the keyboard on its list;
// Down and Enter go to the next prompt, Esc closes it.
func TestPromptOutlineKeys(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(600, 400))
	tr.SetSession(store.Session{ID: 1}, promptSession(), nil)
	q.drain()
	c := w.Canvas()
	tr.nav.ScrollKey(fyne.KeyHome) // the outline starts at the prompt shown: the first
	tr.nav.ShowOutline(w)
	if _, ok := c.Focused().(*navList); !ok {
		t.Fatalf("the outline opened with %T focused, want its list", c.Focused())
	}
	pressKey(c, fyne.KeyDown)
	pressKey(c, fyne.KeyDown)
	pressKey(c, fyne.KeyReturn)
	q.drain()
	if tr.nav.row != 10 || c.Overlays().Top() != nil {
		t.Errorf("Down, Down, Enter went to row %d (want 10, prompt 3), outline open: %v", tr.nav.row, c.Overlays().Top() != nil)
	}
	tr.nav.ShowOutline(w)
	pressKey(c, fyne.KeyEscape)
	if c.Overlays().Top() != nil {
		t.Error("Esc left the outline open")
	}
}

// TestDialogKeys: the window's dialogs open with the keyboard on a
// button: Enter presses it, Esc closes the dialog.
func TestDialogKeys(t *testing.T) {
	test.NewTempApp(t)
	var got []string
	record := func(s string) func() { return func() { got = append(got, s) } }
	shows := map[string]func(w fyne.Window){
		"message": func(w fyne.Window) { ShowMessage(w, "Imported", "2 sessions") },
		"error":   func(w fyne.Window) { ShowError(w, fmt.Errorf("open x: %w", errors.New("bad"))) },
		"store preview": func(w fyne.Window) {
			ShowStorePreview(w, StorePreview{Path: "/x/a.azs", Target: "main", CanMerge: true}, record("open"), record("merge"))
		},
		"store preview read-only": func(w fyne.Window) {
			ShowStorePreview(w, StorePreview{Path: "/x/a.azs"}, record("open"), record("merge"))
		},
		"saved": func(w fyne.Window) {
			ShowSaved(w, "Exported", "Saved", "/x/a.md", func(string) error { got = append(got, "opened"); return nil }, nil)
		},
		"shortcuts": ShowShortcuts,
	}
	tests := []struct {
		show  string
		key   fyne.KeyName
		calls string // what the key did
	}{
		{"message", fyne.KeyReturn, ""},
		{"message", fyne.KeyEscape, ""},
		{"error", fyne.KeyEnter, ""},
		{"store preview", fyne.KeyReturn, "merge"},
		{"store preview", fyne.KeyEscape, ""},
		{"store preview read-only", fyne.KeyReturn, "open"},
		{"saved", fyne.KeyReturn, "opened"},
		{"saved", fyne.KeyEscape, ""},
		{"shortcuts", fyne.KeyReturn, ""},
		{"shortcuts", fyne.KeyEscape, ""},
	}
	for _, tt := range tests {
		t.Run(tt.show+"/"+string(tt.key), func(t *testing.T) {
			got = nil
			w := test.NewTempWindow(t, widget.NewLabel("behind"))
			w.Resize(fyne.NewSize(800, 600))
			shows[tt.show](w)
			c := w.Canvas()
			if c.Overlays().Top() == nil || c.Focused() == nil {
				t.Fatalf("%s: open %v, focused %T; want a dialog with a focused button", tt.show, c.Overlays().Top() != nil, c.Focused())
			}
			pressKey(c, tt.key)
			if c.Overlays().Top() != nil || strings.Join(got, ",") != tt.calls {
				t.Errorf("%s: %s left it open: %v, did %q; want closed, %q", tt.show, tt.key, c.Overlays().Top() != nil, got, tt.calls)
			}
		})
	}
}

// TestSecondaryWindowKeys: Esc closes a secondary window from nothing
// focused and from its entries and lists; Ctrl+W is bound on its canvas;
// Ctrl+Enter in the SQL console runs the query.
func TestSecondaryWindowKeys(t *testing.T) {
	test.NewTempApp(t)
	sql := &fakeSQL{}
	console := NewSQLConsole(sql, nil, nil)
	team := NewTeamBrowser(&teamRecorder{}, "")
	team.SetSessions([]TeamSession{{ID: 3, Repository: "app", Worktree: "main", Name: "fix"}})
	tests := []struct {
		name    string
		content fyne.CanvasObject
		focus   fyne.Focusable // nil: nothing
	}{
		{"nothing focused", widget.NewLabel("Insights"), nil},
		{"SQL query box", console.Content(), console.query},
		{"team search box", team.Root, team.search},
		{"team URL box", team.Root, team.url},
		{"team transcript", team.Root, team.transcript.rows.list},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := test.NewWindow(tt.content)
			closed := 0
			w.SetOnClosed(func() { closed++ })
			BindCloseKeys(w)
			if tt.focus != nil {
				w.Canvas().Focus(tt.focus)
			}
			pressKey(w.Canvas(), fyne.KeyEscape)
			if closed != 1 {
				t.Errorf("Esc with %s: closed %d times, want 1", tt.name, closed)
				w.Close()
			}
		})
	}

	sc := &shortcutCanvas{Canvas: test.NewTempWindow(t, widget.NewLabel("")).Canvas(), handlers: map[string]func(fyne.Shortcut){}}
	closed := 0
	bindCloseKeys(sc, func() { closed++ })
	if h := sc.handlers[Shortcut(KeyCloseWindow).ShortcutName()]; h == nil {
		t.Error("Ctrl+W is not bound")
	} else if h(Shortcut(KeyCloseWindow)); closed != 1 {
		t.Errorf("Ctrl+W closed %d times, want 1", closed)
	}

	w := test.NewTempWindow(t, console.Content())
	w.Canvas().Focus(console.query)
	test.Type(console.query, "SELECT 1")
	pressShortcut(w.Canvas(), Shortcut(KeyRunQuery))
	if len(sql.queries) != 1 || sql.queries[0] != "SELECT 1" {
		t.Errorf("Ctrl+Enter in the query box ran %q, want [SELECT 1]", sql.queries)
	}
}

// TestShortcutsList: the table gives each key one action (Ctrl+Enter
// excepted: the prompt box and the SQL console each have their own), the
// transcript's, the prompt navigation's and the prompt box's keys are its
// rows, and the Keyboard shortcuts dialog lists every row.
func TestShortcutsList(t *testing.T) {
	test.NewTempApp(t)
	seen := map[string]KeyBinding{}
	for _, b := range KeyBindings() {
		if b.KeyText() == "" || b.Action == "" || b.Group == "" {
			t.Errorf("row %+v lacks keys, action or group", b)
		}
		if b.Shortcut == nil {
			continue
		}
		if prev, ok := seen[b.Shortcut.ShortcutName()]; ok && !(isShortcut(b.Shortcut, KeySend) && prev.Group != b.Group) {
			t.Errorf("%s does two things: %q and %q", b.KeyText(), prev.Action, b.Action)
		}
		seen[b.Shortcut.ShortcutName()] = b
	}
	tr := NewTranscript(&fakeActions{})
	for _, s := range append(tr.Shortcuts(), PromptShortcuts.Next, PromptShortcuts.Previous, PromptOutlineShortcut) {
		if _, ok := seen[s.ShortcutName()]; !ok {
			t.Errorf("the transcript's %s is not in the table", s.ShortcutName())
		}
	}
	if !isSendShortcut(Shortcut(KeySend).(*desktop.CustomShortcut)) {
		t.Error("the table's Send the prompt is not the prompt box's key")
	}

	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(800, 600))
	ShowShortcuts(w)
	text := overlayText(w.Canvas())
	for _, b := range KeyBindings() {
		if !strings.Contains(text, b.Action+"\n"+b.KeyText()) {
			t.Errorf("the dialog does not list %q with %q", b.Action, b.KeyText())
		}
	}
	if got := shortcutText(Shortcut(KeyInsights)); got != "Ctrl+Shift+I" && got != "Cmd+Shift+I" {
		t.Errorf("shortcutText(Insights) = %q, want Ctrl+Shift+I", got)
	}
}

// TestCardActionKeys: a card's action, reached by Tab, runs on Enter and
// Space, shows the focus, and hands the transcript's keys to the window.
func TestCardActionKeys(t *testing.T) {
	test.NewTempApp(t)
	taps := 0
	a := newTapText("open sub-agent ›", func() { taps++ })
	icon := newTapIcon(theme.ContentCopyIcon(), func() { taps++ })
	w := test.NewTempWindow(t, container.NewVBox(a, icon))
	c := w.Canvas()
	var keys []fyne.KeyName
	var runes []rune
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) { keys = append(keys, ev.Name) })
	c.SetOnTypedRune(func(r rune) { runes = append(runes, r) })
	c.FocusNext()
	if c.Focused() != a || !a.text.TextStyle.Underline {
		t.Fatalf("Tab: focused %T, underlined %v; want the action, underlined", c.Focused(), a.text.TextStyle.Underline)
	}
	pressKey(c, fyne.KeyReturn)
	pressKey(c, fyne.KeySpace)
	pressKey(c, fyne.KeyHome)
	c.Focused().TypedRune('j')
	if taps != 2 || !slices.Equal(keys, []fyne.KeyName{fyne.KeyHome}) || string(runes) != "j" {
		t.Errorf("Enter, Space, Home, j: %d taps, window keys %v, runes %q; want 2, [Home], \"j\"", taps, keys, string(runes))
	}
	c.FocusNext()
	if _, tinted := icon.icon.Resource.(*theme.PrimaryThemedResource); c.Focused() != icon || !tinted || a.text.TextStyle.Underline {
		t.Errorf("Tab to the icon: focused %T, tinted %v, first still underlined %v", c.Focused(), tinted, a.text.TextStyle.Underline)
	}
	c.FocusNext()
	if _, tinted := icon.icon.Resource.(*theme.PrimaryThemedResource); tinted {
		t.Error("the icon stays tinted after the focus left it")
	}
}
