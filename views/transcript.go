package views

import (
	"cmp"
	"fmt"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/store"
)

// maxPremeasure caps the rows SetSession measures before showing them.
const maxPremeasure = 100

// Transcript shows the events of one session as cards in a virtualized
// widget.List. SetSession and AppendEvents build one light view-model row
// per event; the list creates card widgets only for the rows on screen.
//
// Row heights: each card is measured (its MinSize at the list's width) when
// the list first shows it, and the height is handed to List.SetItemHeight
// through fyne.Do, which in the running app runs after the list's layout
// pass (the test driver runs it at once; a guard keeps that re-entry to one
// level). SetSession measures the rows it scrolls to before showing the
// list. A width change re-measures the rows shown.
type Transcript struct {
	actions     Actions
	ref         SessionRef // the session shown, as MainView.ShowSession named it
	session     store.Session
	events      []store.StoredEvent
	compactions []store.Compaction
	// full is the full text of shortened events, by seq (the whole tool
	// output or Write content, store.FullTextTable): a card offers it
	// behind its toggle.
	full    map[int64]string
	earlier int // the session's events before events[0] that are not loaded
	// turns is the usage of the session's turns, by FirstSeq, for the
	// completion rows (SetTurnUsage).
	turns []TurnUsage
	rows  []transcriptRow
	gen   uint64   // bumped whenever cards must be rebound
	theme themeKey // the theme the cards show

	heights    []float32       // measured height per row; 0 until measured
	widths     []float32       // the width each height was measured at
	pending    map[int]float32 // measured heights the list has not been given
	target     int             // the row to keep shown while heights settle; -1 for none
	targetFrac float32         // the part of target to show when it is taller than the view
	scheduled  bool
	installing bool
	flushing   bool
	post       func(func()) // runs a function on a later turn of the event loop
	width      float32
	template   float32 // the height the list gives unmeasured rows
	measurer   *card   // an off-screen card for measuring rows
	total      float32 // the sum of the row heights the list uses

	findRow int         // the row of the current find match; -1 for none
	navRow  int         // the prompt NextPrompt or PreviousPrompt last went to; -1 for none
	canvas  fyne.Canvas // the window's canvas, from MainView.BindShortcuts; nil: ask the driver
	lower   []string    // lower-case row texts for find, built on first use

	list  *transcriptList
	body  *fyne.Container
	empty *widget.Label
	// readOnly: the window writes nothing (MainView.SetReadOnly), so no
	// prompt card offers "Fork from here".
	readOnly bool
	emptyOff bool // the empty note is under a panel (emptyHidden)
	find     *finder
	root     *fyne.Container

	top          *fyne.Container // the find and earlier bars
	earlierBar   *fyne.Container // shown while earlier > 0
	earlierLabel *widget.Label
	earlierMore  *widget.Button
	earlierAll   *widget.Button
	// earlierProgress moves while earlier events load.
	earlierProgress *widget.ProgressBarInfinite
	loading         *loadingView // shown in place while a session loads
}

// noSessionText is what an empty transcript says.
const noSessionText = "No session selected"

// NewTranscript returns an empty transcript.
func NewTranscript(a Actions) *Transcript {
	t := &Transcript{actions: a, post: fyne.Do, findRow: -1, navRow: -1, target: -1, theme: currentThemeKey()}
	t.template = newCard(t).MinSize().Height
	t.empty = widget.NewLabel(noSessionText)
	t.empty.Alignment = fyne.TextAlignCenter
	t.empty.Importance = widget.LowImportance
	t.list = t.newList()
	t.body = container.New(&widthWatcher{onWidth: t.onWidth, pinned: t.atBottom,
		toBottom: func() { t.list.ScrollToBottom() }}, t.list)
	t.find = newFinder(t)
	t.newEarlierBar()
	t.top = container.NewVBox(t.find.bar, t.earlierBar)
	t.top.Hide()
	t.loading = newLoadingView()
	t.root = container.NewBorder(t.top, nil, nil, nil, container.NewStack(t.body, container.NewCenter(t.empty), t.loading.box))
	return t
}

