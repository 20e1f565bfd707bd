package views

import (
	"cmp"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

// Transcript shows the events of one session as cards in a virtualized
// widget.List. SetSession and AppendEvents build one light view-model row
// per event; the list creates card widgets only for the rows on screen.
//
// Transcript itself is only the wiring: the session shown, the empty note,
// the bars over the list, and the owners below, each with one job and its
// own state, reaching the others through the transcript (all on the Fyne
// goroutine, so none needs a lock):
//
//   - rows (rowList, transcript_measure.go): the events and compactions,
//     their rows, the list widget and the rows' measured heights;
//   - cards (cardSet, cards.go): what cards show beyond the rows (full
//     text, turn usage, fork), and binding a card to its row;
//   - nav (Navigator, navigate.go, transcript_keys.go): the keys, prompt
//     navigation and going to an event;
//   - find (FindBar, find.go): the find bar and the highlighted row;
//   - load (Loader, transcript_loading.go): the loading indicator and the
//     earlier bar.
type Transcript struct {
	actions Actions
	ref     SessionRef // the session shown, as MainView.ShowSession named it
	session store.Session
	// sessionRef is session's ref, kept with its rows when another session
	// is shown (ref already names the new one then).
	sessionRef SessionRef
	canvas     fyne.Canvas // the window's canvas, from MainView.BindShortcuts; nil: ask the driver

	rows  *rowList
	cards *cardSet
	nav   *Navigator
	find  *FindBar
	load  *Loader
	shown keptRows // the last sessions shown, laid out
	// expect is the seq of the event the next SetSession is followed by
	// showing (ExpectEvent); 0 for none.
	expect int64

	empty    *widget.Label
	emptyOff bool            // the empty note is under a panel (emptyHidden)
	top      *fyne.Container // the find and earlier bars
	root     *fyne.Container
}

// noSessionText is what an empty transcript says.
const noSessionText = "No session selected"

// NewTranscript returns an empty transcript.
func NewTranscript(a Actions) *Transcript {
	t := &Transcript{actions: a}
	t.cards = &cardSet{t: t, theme: currentThemeKey()}
	t.nav = &Navigator{t: t, row: -1}
	t.rows = newRowList(t)
	t.empty = widget.NewLabel(noSessionText)
	t.empty.Alignment = fyne.TextAlignCenter
	t.empty.Importance = widget.LowImportance
	t.find = newFindBar(t)
	t.load = newLoader(t)
	t.top = container.NewVBox(t.find.bar, t.load.earlierBar)
	t.top.Hide()
	t.root = container.NewBorder(t.top, nil, nil, nil, container.NewStack(t.rows.body, container.NewCenter(t.empty), t.load.box))
	return t
}

// Find returns the transcript's find bar.
func (t *Transcript) Find() *FindBar { return t.find }

// Nav returns the transcript's navigation: keys, prompts, going to an event.
func (t *Transcript) Nav() *Navigator { return t.nav }

// Loader returns the transcript's loading indicator and earlier bar.
func (t *Transcript) Loader() *Loader { return t.load }

// refreshTop shows the bars' row when a bar is shown (the border layout
// pads a shown top even when it is empty), and lays the transcript out.
func (t *Transcript) refreshTop() {
	if t.find.bar.Visible() || t.load.earlierBar.Visible() {
		t.top.Show()
	} else {
		t.top.Hide()
	}
	t.root.Refresh()
}

// PrependEvents adds events loaded before the first one shown (they end
// right before it), with earlier the events still not loaded before them.
// The row that was at the top stays where it was on screen. With no events
// and the same earlier count (a load that failed), only the bar's buttons
// are enabled again.
func (t *Transcript) PrependEvents(events []store.StoredEvent, earlier int) {
	earlier = max(earlier, 0)
	r := t.rows
	if len(events) == 0 && earlier == t.load.earlier {
		t.load.showEarlierBar()
		return
	}
	var anchor int64 = -1
	if len(r.events) > 0 {
		anchor = r.events[0].Seq
	}
	r.events = append(slices.Clip(events), r.events...)
	t.load.earlier = earlier
	r.rebuild()
	t.load.showEarlierBar()
	if row := r.rowOfSeq(anchor); row >= 0 {
		r.scroll.to(row)
	}
	r.settleInstall()
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
	earlier = max(earlier, 0)
	aim := t.expect
	t.expect = 0
	placed := false
	compactions = sortedCompactions(slices.Clone(compactions))
	other := !sameSession(s, t.session)
	if !other && earlier == t.load.earlier && t.rows.list != nil && len(t.rows.rows) > 0 &&
		sameEvents(t.rows.events, events) && slices.Equal(t.rows.compactions, compactions) {
		// The same events again (the load of a session shown from the
		// kept rows, a rename): nothing to lay out, and the view stays
		// where the user has it.
		t.session = s
		t.load.Hide()
		return
	}
	if other {
		t.keepShown()
		t.cards.forget() // another session: its full text comes with SetFullText and its usage with SetTurnUsage
	}
	t.session, t.sessionRef = s, t.ref
	t.load.earlier = earlier
	if e, ok := t.shown.take(s, events, compactions, earlier); other && ok {
		t.restore(e)
		t.load.showEarlierBar()
	} else {
		t.rows.events = slices.Clip(events)
		t.rows.compactions = compactions
		t.load.showEarlierBar()
		t.rows.aim = aim
		t.rows.rebuild()
		placed = t.rows.aim < 0
		t.rows.aim = 0
	}
	t.load.Hide()
	t.empty.Hide()
	if !placed {
		t.rows.list.ScrollToBottom()
	}
	t.rows.settleInstall()
}

// ExpectEvent tells the next SetSession or SetSessionTail that showing the
// event of seq follows it (a search hit, a link to an event): when its
// rows hold that event, the list opens with it at the top, measured,
// instead of at the session's end, which the view would leave at once. On
// a first visit to a session that was a view's worth of cards built and
// measured for nothing.
func (t *Transcript) ExpectEvent(seq int64) { t.expect = seq }

// AppendEvents adds live events at the end. When the view was scrolled to
// the bottom, it stays there.
func (t *Transcript) AppendEvents(events []store.StoredEvent) {
	if len(events) == 0 {
		return
	}
	bottom := t.rows.atBottom()
	t.rows.appendEvents(events)
	t.find.rowsAdded()
	if bottom {
		t.rows.list.ScrollToBottom()
	}
}

// AddCompaction inserts the summary card of a compaction that finished
// while the session is shown. The view stays at the bottom when it was there.
func (t *Transcript) AddCompaction(c store.Compaction) {
	r := t.rows
	bottom := r.atBottom()
	r.compactions = sortedCompactions(append(slices.Clip(r.compactions), c))
	r.rebuild()
	if bottom {
		r.list.ScrollToBottom()
	}
	r.settleInstall()
}

// sortedCompactions sorts compactions by AfterSeq, in place.
func sortedCompactions(cs []store.Compaction) []store.Compaction {
	slices.SortStableFunc(cs, func(a, b store.Compaction) int { return cmp.Compare(a.AfterSeq, b.AfterSeq) })
	return cs
}

// SetFullText gives the full text of the shown session's shortened
// events, by seq (store.FullTextService.Of); the cards of those events offer
// it behind their toggle. SetSession keeps what was given: call it after.
func (t *Transcript) SetFullText(full map[int64]string) { t.cards.setFullText(full) }

// AddFullText adds the full text of events about to be appended (by seq,
// as store.FullTextService.Range gives it).
func (t *Transcript) AddFullText(full map[int64]store.FullText) { t.cards.addFullText(full) }

// SetTurnUsage gives the usage of the session's turns; each completion
// row shows the tokens and cost of the turn it ends. SetSession drops it
// when another session is shown.
func (t *Transcript) SetTurnUsage(turns []TurnUsage) { t.cards.setTurnUsage(turns) }

// emptyHidden hides (or shows again) the "No session selected" note, under
// a panel that takes its place.
func (t *Transcript) emptyHidden(hidden bool) {
	t.emptyOff = hidden
	if hidden {
		t.empty.Hide()
	} else if len(t.rows.rows) == 0 && t.rows.events == nil {
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
	t.keepShown()
	t.session = store.Session{}
	t.rows.events, t.rows.compactions = nil, nil
	t.cards.forget()
	t.load.earlier = 0
	t.load.showEarlierBar()
	t.rows.replace(nil)
	t.rows.settleInstall()
	t.load.Hide()
	t.empty.SetText(noSessionText)
	if !t.emptyOff {
		t.empty.Show()
	}
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

// Shortcuts returns the keyboard shortcuts the transcript handles (Ctrl+F,
// Cmd+F on macOS, for find; Ctrl+Home and Ctrl+End to scroll). The
// window's owner registers them on its canvas and passes them to
// HandleShortcut.
func (t *Transcript) Shortcuts() []fyne.Shortcut {
	return append([]fyne.Shortcut{Shortcut(KeyFind)}, scrollShortcuts()...)
}

// HandleShortcut runs the transcript's action for s and reports whether s
// is one of Shortcuts.
func (t *Transcript) HandleShortcut(s fyne.Shortcut) bool {
	if s.ShortcutName() == t.Shortcuts()[0].ShortcutName() {
		t.find.Show()
		return true
	}
	for _, sc := range scrollShortcuts() {
		if s.ShortcutName() == sc.ShortcutName() {
			return t.nav.ScrollKey(sc.(*desktop.CustomShortcut).KeyName)
		}
	}
	return false
}
