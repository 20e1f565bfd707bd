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
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// PromptShortcuts are the keys of NextPrompt and PreviousPrompt that work
// wherever the keyboard is: Alt+Down and Alt+Up.
var PromptShortcuts = struct{ Next, Previous fyne.Shortcut }{
	Next:     Shortcut(KeyNextPrompt),
	Previous: Shortcut(KeyPreviousPrompt),
}

// PromptOutlineShortcut opens the outline of the session's prompts: Ctrl+L
// (Cmd+L on macOS).
var PromptOutlineShortcut = Shortcut(KeyOutline)

// Navigator is the transcript's keys and navigation: from prompt to
// prompt, the outline of the prompts, the scrolling keys (Home, End, Page
// Up, Page Down), and going to an event, a thought or a full output (as
// search hits and deep links do).
type Navigator struct {
	t   *Transcript
	row int // the prompt NextPrompt or PreviousPrompt last went to; -1 for none
}

// promptRows returns the rows of the user's prompts, in order.
func (n *Navigator) promptRows() []int {
	var out []int
	rows := n.t.rows.rows
	for i := range rows {
		if rows[i].kind == rowUser {
			out = append(out, i)
		}
	}
	return out
}

// topRow is the row at the top of the view (the first one whose bottom is
// below the view's top).
func (n *Navigator) topRow() int {
	r := n.t.rows
	off := r.list.GetScrollOffset()
	pad := r.list.Theme().Size(theme.SizeNamePadding)
	y := float32(0)
	for i := range r.rows {
		y += r.heightOf(i)
		if y > off+1 {
			return i
		}
		y += pad
	}
	return len(r.rows) - 1
}

// current is the prompt navigation's position: the prompt it last went to
// while that is still on screen at the view's top (or the view ended there,
// at the session's end), else the row at the view's top.
func (n *Navigator) current() int {
	r := n.t.rows
	top := n.topRow()
	if row := n.row; row >= top && row < len(r.rows) && r.rowOffset(row) <= r.list.GetScrollOffset()+r.list.Size().Height {
		return row
	}
	return top
}

// NextPrompt scrolls to the next prompt below the one at the view's top
// and reports whether there is one.
func (n *Navigator) NextPrompt() bool {
	cur := n.current()
	for _, r := range n.promptRows() {
		if r > cur {
			n.showPromptRow(r)
			return true
		}
	}
	return false
}

// PreviousPrompt scrolls to the prompt above the one at the view's top (to
// that prompt's own top when the view is inside it) and reports whether
// there is one.
func (n *Navigator) PreviousPrompt() bool {
	cur := n.current()
	off := n.t.rows.list.GetScrollOffset()
	rows := n.promptRows()
	for i := len(rows) - 1; i >= 0; i-- {
		if r := rows[i]; r < cur || (r == cur && n.t.rows.rowOffset(r) < off-1) {
			n.showPromptRow(r)
			return true
		}
	}
	return false
}

// showPromptRow puts row id's top at the view's top (as far as the
// content allows) and outlines it.
func (n *Navigator) showPromptRow(id int) {
	r := n.t.rows
	n.row = id
	r.scroll.target = -1
	off := min(r.rowOffset(id), max(r.contentHeight()-r.list.Size().Height, 0))
	r.list.ScrollToOffset(off)
	n.t.find.setRow(id)
}

// ShowPromptAt scrolls to the prompt with seq (or the first row after it)
// as the outline and deep links do, and reports whether there was a row.
func (n *Navigator) ShowPromptAt(seq int64) bool {
	row := n.t.rows.rowAtSeq(seq, false, true)
	if row < 0 {
		return false
	}
	n.showPromptRow(row)
	return true
}

// ShowFullMatch is ShowFullEvent for a search hit that matched match (the
// hit's text) at byte offset of the event's full text: it also marks the
// match in the output, as the find bar marks its query, since the card's
// outline is out of view in a long output. It reports whether the row was
// found.
func (n *Navigator) ShowFullMatch(seq int64, offset int, match string) bool {
	if !n.ShowFullEvent(seq, offset) {
		return false
	}
	if row := n.t.find.row; row >= 0 && match != "" {
		if _, ok := n.t.cards.fullOf(row); ok && n.t.rows.rows[row].open {
			n.t.find.setRowMarked(row, match)
		}
	}
	return true
}

// Match is the text the hit matched: its snippet's first highlighted
// part ("" when none is).
func (h SearchHit) Match() string {
	if len(h.Highlights) == 0 {
		return ""
	}
	r := h.Highlights[0]
	if r[0] < 0 || r[0] >= r[1] || r[1] > len(h.Snippet) {
		return ""
	}
	return h.Snippet[r[0]:r[1]]
}

// PromptOutlineItem is one prompt of the outline.
type PromptOutlineItem struct {
	Seq  int64
	Text string // the prompt's first line
}

// PromptOutline lists the prompts of the events shown, in order.
func (n *Navigator) PromptOutline() []PromptOutlineItem {
	var out []PromptOutlineItem
	rows := n.t.rows
	for _, r := range n.promptRows() {
		e := &rows.events[rows.rows[r].event]
		out = append(out, PromptOutlineItem{Seq: e.Seq, Text: firstLine(e.Event.Content)})
	}
	return out
}

// ShowOutline opens the outline of the session's prompts over w, the
// keyboard on its list at the prompt shown: choosing one (click, Enter or
// Space on the highlighted row) scrolls there and closes it; Esc closes it.
func (n *Navigator) ShowOutline(w fyne.Window) {
	items := n.PromptOutline()
	if len(items) == 0 {
		ShowMessage(w, "Prompts", "This session has no prompts to go to.")
		return
	}
	var d *dialog.CustomDialog
	list := newNavList(func() int { return len(items) },
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
		n.ShowPromptAt(items[id].Seq)
	}
	list.onEscape = func() { d.Hide() }
	note := ""
	if n.t.load.earlier > 0 {
		note = "Prompts of the events shown; Earlier loads older ones."
	}
	head := widget.NewLabel(note)
	head.Wrapping = fyne.TextWrapWord
	body := container.NewBorder(head, nil, nil, nil, list)
	if note == "" {
		body = container.NewStack(list)
	}
	d = dialog.NewCustomWithoutButtons(fmt.Sprintf("Prompts (%d)", len(items)), body, w)
	d.SetButtons([]fyne.CanvasObject{newDialogButton("Close", d.Hide, d.Hide)})
	d.Resize(fyne.NewSize(min(w.Canvas().Size().Width*0.8, 720), min(w.Canvas().Size().Height*0.8, 560)))
	if cur := n.current(); cur >= 0 {
		for i, r := range n.promptRows() {
			if r <= cur {
				list.highlighted = i
			}
		}
	}
	d.Show()
	list.ScrollTo(list.highlighted)
	w.Canvas().Focus(list) // highlights the prompt shown
}

// typedRune handles j and k (next and previous prompt) and reports
// whether it did.
func (n *Navigator) typedRune(r rune) bool {
	switch r {
	case 'j':
		n.NextPrompt()
	case 'k':
		n.PreviousPrompt()
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
func bindPromptKeys(c fyne.Canvas, n *Navigator) {
	c.AddShortcut(PromptShortcuts.Next, func(fyne.Shortcut) { n.NextPrompt() })
	c.AddShortcut(PromptShortcuts.Previous, func(fyne.Shortcut) { n.PreviousPrompt() })
	prev := c.OnTypedRune()
	c.SetOnTypedRune(func(r rune) {
		if !n.typedRune(r) && prev != nil {
			prev(r)
		}
	})
}