// refreshTop shows the bars' row when a bar is shown (the border layout
// pads a shown top even when it is empty), and lays the transcript out.
func (t *Transcript) refreshTop() {
	if t.find.bar.Visible() || t.earlierBar.Visible() {
		t.top.Show()
	} else {
		t.top.Hide()
	}
	t.root.Refresh()
}

// newEarlierBar makes the bar over a session shown from its newest events:
// how many earlier events are not loaded, and buttons to load them.
func (t *Transcript) newEarlierBar() {
	t.earlierLabel = widget.NewLabel("")
	t.earlierLabel.Importance = widget.LowImportance
	t.earlierLabel.Truncation = fyne.TextTruncateEllipsis
	t.earlierMore = widget.NewButtonWithIcon("Earlier", theme.MoveUpIcon(), func() { t.loadEarlier(false) })
	t.earlierAll = widget.NewButton("All", func() { t.loadEarlier(true) })
	for _, b := range []*widget.Button{t.earlierMore, t.earlierAll} {
		b.Importance = widget.LowImportance
	}
	t.earlierProgress = widget.NewProgressBarInfinite()
	t.earlierProgress.Stop()
	t.earlierProgress.Hide()
	t.earlierBar = container.NewBorder(nil, nil, nil,
		container.NewHBox(container.NewGridWrap(fyne.NewSize(120, t.earlierProgress.MinSize().Height), t.earlierProgress),
			t.earlierMore, t.earlierAll), t.earlierLabel)
	t.earlierBar.Hide()
}

// loadEarlier asks for the session's earlier events (all of them, or the
// next batch); they arrive through PrependEvents. The buttons stay
// disabled until then.
func (t *Transcript) loadEarlier(all bool) {
	if t.earlier <= 0 || t.earlierMore.Disabled() {
		return
	}
	t.earlierMore.Disable()
	t.earlierAll.Disable()
	t.showEarlierLoading(all)
	t.actions.LoadEarlier(t.ref, all)
}

// Earlier returns how many of the session's events, before those shown,
// are not loaded.
func (t *Transcript) Earlier() int { return t.earlier }

// showEarlierBar shows or hides the earlier bar as t.earlier says.
func (t *Transcript) showEarlierBar() {
	t.hideEarlierLoading()
	if t.earlier == 0 {
		t.earlierBar.Hide()
		t.refreshTop()
		return
	}
	t.earlierLabel.SetText(fmt.Sprintf("Showing the newest %s of %s events; find covers these.",
		display.Count(int64(len(t.events))), display.Count(int64(len(t.events)+t.earlier))))
	t.earlierMore.Enable()
	t.earlierAll.Enable()
	t.earlierBar.Show()
	t.refreshTop()
}

// PrependEvents adds events loaded before the first one shown (they end
// right before it), with earlier the events still not loaded before them.
// The row that was at the top stays where it was on screen. With no events
// and the same earlier count (a load that failed), only the bar's buttons
// are enabled again.
func (t *Transcript) PrependEvents(events []store.StoredEvent, earlier int) {
	earlier = max(earlier, 0)
	if len(events) == 0 && earlier == t.earlier {
		t.showEarlierBar()
		return
	}
	var anchor int64 = -1
	if len(t.events) > 0 {
		anchor = t.events[0].Seq
	}
	t.events = append(slices.Clip(events), t.events...)
	t.earlier = earlier
	t.rebuildRows()
	t.showEarlierBar()
	if row := t.rowOfSeq(anchor); row >= 0 {
		t.scrollTo(row)
	}
}

// rowOfSeq returns the row of the event with seq, or -1.
func (t *Transcript) rowOfSeq(seq int64) int {
	for i := range t.rows {
		if r := &t.rows[i]; !isSideRow(r.kind) && t.events[r.event].Seq == seq {
			return i
		}
	}
	return -1
}

