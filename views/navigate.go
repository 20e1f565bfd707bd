package views

// Prompt navigation: jump from prompt to prompt (j and k when the
// transcript has the keyboard, Alt+Up and Alt+Down anywhere), and an
// outline of the session's prompts that scrolls to the one chosen.

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// PromptShortcuts are the keys of NextPrompt and PreviousPrompt that work
// wherever the keyboard is: Alt+Down and Alt+Up.
var PromptShortcuts = struct{ Next, Previous fyne.Shortcut }{
	Next:     &desktop.CustomShortcut{KeyName: fyne.KeyDown, Modifier: fyne.KeyModifierAlt},
	Previous: &desktop.CustomShortcut{KeyName: fyne.KeyUp, Modifier: fyne.KeyModifierAlt},
}

// PromptOutlineShortcut opens the outline of the session's prompts: Ctrl+L
// (Cmd+L on macOS).
var PromptOutlineShortcut fyne.Shortcut = &desktop.CustomShortcut{KeyName: fyne.KeyL, Modifier: fyne.KeyModifierShortcutDefault}

// promptRows returns the rows of the user's prompts, in order.
func (t *Transcript) promptRows() []int {
	var out []int
	for i := range t.rows {
		if t.rows[i].kind == rowUser {
			out = append(out, i)
		}
	}
	return out
}

// rowOffset is the offset of row id's top in the list's content, padding included.
func (t *Transcript) rowOffset(id int) float32 {
	top := float32(id) * t.list.Theme().Size(theme.SizeNamePadding)
	for i := range id {
		top += t.heightOf(i)
	}
	return top
}

// topRow is the row at the top of the view (the first one whose bottom is
// below the view's top).
func (t *Transcript) topRow() int {
	off := t.list.GetScrollOffset()
	pad := t.list.Theme().Size(theme.SizeNamePadding)
	y := float32(0)
	for i := range t.rows {
		y += t.heightOf(i)
		if y > off+1 {
			return i
		}
		y += pad
	}
	return len(t.rows) - 1
}

// current is the prompt navigation's position: the prompt it last went to
// while that is still on screen at the view's top (or the view ended there,
// at the session's end), else the row at the view's top.
func (t *Transcript) current() int {
	top := t.topRow()
	if n := t.navRow; n >= top && n < len(t.rows) && t.rowOffset(n) <= t.list.GetScrollOffset()+t.list.Size().Height {
		return n
	}
	return top
}

// NextPrompt scrolls to the next prompt below the one at the view's top
// and reports whether there is one.
func (t *Transcript) NextPrompt() bool {
	cur := t.current()
	for _, r := range t.promptRows() {
		if r > cur {
			t.showPromptRow(r)
			return true
		}
	}
	return false
}

// PreviousPrompt scrolls to the prompt above the one at the view's top (to
// that prompt's own top when the view is inside it) and reports whether
// there is one.
func (t *Transcript) PreviousPrompt() bool {
	cur := t.current()
	off := t.list.GetScrollOffset()
	rows := t.promptRows()
	for i := len(rows) - 1; i >= 0; i-- {
		if r := rows[i]; r < cur || (r == cur && t.rowOffset(r) < off-1) {
			t.showPromptRow(r)
			return true
		}
	}
	return false
}

// showPromptRow puts row id's top at the view's top (as far as the
// content allows) and outlines it.
func (t *Transcript) showPromptRow(id int) {
	t.navRow = id
	t.target = -1
	off := min(t.rowOffset(id), max(t.contentHeight()-t.list.Size().Height, 0))
	t.list.ScrollToOffset(off)
	t.setFindRow(id)
}

// ShowPromptAt scrolls to the prompt with seq (or the first row after it)
// as the outline and deep links do, and reports whether there was a row.
func (t *Transcript) ShowPromptAt(seq int64) bool {
	for i := range t.rows {
		r := &t.rows[i]
		if isSideRow(r.kind) {
			continue
		}
		if t.events[r.event].Seq >= seq {
			t.showPromptRow(i)
			return true
		}
	}
	return false
}

// PromptOutlineItem is one prompt of the outline.
type PromptOutlineItem struct {
	Seq  int64
	Text string // the prompt's first line
}

// PromptOutline lists the prompts of the events shown, in order.
func (t *Transcript) PromptOutline() []PromptOutlineItem {
	var out []PromptOutlineItem
	for _, r := range t.promptRows() {
		e := &t.events[t.rows[r].event]
		out = append(out, PromptOutlineItem{Seq: e.Seq, Text: firstLine(e.Event.Content)})
	}
	return out
}

// ShowOutline opens the outline of the session's prompts over w: choosing
// one (click, or Enter on the highlighted row) scrolls there and closes it.
func (t *Transcript) ShowOutline(w fyne.Window) {
	items := t.PromptOutline()
	if len(items) == 0 {
		dialog.ShowInformation("Prompts", "This session has no prompts to go to.", w)
		return
	}
	var d dialog.Dialog
	list := widget.NewList(func() int { return len(items) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(fmt.Sprintf("%d. %s", id+1, items[id].Text))
		})
	list.OnSelected = func(id widget.ListItemID) {
		d.Hide()
		t.ShowPromptAt(items[id].Seq)
	}
	note := ""
	if t.earlier > 0 {
		note = "Prompts of the events shown; Earlier loads older ones."
	}
	head := widget.NewLabel(note)
	head.Wrapping = fyne.TextWrapWord
	body := container.NewBorder(head, nil, nil, nil, list)
	if note == "" {
		body = container.NewStack(list)
	}
	d = dialog.NewCustom(fmt.Sprintf("Prompts (%d)", len(items)), "Close", body, w)
	d.Resize(fyne.NewSize(min(w.Canvas().Size().Width*0.8, 720), min(w.Canvas().Size().Height*0.8, 560)))
	d.Show()
	if cur := t.current(); cur >= 0 {
		for i, r := range t.promptRows() {
			if r <= cur {
				list.ScrollTo(i)
			}
		}
	}
	w.Canvas().Focus(list)
}

// typedRune handles j and k (next and previous prompt) and reports
// whether it did.
func (t *Transcript) typedRune(r rune) bool {
	switch r {
	case 'j':
		t.NextPrompt()
	case 'k':
		t.PreviousPrompt()
	default:
		return false
	}
	return true
}

// transcriptList is the transcript's list: j and k typed while it has the
// keyboard move between prompts; Home, End, Page Up and Page Down scroll.
type transcriptList struct {
	widget.List
	onRune func(rune) bool
	onKey  func(fyne.KeyName) bool // Home, End, Page Up, Page Down (transcript_keys.go)
}

// TypedRune moves between prompts on j and k.
func (l *transcriptList) TypedRune(r rune) {
	if l.onRune == nil || !l.onRune(r) {
		l.List.TypedRune(r)
	}
}

// firstLine is the first non-blank line of s.
func firstLine(s string) string {
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return ""
}

// bindPromptKeys binds Alt+Down and Alt+Up on c,
// and j and k typed while nothing has the keyboard. (The window's menu
// carries the same shortcuts, which Fyne runs wherever the keyboard is.)
func bindPromptKeys(c fyne.Canvas, t *Transcript) {
	c.AddShortcut(PromptShortcuts.Next, func(fyne.Shortcut) { t.NextPrompt() })
	c.AddShortcut(PromptShortcuts.Previous, func(fyne.Shortcut) { t.PreviousPrompt() })
	prev := c.OnTypedRune()
	c.SetOnTypedRune(func(r rune) {
		if !t.typedRune(r) && prev != nil {
			prev(r)
		}
	})
}
