package views

// This file holds the transcript's rows (rowList): the events and
// compactions shown, their rows in the list, how the rows are measured,
// their heights kept, and the list scrolled to a row or a match.

import (
	"cmp"
	"fmt"
	"image/color"
	"slices"
	"strings"
	"sync/atomic"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/trace"
)

// themeKey identifies the theme colours and text size cards were drawn with.
type themeKey struct {
	fg   color.Color
	text float32
}

func currentThemeKey() themeKey {
	return themeKey{theme.Color(theme.ColorNameForeground), theme.Size(theme.SizeNameText)}
}

// rowList owns the transcript's rows and their measuring: the events and
// compactions shown, one row per card, the list widget, and the heights
// the list gives the rows.
//
// Row heights: each card is measured (its MinSize at the list's width) when
// the list first shows it, and the height is handed to List.SetItemHeight
// through fyne.Do, which in the running app runs after the list's layout
// pass (the test driver runs it at once; a guard keeps that re-entry to one
// level). SetSession measures the rows it scrolls to before showing the
// list. A width change re-measures the rows shown.
type rowList struct {
	t *Transcript
	rowState

	pending    map[int]float32 // measured heights the list has not been given
	scroll     *rowScroll      // the row to keep shown while heights settle (transcript_scroll.go)
	scheduled  bool
	installing bool
	skipped    bool // the install left rows unbound (settleInstall)
	flushing   bool
	post       func(func()) // runs a function on a later turn of the event loop
	width      float32
	template   float32    // the height the list gives unmeasured rows
	built      builtCards // cards bound and measured off screen, handed to the list (cards_built.go)
	// aim is the seq of the event replace opens the list at, instead of
	// its end (Transcript.ExpectEvent); replace sets it to -1 when it did.
	aim int64

	body *fyne.Container
}

// rowState is what rowList holds of one session's rows: the events and
// compactions shown, their rows, the heights measured and the list
// widget laid out with them. The transcript keeps it for the last few
// sessions shown (shownRows).
type rowState struct {
	events      []store.StoredEvent
	compactions []store.Compaction
	rows        []transcriptRow

	heights []float32 // measured height per row; 0 until measured
	widths  []float32 // the width each height was measured at
	total   float32   // the sum of the row heights the list uses

	list *transcriptList
	// gen is the generation the list's cards are bound in: a card bound in
	// another shows what another list's row had (see card.bind). Each new
	// list takes a new one (nextGen).
	gen uint64
}

// lastGen is the last generation given to cards (nextGen).
var lastGen atomic.Uint64

// nextGen returns a generation no list has had.
func nextGen() uint64 { return lastGen.Add(1) }

// maxPremeasure caps the rows SetSession measures before showing them.
const maxPremeasure = 100

func newRowList(t *Transcript) *rowList {
	r := &rowList{t: t, post: fyne.Do}
	r.scroll = &rowScroll{rows: r, target: -1}
	r.template = newCard(t).MinSize().Height
	r.list = r.newList()
	r.body = container.New(&widthWatcher{onWidth: r.onWidth, pinned: r.atBottom,
		toBottom: func() { r.list.ScrollToBottom() }}, r.list)
	return r
}

func (r *rowList) newList() *transcriptList {
	l := &transcriptList{onRune: r.t.nav.typedRune, onKey: r.t.nav.ScrollKey}
	l.Length, l.CreateItem, l.UpdateItem = r.length, r.t.cards.createItem, r.t.cards.updateItem
	l.HideSeparators = true
	l.ExtendBaseWidget(l)
	return l
}

func (r *rowList) length() int { return len(r.rows) }

// rowOfSeq returns the row of the event with seq, or -1.
func (r *rowList) rowOfSeq(seq int64) int {
	for i := range r.rows {
		if row := &r.rows[i]; !isSideRow(row.kind) && r.events[row.event].Seq == seq {
			return i
		}
	}
	return -1
}

// rebuild makes the rows anew from the events and compactions. While
// earlier events are not loaded, compactions of those are left out.
func (r *rowList) rebuild() {
	r.replace(buildRowsFrom(r.events, r.compactions, r.firstShownCompaction()))
}

// firstShownCompaction returns the index of the first compaction to show:
// while earlier events are not loaded, those that end before the events
// shown are left out.
func (r *rowList) firstShownCompaction() int {
	if r.t.load.earlier == 0 || len(r.events) == 0 {
		return 0
	}
	first, _ := slices.BinarySearchFunc(r.compactions, r.events[0].Seq-1, func(c store.Compaction, seq int64) int {
		return cmp.Compare(c.AfterSeq, seq)
	})
	return first
}

// appendEvents adds the rows of events at the end, unmeasured; a result
// whose call is shown joins it (pairAppended).
func (r *rowList) appendEvents(events []store.StoredEvent) {
	first := len(r.events)
	r.events = append(r.events, events...)
	n := len(r.rows)
	r.rows = appendRows(r.rows, events, first)
	added := len(r.rows) - n // thinking and failures add rows of their own
	r.heights = append(r.heights, make([]float32, added)...)
	r.total += float32(added) * r.template
	r.widths = append(r.widths, make([]float32, added)...)
	r.pairAppended(n)
	r.list.Refresh()
}

