package views

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// Home, End, Page Up and Page Down scroll the transcript: typed on the
// focused list, on the canvas with nothing focused, and Ctrl+Home and
// Ctrl+End as shortcuts.
func TestTranscriptScrollKeys(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(500, 300))
	var events []codec.Event
	for i := range 60 {
		events = append(events, codec.UserMessage(fmt.Sprintf("prompt %d", i)), codec.AssistantText(fmt.Sprintf("reply %d", i)))
	}
	tr.SetSession(store.Session{ID: 1}, stored(events...), nil)
	q.drain()
	m := NewMainView(&fakeActions{})
	m.transcript = tr
	m.BindShortcuts(w.Canvas())
	off := func() float32 { return tr.rows.list.GetScrollOffset() }
	if !tr.rows.atBottom() || off() == 0 {
		t.Fatalf("a new session is not shown at its end: offset %v", off())
	}
	end := off()
	view := tr.rows.list.Size().Height

	tr.rows.list.TypedKey(&fyne.KeyEvent{Name: fyne.KeyPageUp})
	q.drain()
	if got := off(); got >= end || got < end-view {
		t.Errorf("Page Up: offset %v, want within a view above %v", got, end)
	}
	tr.rows.list.TypedKey(&fyne.KeyEvent{Name: fyne.KeyHome})
	q.drain()
	if off() != 0 {
		t.Errorf("Home: offset %v, want 0", off())
	}
	tr.rows.list.TypedKey(&fyne.KeyEvent{Name: fyne.KeyPageDown})
	q.drain()
	if got := off(); got <= 0 || got > view {
		t.Errorf("Page Down: offset %v, want within (0, %v]", got, view)
	}
	tr.rows.list.TypedKey(&fyne.KeyEvent{Name: fyne.KeyEnd})
	q.drain()
	if !tr.rows.atBottom() {
		t.Errorf("End: offset %v, not at the end", off())
	}

	w.Canvas().Unfocus()
	w.Canvas().OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyHome})
	q.drain()
	if off() != 0 {
		t.Errorf("Home with nothing focused: offset %v, want 0", off())
	}
	if !tr.HandleShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyEnd, Modifier: fyne.KeyModifierShortcutDefault}) {
		t.Error("Ctrl+End is not a transcript shortcut")
	}
	q.drain()
	if !tr.rows.atBottom() {
		t.Errorf("Ctrl+End: offset %v, not at the end", off())
	}
	if !tr.HandleShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyHome, Modifier: fyne.KeyModifierShortcutDefault}) || off() != 0 {
		t.Errorf("Ctrl+Home: offset %v, want 0", off())
	}
}

// TestBindShortcutsReachOwners: the shortcuts MainView.BindShortcuts puts
// on the window's canvas reach the transcript's owners: Ctrl+F opens the
// find bar with the keyboard in it, Alt+Down and Alt+Up go from prompt to
// prompt, Ctrl+Home and Ctrl+End scroll.
func TestBindShortcutsReachOwners(t *testing.T) {
	m, tr, q, w := newShownMainView(t, fyne.NewSize(900, 400))
	c := &shortcutCanvas{Canvas: w.Canvas(), handlers: map[string]func(fyne.Shortcut){}}
	m.BindShortcuts(c)
	tr.SetSession(store.Session{ID: 1}, promptSession(), nil)
	q.drain()
	off := func() float32 { return tr.rows.list.GetScrollOffset() }
	ctrl := func(k fyne.KeyName) fyne.Shortcut {
		return &desktop.CustomShortcut{KeyName: k, Modifier: fyne.KeyModifierShortcutDefault}
	}
	steps := []struct {
		name string
		key  fyne.Shortcut
		ok   func() bool // the state the key must leave
		want string      // that state, said
	}{
		{"Ctrl+Home", ctrl(fyne.KeyHome), func() bool { return off() == 0 }, "offset 0"},
		{"Alt+Down", PromptShortcuts.Next, func() bool { return tr.nav.row == 5 && off() == tr.rows.rowOffset(5) }, "prompt row 5 at the top"},
		{"Alt+Down again", PromptShortcuts.Next, func() bool { return tr.nav.row == 10 }, "prompt row 10"},
		{"Alt+Up", PromptShortcuts.Previous, func() bool { return tr.nav.row == 5 }, "prompt row 5"},
		{"Ctrl+End", ctrl(fyne.KeyEnd), func() bool { return off() > 0 && tr.rows.atBottom() }, "at the bottom"},
		{"Ctrl+F", ctrl(fyne.KeyF), func() bool {
			return tr.find.bar.Visible() && w.Canvas().Focused() == fyne.Focusable(tr.find.entry)
		}, "the find bar shown, its entry focused"},
	}
	for _, st := range steps {
		h := c.handlers[st.key.ShortcutName()]
		if h == nil {
			t.Fatalf("BindShortcuts(%q) bound nothing", st.name)
		}
		h(st.key)
		q.drain()
		if !st.ok() {
			t.Errorf("%s: offset %v, prompt row %d, find bar shown %v, focus %T; want %s",
				st.name, off(), tr.nav.row, tr.find.bar.Visible(), w.Canvas().Focused(), st.want)
		}
	}
}
