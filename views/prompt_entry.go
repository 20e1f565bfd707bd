package views

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The prompt entry shows between minPromptRows and maxPromptRows lines,
// growing with its wrapped text; longer text scrolls inside it.
const (
	minPromptRows = 2
	maxPromptRows = 6
	// maxMeasuredPrompt is the longest text measured for wrapping: longer
	// text takes maxPromptRows at any width a window has.
	maxMeasuredPrompt = 2000
)

// promptEntry is a multi-line, word-wrapping entry that sends on
// Ctrl+Enter (Cmd+Enter on macOS); plain Enter inserts a newline.
type promptEntry struct {
	widget.Entry
	onSend func()
}

func newPromptEntry(onSend func()) *promptEntry {
	e := &promptEntry{onSend: onSend}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.ExtendBaseWidget(e)
	return e
}

// TypedShortcut sends on Ctrl+Enter. A focused entry receives every
// shortcut, so the window's Ctrl+letter shortcuts (Ctrl+F, Ctrl+N), which
// Entry does not use, are passed on to the canvas.
func (e *promptEntry) TypedShortcut(s fyne.Shortcut) {
	cs, ok := s.(*desktop.CustomShortcut)
	switch {
	case ok && isSendShortcut(cs):
		e.onSend()
	case ok && len(cs.KeyName) == 1 && cs.Modifier&(fyne.KeyModifierControl|fyne.KeyModifierSuper) != 0:
		c := fyne.CurrentApp().Driver().CanvasForObject(e)
		if sc, ok := c.(fyne.Shortcutable); ok {
			sc.TypedShortcut(s)
		}
	default:
		e.Entry.TypedShortcut(s)
	}
}

// AcceptsTab lets Tab move the focus on: a prompt has no use for a tab,
// and an entry that keeps Tab traps the keyboard (Shift+Tab could not
// leave it either).
func (e *promptEntry) AcceptsTab() bool { return false }

func isSendShortcut(s *desktop.CustomShortcut) bool {
	return (s.KeyName == fyne.KeyReturn || s.KeyName == fyne.KeyEnter) &&
		(s.Modifier == fyne.KeyModifierControl || s.Modifier == fyne.KeyModifierShortcutDefault)
}

// entryRows lays out a multi-line entry and sets its visible rows to the
// rows its wrapped text needs, within [minPromptRows, maxPromptRows]. The
// new minimum height reaches the window at its next frame.
type entryRows struct {
	entry *promptEntry
	rows  int
	width float32 // the width the rows were counted at
}

func newEntryRows(e *promptEntry) *entryRows {
	r := &entryRows{entry: e, rows: minPromptRows}
	e.SetMinRowsVisible(minPromptRows)
	return r
}

// Layout fills size with the entry and recounts the rows after a width
// change, on a later turn of the event loop: not inside this layout pass.
func (r *entryRows) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
	if size.Width != r.width {
		r.width = size.Width
		fyne.Do(r.update)
	}
}

func (r *entryRows) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objects {
		m = m.Max(o.MinSize())
	}
	return m
}

// update sets the entry's visible rows for its text and width.
func (r *entryRows) update() {
	n := promptRows(r.entry.Text, r.entry.Size().Width-2*theme.InputBorderSize())
	if n != r.rows {
		r.rows = n
		r.entry.SetMinRowsVisible(n)
	}
}

// promptRows returns the rows text needs when word-wrapped at width (0:
// unknown), within [minPromptRows, maxPromptRows].
func promptRows(text string, width float32) int {
	n := strings.Count(text, "\n") + 1
	switch {
	case n >= maxPromptRows || len(text) > maxMeasuredPrompt:
		return maxPromptRows
	case width > 0 && strings.TrimSpace(text) != "":
		n = wrappedRows(text, width)
	}
	return min(max(n, minPromptRows), maxPromptRows)
}

// wrappedRows counts the rows of text word-wrapped at width, as the
// entry's text would be.
func wrappedRows(text string, width float32) int {
	h := richTextHeight(text, width)
	one := richTextHeight("M", width)
	line := richTextHeight("M\nM", width) - one
	if line <= 0 {
		return 1
	}
	return 1 + int((h-one)/line+0.5)
}

func richTextHeight(text string, width float32) float32 {
	rt := widget.NewRichTextWithText(text)
	rt.Wrapping = fyne.TextWrapWord
	rt.Resize(fyne.NewSize(width, 1))
	return rt.MinSize().Height
}