// replace installs rows in a new list: a List keeps the heights set on
// its item ids, which mean nothing for other rows.
func (r *rowList) replace(rows []transcriptRow) {
	t := r.t
	r.gen = nextGen()
	r.rows = rows
	r.heights = make([]float32, len(rows))
	r.widths = make([]float32, len(rows))
	r.total = float32(len(rows)) * r.template
	r.pending = make(map[int]float32)
	r.scroll.target = -1
	t.find.forget()
	r.list = r.newList()
	r.built.drop()
	at := -1
	if r.aim > 0 {
		at = r.rowOfSeq(r.aim)
	}
	if at >= 0 {
		r.premeasureAround(at)
	} else {
		r.premeasureTail()
	}
	r.installing = true // the first layout shows the top rows, which SetSession scrolls away from
	r.body.Objects = []fyne.CanvasObject{r.list}
	r.body.Refresh()
	r.installing = false
	if at >= 0 {
		r.list.ScrollToOffset(r.rowOffset(at))
		r.aim = -1 // placed: SetSession leaves the view there
	}
	t.find.reset()
}

// settleInstall binds the rows on screen that the install of a new list
// left unbound, once the caller has scrolled it where it shows it; rows
// already bound are left alone. Every method that installs a list calls it
// before it returns, so no frame draws an unbound card.
func (r *rowList) settleInstall() {
	if r.skipped {
		r.skipped = false
		r.list.Refresh()
	}
}

// premeasureTail measures the last rows, which SetSession scrolls to, off
// screen and gives their heights to the list before it is shown: the list
// then opens at its final layout, and setting heights on a list that has
// no renderer yet costs no re-layout.
func (r *rowList) premeasureTail() {
	size := r.body.Size()
	if size.Width <= 0 {
		return
	}
	var sum float32
	for id := len(r.rows) - 1; id >= 0 && sum < size.Height && len(r.rows)-id <= maxPremeasure; id-- {
		sum += r.premeasure(id, size.Width)
	}
}

// premeasureAround measures, off screen, the rows a view scrolled to row
// id shows (from id down until a view is full, and a view's height above
// it) and gives the list their heights before it scrolls: otherwise the
// first frames there draw cards of the template's height over each other
// until the rows shown are measured and laid out again.
func (r *rowList) premeasureAround(id int) {
	size := r.body.Size()
	if size.Width <= 0 || id < 0 || id >= len(r.rows) {
		return
	}
	var sum float32
	for i := id; i < len(r.rows) && sum < size.Height && i-id < maxPremeasure; i++ {
		sum += r.premeasure(i, size.Width)
	}
	sum = 0
	for i := id - 1; i >= 0 && sum < size.Height && id-i <= maxPremeasure; i-- {
		sum += r.premeasure(i, size.Width)
	}
}

// premeasure measures row id at width w with a card off screen, unless it
// was measured at that width, and returns its height. The card is kept for
// the list, which shows it when it shows the row (builtCards).
func (r *rowList) premeasure(id int, w float32) float32 {
	if r.widths[id] == w && r.heights[id] > 0 {
		return r.heights[id]
	}
	c := r.built.card(r.t, id)
	c.bind(id)
	h := c.heightFor(w)
	r.built.keep(id, c)
	r.widths[id] = w
	delete(r.pending, id)
	r.setHeight(id, h)
	return h
}

// detailOf returns the detail of row id, computing it on first use.
func (r *rowList) detailOf(id int) *rowDetail {
	row := &r.rows[id]
	if row.detail == nil {
		var e *codec.Event
		if row.event >= 0 {
			e = &r.events[row.event].Event
		}
		row.detail = computeDetail(row.kind, e)
	}
	return row.detail
}

// changed rebinds and measures again the rows of events for which is
// reports true (seq is the row's event's), leaving the others' cards as
// they are.
func (r *rowList) changed(is func(row *transcriptRow, seq int64) bool) {
	hit := false
	for i := range r.rows {
		row := &r.rows[i]
		if isSideRow(row.kind) || row.event < 0 || !is(row, r.events[row.event].Seq) {
			continue
		}
		row.version++
		r.widths[i] = 0
		hit = true
	}
	if hit {
		r.list.Refresh()
	}
}

// toggle opens or closes a row's tool input or summary.
func (r *rowList) toggle(id int) {
	row := &r.rows[id]
	row.open = !row.open
	row.version++
	r.widths[id] = 0
	r.list.RefreshItem(id)
}

// measure records the height card c needs for row id at the list's width,
// and schedules handing it to the list when it changed.
func (r *rowList) measure(id int, c *card) {
	w := c.Size().Width
	if w <= 0 || r.widths[id] == w || r.installing {
		return
	}
	h := c.heightFor(w)
	r.widths[id] = w
	if h == r.heights[id] {
		delete(r.pending, id)
		return
	}
	r.pending[id] = h
	if trace.On() { // the frame being laid out draws the row at its old height
		trace.Markf("stage", "unmeasured row %d", id)
	}
	r.schedule()
}

