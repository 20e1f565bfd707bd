package views

// Keyboard use beyond what Fyne's widgets do: an entry that passes on the
// keys it does not use, a dialog button that answers Enter and Escape, and
// the keys that close a secondary window.

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// keyEntry is an entry whose owner sees each key and shortcut first:
// onKey and onShortcut report whether they used it. Tab always moves the
// focus on, even in a multi-line entry (so that no entry traps it).
type keyEntry struct {
	widget.Entry
	onKey      func(*fyne.KeyEvent) bool
	onShortcut func(fyne.Shortcut) bool
}

func newKeyEntry(multiLine bool) *keyEntry {
	e := &keyEntry{}
	e.MultiLine = multiLine
	e.ExtendBaseWidget(e)
	return e
}

// AcceptsTab lets Tab move the focus.
func (e *keyEntry) AcceptsTab() bool { return false }

// TypedKey gives the key to onKey, then to the entry.
func (e *keyEntry) TypedKey(ev *fyne.KeyEvent) {
	if e.onKey != nil && e.onKey(ev) {
		return
	}
	e.Entry.TypedKey(ev)
}

// TypedShortcut gives the shortcut to onShortcut, then to the entry.
func (e *keyEntry) TypedShortcut(s fyne.Shortcut) {
	if e.onShortcut != nil && e.onShortcut(s) {
		return
	}
	e.Entry.TypedShortcut(s)
}

// windowEntry is an entry of a secondary window: Esc and the window's
// Ctrl shortcuts (Ctrl+W, Ctrl+K) reach the window from it.
func windowEntry() *keyEntry {
	e := newKeyEntry(false)
	e.onKey = func(ev *fyne.KeyEvent) bool { return passToWindow(e, ev, nil) }
	e.onShortcut = func(s fyne.Shortcut) bool { return passToWindow(e, nil, s) }
	return e
}

// dialogButton is a dialog's button that is also pressed by Enter (as
// Space does) and whose Escape runs onEscape: focused when its dialog
// shows, it makes the dialog answer the keyboard.
type dialogButton struct {
	widget.Button
	onEscape func()
}

func newDialogButton(label string, tapped, onEscape func()) *dialogButton {
	b := &dialogButton{onEscape: onEscape}
	b.Text, b.OnTapped = label, tapped
	b.ExtendBaseWidget(b)
	return b
}

// Base returns the widget.Button b is: what a caller (or a test looking
// for a dialog's buttons) reads and taps.
func (b *dialogButton) Base() *widget.Button { return &b.Button }

// TypedKey presses the button on Enter and runs onEscape on Escape.
func (b *dialogButton) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter:
		b.Tapped(nil)
	case fyne.KeyEscape:
		if b.onEscape != nil {
			b.onEscape()
		}
	default:
		b.Button.TypedKey(ev)
	}
}

// BindCloseKeys makes Escape and Ctrl+W (Cmd+W on macOS) close w, a
// secondary window (Insights, SQL console, Chronicle, Team, Recent edits).
// Escape reaches the window when no widget has the keyboard, and from the
// entries of this package's windows, which pass it on (passToWindow).
func BindCloseKeys(w fyne.Window) { bindCloseKeys(w.Canvas(), w.Close) }

func bindCloseKeys(c fyne.Canvas, closeWin func()) {
	c.AddShortcut(Shortcut(KeyCloseWindow), func(fyne.Shortcut) { closeWin() })
	prev := c.OnTypedKey()
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape {
			closeWin()
			return
		}
		if prev != nil {
			prev(ev)
		}
	})
}

// passToWindow hands the keys an entry has no use for to its window:
// Escape to the canvas's key handler, a Ctrl (Cmd) shortcut of a letter to
// the canvas's shortcuts (Ctrl+W, Ctrl+K, …). It reports whether it did.
// A focused entry receives every key, so without it those never reach the
// window.
func passToWindow(o fyne.CanvasObject, ev *fyne.KeyEvent, s fyne.Shortcut) bool {
	c := fyne.CurrentApp().Driver().CanvasForObject(o)
	if c == nil {
		return false
	}
	if ev != nil {
		if ev.Name != fyne.KeyEscape || c.OnTypedKey() == nil {
			return false
		}
		c.OnTypedKey()(ev)
		return true
	}
	cs, ok := s.(*desktop.CustomShortcut)
	if !ok || cs.Modifier&(fyne.KeyModifierControl|fyne.KeyModifierSuper) == 0 ||
		len(cs.KeyName) != 1 { // Ctrl+Left, Ctrl+Backspace…: the entry's own
		return false
	}
	sc, ok := c.(fyne.Shortcutable)
	if !ok {
		return false
	}
	sc.TypedShortcut(s)
	return true
}
