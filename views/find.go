package views

import (
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// finder is the transcript's find bar: a case-insensitive search over the
// rows' text, stepping through the matching cards.
type finder struct {
	t       *Transcript
	bar     *fyne.Container
	entry   *findEntry
	count   *widget.Label
	prev    *widget.Button
	next    *widget.Button
	matches []int // matching rows, in order
	cur     int   // index into matches; -1 for none
}

func newFinder(t *Transcript) *finder {
	f := &finder{t: t, entry: newFindEntry(t.HideFind), count: widget.NewLabel(""), cur: -1}
	f.entry.SetPlaceHolder("Find in session")
	f.entry.OnChanged = f.onChanged
	f.entry.OnSubmitted = func(string) { f.step(1) }
	f.prev = widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { f.step(-1) })
	f.next = widget.NewButtonWithIcon("", theme.MoveDownIcon(), func() { f.step(1) })
	closeBtn := widget.NewButtonWithIcon("", theme.CancelIcon(), t.HideFind)
	for _, b := range []*widget.Button{f.prev, f.next, closeBtn} {
		b.Importance = widget.LowImportance
	}
	f.count.Importance = widget.LowImportance
	f.bar = container.NewBorder(nil, nil, nil,
		container.NewHBox(f.count, f.prev, f.next, closeBtn), f.entry)
	f.bar.Hide()
	f.show()
	return f
}

// ShowFind shows the find bar, focuses its entry and selects the last
// query, so that typing replaces it.
func (t *Transcript) ShowFind() {
	t.find.bar.Show()
	t.refreshTop()
	if c := t.canvasOf(); c != nil {
		c.Focus(t.find.entry)
	}
	t.find.entry.TypedShortcut(&fyne.ShortcutSelectAll{})
	t.find.onChanged(t.find.entry.Text)
}

// HideFind hides the find bar and removes the match highlight.
func (t *Transcript) HideFind() {
	if c := t.canvasOf(); c != nil && c.Focused() == fyne.Focusable(t.find.entry) {
		c.Unfocus()
	}
	t.find.bar.Hide()
	t.refreshTop()
	t.find.matches, t.find.cur = nil, -1
	t.find.show()
	t.setFindRow(-1)
}

// canvasOf is the canvas the transcript is on. The driver finds an object's
// canvas only once it has been drawn, and the find entry has not been when
// the bar first opens: asked for the entry, it answered nil and the
// keyboard stayed where it was.
func (t *Transcript) canvasOf() fyne.Canvas {
	if t.canvas != nil {
		return t.canvas
	}
	return fyne.CurrentApp().Driver().CanvasForObject(t.root)
}

// FindNext moves to the next match, wrapping around.
func (t *Transcript) FindNext() { t.find.step(1) }

// FindPrevious moves to the previous match, wrapping around.
func (t *Transcript) FindPrevious() { t.find.step(-1) }

// FindStatus returns the find bar's count text, e.g. "2 of 5".
func (t *Transcript) FindStatus() string { return t.find.count.Text }

// Shortcuts returns the keyboard shortcuts the transcript handles (Ctrl+F,
// Cmd+F on macOS, for find). The window's owner registers them on its
// canvas and passes them to HandleShortcut.
func (t *Transcript) Shortcuts() []fyne.Shortcut {
	return append([]fyne.Shortcut{&desktop.CustomShortcut{KeyName: fyne.KeyF, Modifier: fyne.KeyModifierShortcutDefault}},
		scrollShortcuts()...)
}

// HandleShortcut runs the transcript's action for s and reports whether s
// is one of Shortcuts.
func (t *Transcript) HandleShortcut(s fyne.Shortcut) bool {
	if s.ShortcutName() == t.Shortcuts()[0].ShortcutName() {
		t.ShowFind()
		return true
	}
	for _, sc := range scrollShortcuts() {
		if s.ShortcutName() == sc.ShortcutName() {
			return t.ScrollKey(sc.(*desktop.CustomShortcut).KeyName)
		}
	}
	return false
}

