package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"github.com/lazuli-app/lazuli/trace"
)

// TypedKey scrolls on a navigation key and passes the others to the list;
// Esc goes on to the window (which a secondary window closes on).
func (l *transcriptList) TypedKey(ev *fyne.KeyEvent) {
	switch {
	case l.onKey != nil && l.onKey(ev.Name):
	case ev.Name == fyne.KeyEscape:
		passToWindow(l, ev, nil)
	default:
		l.List.TypedKey(ev)
	}
}

// pageFraction is how much of the view Page Up and Page Down move: a bit
// less than all of it, so that a line stays in sight.
const pageFraction = 0.9

// ScrollKey scrolls the transcript for a navigation key — Home (and
// Ctrl+Home) to the top, End (and Ctrl+End) to the bottom, Page Up and
// Page Down by most of a view — and reports whether name is one of them.
func (n *Navigator) ScrollKey(name fyne.KeyName) bool {
	r := n.t.rows
	view := r.list.Size().Height
	off := r.list.GetScrollOffset()
	switch name {
	case fyne.KeyHome:
		trace.Mark("input", "home")
		r.scroll.target = -1
		r.premeasureAround(0) // the first frame there shows the rows at their heights
		r.list.ScrollToTop()
		r.traceSettled("home")
	case fyne.KeyEnd:
		trace.Mark("input", "end")
		r.scroll.target = -1
		r.premeasureTail()
		r.list.ScrollToBottom()
		r.traceSettled("end")
	case fyne.KeyPageUp:
		r.scroll.target = -1
		r.list.ScrollToOffset(max(0, off-view*pageFraction))
	case fyne.KeyPageDown:
		r.scroll.target = -1
		r.list.ScrollToOffset(max(0, min(off+view*pageFraction, r.contentHeight()-view)))
	default:
		return false
	}
	return true
}

// scrollShortcuts are Ctrl+Home and Ctrl+End (Cmd on macOS), which the
// window's canvas takes before any widget sees the key.
func scrollShortcuts() []fyne.Shortcut {
	return []fyne.Shortcut{Shortcut(KeyTop), Shortcut(KeyBottom)}
}

// A card's action (expand, copy, fork, open sub-agent: a tapText) is in
// the window's Tab chain: Enter or Space runs it, an underline (a tinted
// icon) marks the focus, and the transcript's keys (Home, End, j, k…) go
// on to the window, whose handlers scroll the transcript.

// FocusGained marks the action as having the keyboard.
func (t *tapText) FocusGained() { t.setFocused(true) }

// FocusLost removes the mark.
func (t *tapText) FocusLost() { t.setFocused(false) }

func (t *tapText) setFocused(on bool) {
	if t.text != nil {
		t.text.TextStyle.Underline = on
		t.text.Refresh()
	}
	if t.icon == nil {
		return
	}
	tinted, isTinted := t.icon.Resource.(*theme.PrimaryThemedResource)
	switch {
	case on && !isTinted:
		t.icon.SetResource(theme.NewPrimaryThemedResource(t.icon.Resource))
	case !on && isTinted:
		t.icon.SetResource(tinted.Original())
	}
}

// TypedKey runs the action on Enter or Space and hands the other keys to
// the window.
func (t *tapText) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace:
		t.Tapped(nil)
	default:
		if c := fyne.CurrentApp().Driver().CanvasForObject(t); c != nil && c.OnTypedKey() != nil {
			c.OnTypedKey()(ev)
		}
	}
}

// TypedRune hands the rune to the window (j and k move between prompts).
func (t *tapText) TypedRune(r rune) {
	if c := fyne.CurrentApp().Driver().CanvasForObject(t); c != nil && c.OnTypedRune() != nil {
		c.OnTypedRune()(r)
	}
}