func (r *rowList) schedule() {
	if !r.scheduled && !r.flushing {
		r.scheduled = true
		r.post(r.flush)
	}
}

// flush gives the list the heights measured since the last flush, then
// keeps the view at the bottom, or on the find match, when it was there.
// Setting a height or scrolling re-lays the list out, which may measure
// more rows: the loop takes those too.
func (r *rowList) flush() {
	r.scheduled = false
	if r.flushing {
		return
	}
	r.flushing = true
	bottom := r.atBottom()
	for round := 0; len(r.pending) > 0 && round < 8; round++ {
		batch := r.pending
		r.pending = make(map[int]float32)
		for id, h := range batch {
			if id < len(r.rows) {
				r.setHeight(id, h)
			}
		}
		switch {
		case bottom:
			r.list.ScrollToBottom()
		case r.scroll.target >= 0:
			r.list.ScrollTo(r.scroll.target)
			r.scroll.showTarget()
		}
	}
	if len(r.pending) == 0 {
		r.scroll.target = -1
	}
	r.flushing = false
	if len(r.pending) > 0 {
		r.schedule()
	}
}

// heightOf is the height the list gives row id.
func (r *rowList) heightOf(id int) float32 {
	if h := r.heights[id]; h > 0 {
		return h
	}
	return r.template
}

// onWidth re-measures the rows shown after the width changed.
func (r *rowList) onWidth(w float32) {
	if w == r.width {
		return
	}
	r.width = w
	r.post(func() { r.list.Refresh() })
	r.traceSettled(fmt.Sprintf("resize %.0f", w))
}

// atBottom reports whether the list shows its last row's end (or has not
// been laid out yet).
func (r *rowList) atBottom() bool {
	view := r.list.Size().Height
	if view <= 0 {
		return true
	}
	return r.list.GetScrollOffset()+view >= r.contentHeight()-1
}

// contentHeight is the list's content height as the list computes it.
func (r *rowList) contentHeight() float32 {
	if n := len(r.heights); n > 1 {
		return r.total + float32(n-1)*r.list.Theme().Size(theme.SizeNamePadding)
	}
	return r.total
}

// setHeight gives row id height h, in the list and in the total.
func (r *rowList) setHeight(id int, h float32) {
	old := r.heights[id]
	if old == 0 {
		old = r.template
	}
	r.total += h - old
	r.heights[id] = h
	r.list.SetItemHeight(id, h)
}

// rowText is the plain text of row id, for Copy and find.
func (r *rowList) rowText(id int) string {
	row := &r.rows[id]
	d := r.detailOf(id)
	if row.kind == rowCompaction {
		return r.compactions[row.comp].Summary
	}
	if row.kind == rowThinking {
		return r.events[row.event].Thinking[row.thought]
	}
	if row.kind == rowFailure {
		return r.events[row.event].RunFailures[row.thought]
	}
	e := &r.events[row.event].Event
	switch row.kind {
	case rowUser:
		return e.Content
	case rowAssistant:
		return e.Text
	case rowPlan:
		return "Plan: " + e.Name + "\n" + e.Content
	case rowTool, rowEdit, rowWrite:
		head := joinNonEmpty(" ", d.title, d.param)
		if len(d.diffs) > 0 {
			return head + "\n" + diffText(d.diffs)
		}
		return strings.TrimSuffix(head+"\n"+d.input, "\n")
	case rowResult:
		if full, ok := r.t.cards.fullOf(id); ok && row.open {
			return full
		}
		return e.Content
	case rowComplete:
		return r.t.cards.completeRowText(r.events[row.event].Seq, e)
	}
	return d.title
}

// rowTop is the y of row id in the list: the heights the list gives the
// rows above it (the template height for those not measured yet) and the
// padding the list puts between rows.
func (r *rowList) rowTop(id int) float32 {
	id = min(id, len(r.heights))
	y := float32(id) * r.list.Theme().Size(theme.SizeNamePadding)
	for i := range id {
		y += r.heightOf(i)
	}
	return y
}

// rowOffset is the offset of row id's top in the list's content, padding included.
func (r *rowList) rowOffset(id int) float32 {
	top := float32(id) * r.list.Theme().Size(theme.SizeNamePadding)
	for i := range id {
		top += r.heightOf(i)
	}
	return top
}

// widthWatcher lays its objects out to fill the container and reports
// width changes. When the height changes (the prompt box below grew) and
// pinned reports true before the resize, it calls toBottom after it, so
// that the end of the transcript stays in view.
type widthWatcher struct {
	onWidth  func(float32)
	pinned   func() bool
	toBottom func()
}

func (l *widthWatcher) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	pin := false
	if l.pinned != nil && len(objects) > 0 {
		if old := objects[0].Size(); old.Height > 0 && old.Height != size.Height {
			pin = l.pinned()
		}
	}
	for _, o := range objects {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
	l.onWidth(size.Width)
	if pin {
		l.toBottom()
	}
}

func (l *widthWatcher) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objects {
		m = m.Max(o.MinSize())
	}
	return m
}
