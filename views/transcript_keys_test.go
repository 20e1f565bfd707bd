package views

import (
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/lazuli-app/lazuli/store"
)

// Home, End, Page Up and Page Down scroll the transcript: typed on the
// focused list, on the canvas with nothing focused, and Ctrl+Home and
// Ctrl+End as shortcuts.
func TestTranscriptScrollKeys(t *testing.T) {
	tr, w, q := newTestTranscript(t, fyne.NewSize(500, 300))
	var events []store.Event
	for i := range 60 {
		events = append(events, store.UserMessage(fmt.Sprintf("prompt %d", i)), store.AssistantText(fmt.Sprintf("reply %d", i)))
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