// rebuildRows makes the rows anew from the events and compactions. While
// earlier events are not loaded, compactions of those are left out.
func (t *Transcript) rebuildRows() {
	t.replaceRows(buildRowsFrom(t.events, t.compactions, t.firstShownCompaction()))
}

// firstShownCompaction returns the index of the first compaction to show:
// while earlier events are not loaded, those that end before the events
// shown are left out.
func (t *Transcript) firstShownCompaction() int {
	if t.earlier == 0 || len(t.events) == 0 {
		return 0
	}
	first, _ := slices.BinarySearchFunc(t.compactions, t.events[0].Seq-1, func(c store.Compaction, seq int64) int {
		return cmp.Compare(c.AfterSeq, seq)
	})
	return first
}

// Content returns the transcript's canvas object.
func (t *Transcript) Content() fyne.CanvasObject { return t.root }

// Session returns the session shown.
func (t *Transcript) Session() store.Session { return t.session }

// SetSession shows a session: its events (in seq order) with each
// compaction's summary card after the last event it covers. The view
// scrolls to the end. events is kept; the caller must not modify it.
func (t *Transcript) SetSession(s store.Session, events []store.StoredEvent, compactions []store.Compaction) {
	t.SetSessionTail(s, events, compactions, 0)
}

// SetSessionTail is SetSession for a session shown from its end: earlier
// of its events, before events, are not loaded. While earlier > 0 a bar
// over the transcript says so and offers to load them (Actions.LoadEarlier,
// answered with PrependEvents), and the compactions of those events are
// left out.
func (t *Transcript) SetSessionTail(s store.Session, events []store.StoredEvent, compactions []store.Compaction, earlier int) {
	if s.ID != t.session.ID || s.Created != t.session.Created {
		t.full = nil  // another session: its full text comes with SetFullText
		t.turns = nil // and its usage with SetTurnUsage
	}
	t.session = s
	t.events = slices.Clip(events)
	t.compactions = sortedCompactions(slices.Clone(compactions))
	t.earlier = max(earlier, 0)
	t.showEarlierBar()
	t.rebuildRows()
	t.HideLoading()
	t.empty.Hide()
	t.list.ScrollToBottom()
}

// AppendEvents adds live events at the end. When the view was scrolled to
// the bottom, it stays there.
func (t *Transcript) AppendEvents(events []store.StoredEvent) {
	if len(events) == 0 {
		return
	}
	bottom := t.atBottom()
	first := len(t.events)
	t.events = append(t.events, events...)
	n := len(t.rows)
	t.rows = appendRows(t.rows, events, first)
	added := len(t.rows) - n // thinking and failures add rows of their own
	t.heights = append(t.heights, make([]float32, added)...)
	t.total += float32(added) * t.template
	t.widths = append(t.widths, make([]float32, added)...)
	t.list.Refresh()
	t.find.rowsAdded()
	if bottom {
		t.list.ScrollToBottom()
	}
}

// AddCompaction inserts the summary card of a compaction that finished
// while the session is shown. The view stays at the bottom when it was there.
func (t *Transcript) AddCompaction(c store.Compaction) {
	bottom := t.atBottom()
	t.compactions = sortedCompactions(append(slices.Clip(t.compactions), c))
	t.rebuildRows()
	if bottom {
		t.list.ScrollToBottom()
	}
}

// sortedCompactions sorts compactions by AfterSeq, in place.
func sortedCompactions(cs []store.Compaction) []store.Compaction {
	slices.SortStableFunc(cs, func(a, b store.Compaction) int { return cmp.Compare(a.AfterSeq, b.AfterSeq) })
	return cs
}

// SetFullText gives the full text of the shown session's shortened
// events, by seq (store.Store.FullTexts); the cards of those events offer
// it behind their toggle. SetSession keeps what was given: call it after.
func (t *Transcript) SetFullText(full map[int64]string) {
	t.full = full
	t.gen++ // rebind: toggles appear
	clear(t.widths)
	t.list.Refresh()
}