// onChanged searches for q and moves to the first match.
func (f *finder) onChanged(q string) {
	f.search(q)
	if len(f.matches) > 0 {
		f.cur = 0
	}
	f.show()
}

// search fills matches with the rows whose text contains q, ignoring case.
func (f *finder) search(q string) {
	f.matches, f.cur = f.matches[:0], -1
	q = strings.ToLower(q)
	if q == "" {
		return
	}
	t := f.t
	for i := len(t.lower); i < len(t.rows); i++ {
		t.lower = append(t.lower, strings.ToLower(t.rowText(i)))
	}
	for i, s := range t.lower {
		if strings.Contains(s, q) {
			f.matches = append(f.matches, i)
		}
	}
}

// rowsAdded re-runs an active search so that new rows can match, keeping
// the current match.
func (f *finder) rowsAdded() {
	if f.bar.Hidden || f.entry.Text == "" {
		return
	}
	row := -1
	if f.cur >= 0 {
		row = f.matches[f.cur]
	}
	f.search(f.entry.Text)
	for i, m := range f.matches {
		if m == row {
			f.cur = i
		}
	}
	f.updateCount()
}

// reset forgets the matches of rows that were replaced.
func (f *finder) reset() {
	f.matches, f.cur = nil, -1
	if !f.bar.Hidden {
		f.onChanged(f.entry.Text)
	}
	f.updateCount()
}

// step moves by delta matches, wrapping around.
func (f *finder) step(delta int) {
	n := len(f.matches)
	if n == 0 {
		return
	}
	switch {
	case f.cur >= 0:
		f.cur = ((f.cur+delta)%n + n) % n
	case delta > 0:
		f.cur = 0
	default:
		f.cur = n - 1
	}
	f.show()
}

// show scrolls to and highlights the current match and updates the count,
// opening collapsed thinking or a collapsed summary it is in.
func (f *finder) show() {
	f.updateCount()
	if f.t == nil || f.t.list == nil {
		return
	}
	if f.cur < 0 {
		f.t.setFindRow(-1)
		return
	}
	row := f.matches[f.cur]
	if r := &f.t.rows[row]; (r.kind == rowThinking || r.kind == rowCompaction) && !r.open {
		f.t.toggle(row) // a collapsed card shows one line at most: the match would be hidden
	}
	f.t.setFindRow(row)
	f.t.scrollToMatch(row, f.matchAt(row))
}

// matchAt is where in row's text the query first occurs, as a fraction of
// the text (0 at its start, 1 at its end).
func (f *finder) matchAt(row int) float32 {
	s := f.t.lower[row]
	i := strings.Index(s, strings.ToLower(f.entry.Text))
	if i <= 0 || len(s) == 0 {
		return 0
	}
	return float32(i) / float32(len(s))
}

// highlightIn is the lower-case text to highlight in row; "" for none.
func (t *Transcript) highlightIn(row int) string {
	if row != t.findRow || row < 0 || t.find.bar.Hidden {
		return ""
	}
	return strings.ToLower(t.find.entry.Text)
}

func (f *finder) updateCount() {
	switch {
	case f.entry.Text == "" || f.bar.Hidden:
		f.count.SetText("")
	case len(f.matches) == 0:
		f.count.SetText("No matches")
	default:
		f.count.SetText(strconv.Itoa(f.cur+1) + " of " + strconv.Itoa(len(f.matches)))
	}
	f.bar.Refresh() // the count's width changed
}

// setFindRow moves the match highlight to row (-1: none), and redraws the
// cards: the current match's shows the query highlighted in its text.
func (t *Transcript) setFindRow(row int) {
	t.findRow = row
	t.list.Refresh()
}

// findEntry is the find bar's entry: Esc closes the bar.
type findEntry struct {
	widget.Entry
	onEscape func()
}

func newFindEntry(onEscape func()) *findEntry {
	e := &findEntry{onEscape: onEscape}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey closes the bar on Esc and edits otherwise.
func (e *findEntry) TypedKey(k *fyne.KeyEvent) {
	if k.Name == fyne.KeyEscape {
		e.onEscape()
		return
	}
	e.Entry.TypedKey(k)
}
