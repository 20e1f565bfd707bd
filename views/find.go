package views

import (
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/lazuli-app/lazuli/trace"
)

// FindBar is the transcript's find bar: a case-insensitive search over the
// rows' text, stepping through the matching cards. It also keeps the row
// highlighted (the current match, or where navigation went).
type FindBar struct {
	t       *Transcript
	bar     *fyne.Container
	entry   *findEntry
	count   *widget.Label
	prev    *widget.Button
	next    *widget.Button
	matches []int    // matching rows, in order
	cur     int      // index into matches; -1 for none
	row     int      // the row of the current find match; -1 for none
	lower   []string // lower-case row texts for find, built on first use
	// hit is the lower-case text of a search hit marked in row while the
	// bar is closed (Navigator.ShowFullMatch); "" for none.
	hit string
}

func newFindBar(t *Transcript) *FindBar {
	f := &FindBar{t: t, count: widget.NewLabel(""), cur: -1, row: -1}
	f.entry = newFindEntry(f.Hide)
	f.entry.SetPlaceHolder("Find in session")
	f.entry.OnChanged = f.onChanged
	f.entry.OnSubmitted = func(string) { f.step(1) }
	f.prev = widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { f.step(-1) })
	f.next = widget.NewButtonWithIcon("", theme.MoveDownIcon(), func() { f.step(1) })
	closeBtn := widget.NewButtonWithIcon("", theme.CancelIcon(), f.Hide)
	for _, b := range []*widget.Button{f.prev, f.next, closeBtn} {
		b.Importance = widget.LowImportance
	}
	f.count.Importance = widget.LowImportance
	f.bar = container.NewBorder(nil, nil, nil,
		container.NewHBox(f.count, f.prev, f.next, closeBtn), f.entry)
	f.bar.Hide()
	f.showCurrent()
	return f
}

// Show shows the find bar, focuses its entry and selects the last
// query, so that typing replaces it.
func (f *FindBar) Show() {
	t := f.t
	f.bar.Show()
	t.refreshTop()
	if c := t.canvasOf(); c != nil {
		c.Focus(f.entry)
	}
	f.entry.TypedShortcut(&fyne.ShortcutSelectAll{})
	f.onChanged(f.entry.Text)
}

// Hide hides the find bar and removes the match highlight.
func (f *FindBar) Hide() {
	t := f.t
	if c := t.canvasOf(); c != nil && c.Focused() == fyne.Focusable(f.entry) {
		c.Unfocus()
	}
	f.bar.Hide()
	t.refreshTop()
	f.matches, f.cur = nil, -1
	f.showCurrent()
	f.setRow(-1)
}

// Next moves to the next match, wrapping around.
func (f *FindBar) Next() { f.step(1) }

// Previous moves to the previous match, wrapping around.
func (f *FindBar) Previous() { f.step(-1) }

// Status returns the find bar's count text, e.g. "2 of 5".
func (f *FindBar) Status() string { return f.count.Text }

// onChanged searches for q and moves to the first match.
func (f *FindBar) onChanged(q string) {
	f.search(q)
	if len(f.matches) > 0 {
		f.cur = 0
	}
	f.showCurrent()
}

// search fills matches with the rows whose text contains q, ignoring case.
func (f *FindBar) search(q string) {
	f.matches, f.cur = f.matches[:0], -1
	q = strings.ToLower(q)
	if q == "" {
		return
	}
	r := f.t.rows
	for i := len(f.lower); i < len(r.rows); i++ {
		f.lower = append(f.lower, strings.ToLower(r.rowText(i)))
	}
	for i, s := range f.lower {
		if strings.Contains(s, q) {
			f.matches = append(f.matches, i)
		}
	}
}

// rowsAdded re-runs an active search so that new rows can match, keeping
// the current match.
func (f *FindBar) rowsAdded() {
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
func (f *FindBar) reset() {
	f.matches, f.cur = nil, -1
	if !f.bar.Hidden {
		f.onChanged(f.entry.Text)
	}
	f.updateCount()
}

// step moves by delta matches, wrapping around.
func (f *FindBar) step(delta int) {
	trace.Mark("input", "find_next")
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
	f.showCurrent()
	if f.t != nil && f.t.rows != nil {
		f.t.rows.traceSettled("find_next")
	}
}

// showCurrent scrolls to and highlights the current match and updates the count,
// opening collapsed thinking or a collapsed summary it is in.
func (f *FindBar) showCurrent() {
	f.updateCount()
	if f.t == nil || f.t.rows == nil || f.t.rows.list == nil {
		return
	}
	if f.cur < 0 {
		f.setRow(-1)
		return
	}
	row := f.matches[f.cur]
	if r := &f.t.rows.rows[row]; (r.kind == rowThinking || r.kind == rowCompaction) && !r.open {
		f.t.rows.toggle(row) // a collapsed card shows one line at most: the match would be hidden
	}
	f.setRow(row)
	f.t.rows.scroll.toMatch(row, f.matchAt(row))
}

// matchAt is where in row's text the query first occurs, as a fraction of
// the text (0 at its start, 1 at its end).
func (f *FindBar) matchAt(row int) float32 {
	s := f.lower[row]
	i := strings.Index(s, strings.ToLower(f.entry.Text))
	if i <= 0 || len(s) == 0 {
		return 0
	}
	return float32(i) / float32(len(s))
}

// highlightIn is the lower-case text to highlight in row; "" for none:
// the find query, or while the bar is closed, the search hit marked there.
func (f *FindBar) highlightIn(row int) string {
	switch {
	case row != f.row || row < 0:
		return ""
	case f.bar.Hidden:
		return f.hit
	}
	return strings.ToLower(f.entry.Text)
}

func (f *FindBar) updateCount() {
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

// setRow moves the match highlight to row (-1: none), and redraws the
// cards: the current match's shows the query highlighted in its text.
func (f *FindBar) setRow(row int) {
	f.setRowMarked(row, "")
}

// setRowMarked is setRow that marks hit (a search hit's text) in row's
// card while the find bar is closed.
func (f *FindBar) setRowMarked(row int, hit string) {
	f.row, f.hit = row, strings.ToLower(hit)
	f.t.rows.list.Refresh()
}

// textChanged forgets the rows' lower-case texts: what a row says changed.
func (f *FindBar) textChanged() { f.lower = nil }

// forget forgets the rows' texts and the highlight of rows being
// replaced, before the new rows are measured; reset follows.
func (f *FindBar) forget() { f.lower, f.row, f.hit = nil, -1, "" }

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