// AddFullText adds the full text of events about to be appended (by seq,
// as store.Store.FullTextsRange gives it).
func (t *Transcript) AddFullText(full map[int64]store.FullText) {
	for seq, f := range full {
		if t.full == nil {
			t.full = map[int64]string{}
		}
		t.full[seq] = f.Text
	}
}

// fullOf returns the full text of row id's event, if one was given.
func (t *Transcript) fullOf(id int) (string, bool) {
	r := &t.rows[id]
	if r.event < 0 || t.full == nil {
		return "", false
	}
	s, ok := t.full[t.events[r.event].Seq]
	return s, ok
}

// emptyHidden hides (or shows again) the "No session selected" note, under
// a panel that takes its place.
func (t *Transcript) emptyHidden(hidden bool) {
	t.emptyOff = hidden
	if hidden {
		t.empty.Hide()
	} else if len(t.rows) == 0 && t.events == nil {
		t.empty.Show()
	}
}

// ShowEmpty empties the transcript and shows text in its place, e.g. for
// a new session that is not stored yet.
func (t *Transcript) ShowEmpty(text string) {
	t.Clear()
	t.empty.SetText(text)
}

// Clear empties the transcript.
func (t *Transcript) Clear() {
	t.session = store.Session{}
	t.events, t.compactions, t.full, t.turns = nil, nil, nil, nil
	t.earlier = 0
	t.showEarlierBar()
	t.replaceRows(nil)
	t.HideLoading()
	t.empty.SetText(noSessionText)
	if !t.emptyOff {
		t.empty.Show()
	}
}

// replaceRows installs rows in a new list: a List keeps the heights set on
// its item ids, which mean nothing for other rows.
func (t *Transcript) replaceRows(rows []transcriptRow) {
	t.gen++
	t.rows = rows
	t.heights = make([]float32, len(rows))
	t.widths = make([]float32, len(rows))
	t.total = float32(len(rows)) * t.template
	t.pending = make(map[int]float32)
	t.target = -1
	t.lower = nil
	t.findRow = -1
	t.list = t.newList()
	t.premeasureTail()
	t.installing = true // the first layout shows the top rows, which SetSession scrolls away from
	t.body.Objects = []fyne.CanvasObject{t.list}
	t.body.Refresh()
	t.installing = false
	t.find.reset()
}

// premeasureTail measures the last rows, which SetSession scrolls to, off
// screen and gives their heights to the list before it is shown: the list
// then opens at its final layout, and setting heights on a list that has
// no renderer yet costs no re-layout.
func (t *Transcript) premeasureTail() {
	size := t.body.Size()
	if size.Width <= 0 {
		return
	}
	if t.measurer == nil {
		t.measurer = newCard(t)
	}
	var sum float32
	for id := len(t.rows) - 1; id >= 0 && sum < size.Height && len(t.rows)-id <= maxPremeasure; id-- {
		t.measurer.bind(id)
		h := t.measurer.heightFor(size.Width)
		t.setHeight(id, h)
		sum += h
	}
}

func (t *Transcript) newList() *transcriptList {
	l := &transcriptList{onRune: t.typedRune, onKey: t.ScrollKey}
	l.Length, l.CreateItem, l.UpdateItem = t.length, t.createItem, t.updateItem
	l.HideSeparators = true
	l.ExtendBaseWidget(l)
	return l
}

func (t *Transcript) length() int { return len(t.rows) }

func (t *Transcript) createItem() fyne.CanvasObject { return newCard(t) }

func (t *Transcript) updateItem(id widget.ListItemID, o fyne.CanvasObject) {
	if id < 0 || id >= len(t.rows) {
		return
	}
	if k := currentThemeKey(); k != t.theme {
		t.theme = k // colours and sizes changed: rebind and re-measure every card
		t.gen++
		clear(t.widths)
	}
	c := o.(*card)
	c.bind(id)
	t.measure(id, c)
}
