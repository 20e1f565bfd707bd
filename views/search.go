package views

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/lazuli-app/lazuli/trace"
)

// searchDebounce is how long the panel waits after a keystroke before it
// sends the query; 0 sends it at once. The window's search pauses itself
// before it reads the index (SearchActions.Search): a pause here would add
// a second hand-off to the Fyne goroutine to the time from the last key to
// the results.
const searchDebounce = 0

// SearchHit is one result row of the search panel.
type SearchHit struct {
	Ref        SessionRef
	Session    string // display name
	Worktree   string
	Seq        int64
	Kind       string // a store.Kind, or "Compaction" for a summary
	Time       string // the session's created time, raw UTC "YYYY-MM-DD HH:MM:SS"
	Snippet    string
	Highlights [][2]int // byte ranges of Snippet to show in bold
	// InFull marks a match in the full text of a shortened event (the
	// whole tool output or Write content), at byte Offset of it: opening
	// the hit opens that text at the match.
	InFull bool
	Offset int
}

// SearchResults is what the app found for one query.
type SearchResults struct {
	Hits []SearchHit // newest first
	More bool        // there are more hits than Hits
	// Partial reports that the search stopped before it checked every
	// event (its time budget ran out, or the index is still being built):
	// matches may be missing, and Note says why.
	Partial bool
	Note    string // a remark on the results, e.g. why they may be incomplete
	Err     string // why there are no results: a query to change, a failure
}

// SearchPanel is the Ctrl+K panel that searches every session of the
// window: a query entry, a status line and the hits, newest first. Typing
// sends the query after a short pause; Up and Down move through the hits,
// Enter or a click opens one, Escape closes the panel. Its methods must be
// called on the Fyne goroutine.
type SearchPanel struct {
	actions  SearchActions
	entry    *searchEntry
	status   *widget.Label
	list     *widget.List
	closeBtn *widget.Button
	content  fyne.CanvasObject
	overlay  *paletteOverlay
	canvas   fyne.Canvas // the canvas the panel is shown over, or was last
	backdrop *Backdrop   // freezes the window under the panel; nil for none

	hits      []SearchHit
	result    SearchResults
	cur       int    // the hit Up, Down and Enter act on; -1 for none
	sent      int    // id of the latest query sent
	query     string // the latest query sent
	indexing  string // the indexer's progress, e.g. "Indexing… 45%"
	selecting bool   // the list's selection is being set by the keyboard
	waiting   bool   // a query was sent and its results have not come

	probe *frameProbe // with LAZULI_TRACE: the panel's own frame probe (it is an overlay)

	debounce time.Duration
	keys     int                                     // changes of the query; a debounce timer sends only for the latest
	timer    func() bool                             // stops the pending send; nil for none
	after    func(time.Duration, func()) func() bool // runs f on the Fyne goroutine after d; returns its stop
	now      func() time.Time
}

// NewSearchPanel returns a hidden search panel that sends its intents to a.
func NewSearchPanel(a SearchActions) *SearchPanel {
	p := &SearchPanel{actions: a, cur: -1, debounce: searchDebounce, now: time.Now, after: afterFunc}
	p.entry = newSearchEntry(p)
	p.entry.SetPlaceHolder("Search every session: words, a path, a command, \"an exact phrase\"")
	p.entry.OnChanged = p.onChanged
	p.status = widget.NewLabel("")
	p.status.Importance = widget.LowImportance
	p.status.Wrapping = fyne.TextWrapWord
	p.list = widget.NewList(p.length, p.createItem, p.updateItem)
	p.list.OnSelected = p.onSelected
	p.closeBtn = widget.NewButtonWithIcon("", theme.CancelIcon(), p.Hide)
	p.closeBtn.Importance = widget.LowImportance
	top := container.NewVBox(container.NewBorder(nil, nil, nil, p.closeBtn, p.entry), p.status)
	p.content = container.NewBorder(top, nil, nil, nil, p.list)
	if trace.On() {
		p.probe = newFrameProbe()
		p.content = container.NewStack(p.content, p.probe.layer())
	}
	return p
}

// Content returns the panel's canvas object.
func (p *SearchPanel) Content() fyne.CanvasObject { return p.content }

// Show opens the panel over canvas c with the focus in its entry. A query
// left from the last time is searched again: the results may have changed.
//
// The panel floats over the window as a command palette does, with no
// backdrop over the window: a click outside it closes it. A modal pop-up
// dims the whole window with a rectangle over it, repainted in every frame
// the panel is open (each key typed, each answer): in software rendering
// that was a third of such a frame. When nothing else floats over the
// window, the window under the panel is frozen into a picture of itself
// (SetBackdrop) for as long as the panel is open.
func (p *SearchPanel) Show(c fyne.Canvas) {
	if p.overlay == nil {
		p.overlay = newPaletteOverlay(p.content, p.Hide)
	}
	if !p.Visible() {
		if p.canvas != nil && p.canvas != c {
			p.canvas.Overlays().Remove(p.overlay)
		}
		alone := len(c.Overlays().List()) == 0
		c.Overlays().Add(p.overlay)
		p.canvas = c
		if alone && p.backdrop != nil {
			p.backdrop.Freeze(c)
		}
	}
	c.Focus(p.entry)
	if strings.TrimSpace(p.entry.Text) != "" {
		p.send()
	}
}

// SetBackdrop gives the panel the window's backdrop, frozen while the
// panel is open.
func (p *SearchPanel) SetBackdrop(b *Backdrop) { p.backdrop = b }

// Hide closes the panel.
func (p *SearchPanel) Hide() { p.close(true) }

// close closes the panel; thaw false leaves the window frozen for the app
// to thaw once it has shown the hit opened (at the latest after
// openThawLimit).
func (p *SearchPanel) close(thaw bool) {
	p.stopTimer()
	if p.canvas != nil && p.overlay != nil {
		p.canvas.Overlays().Remove(p.overlay)
	}
	switch {
	case p.backdrop == nil:
	case thaw:
		p.backdrop.Thaw()
	default:
		p.backdrop.ThawWithin(openThawLimit)
	}
}

// openThawLimit is how long the window stays frozen after a hit is opened
// when the app does not thaw it first.
const openThawLimit = time.Second

// Visible reports whether the panel is shown.
func (p *SearchPanel) Visible() bool {
	if p.canvas == nil || p.overlay == nil {
		return false
	}
	for _, o := range p.canvas.Overlays().List() {
		if o == p.overlay {
			return true
		}
	}
	return false
}

// Query returns the text of the entry.
func (p *SearchPanel) Query() string { return p.entry.Text }

// SetQuery puts q in the entry, which sends it like typing does.
func (p *SearchPanel) SetQuery(q string) { p.entry.SetText(q) }

// SetResults shows the results of query id; results of an older query are
// dropped.
func (p *SearchPanel) SetResults(id int, r SearchResults) {
	if id != p.sent {
		return
	}
	p.waiting = false
	p.result, p.hits = r, r.Hits
	p.cur = -1
	if len(p.hits) > 0 {
		p.cur = 0
	}
	p.selecting = true
	p.list.UnselectAll()
	p.selecting = false
	p.list.Refresh()
	if len(p.hits) > 0 && p.list.GetScrollOffset() > 0 {
		p.list.ScrollToTop() // lays the rows out again: only when scrolled
	}
	p.updateStatus()
	p.probe.mark("search " + p.query)
}

// Hits returns the hits shown.
func (p *SearchPanel) Hits() []SearchHit { return p.hits }

// Selected returns the index of the hit Enter opens; -1 for none.
func (p *SearchPanel) Selected() int { return p.cur }

// Status returns the status line's text.
func (p *SearchPanel) Status() string { return p.status.Text }

// SetIndexing shows the background indexer's progress, e.g. "Indexing…
// 45%"; "" when it is idle.
func (p *SearchPanel) SetIndexing(text string) {
	if text == p.indexing {
		return
	}
	p.indexing = text
	p.updateStatus()
}

// onChanged sends the query after the debounce pause.
func (p *SearchPanel) onChanged(q string) {
	trace.Mark("input", "search "+q)
	p.stopTimer()
	if p.debounce <= 0 {
		p.send()
		return
	}
	p.keys++
	n := p.keys
	p.timer = p.after(p.debounce, func() {
		if n == p.keys { // a timer that fired just before the next key sends nothing: that key's timer will
			p.send()
		}
	})
}

// afterFunc runs f on the Fyne goroutine after d, and returns the function
// that stops it.
func afterFunc(d time.Duration, f func()) func() bool {
	return time.AfterFunc(d, func() { fyne.Do(f) }).Stop
}

func (p *SearchPanel) stopTimer() {
	if p.timer != nil {
		p.timer()
		p.timer = nil
	}
}

// send sends the entry's query, unless it was sent already; an empty query
// just clears the results.
func (p *SearchPanel) send() {
	p.timer = nil
	q := p.entry.Text
	p.sent++
	p.query = q
	if strings.TrimSpace(q) == "" {
		p.waiting = false
		p.SetResults(p.sent, SearchResults{})
		return
	}
	p.waiting = true
	p.updateStatus()
	p.actions.Search(p.sent, q)
}

// updateStatus writes the status line: the count or the error, the note
// and the indexer's progress.
func (p *SearchPanel) updateStatus() {
	var parts []string
	r := p.result
	switch {
	case p.waiting:
		parts = append(parts, "Searching…")
	case r.Err != "":
		parts = append(parts, r.Err)
	case strings.TrimSpace(p.query) == "":
	case r.Partial && len(r.Hits) == 0:
		parts = append(parts, "Partial results: no matches found so far.")
	case r.Partial && len(r.Hits) == 1:
		parts = append(parts, "Partial results: 1 match found so far.")
	case r.Partial:
		parts = append(parts, "Partial results: "+strconv.Itoa(len(r.Hits))+" matches found so far.")
	case len(r.Hits) == 0:
		parts = append(parts, "No matches.")
	case r.More:
		parts = append(parts, "The newest "+strconv.Itoa(len(r.Hits))+" matches.")
	case len(r.Hits) == 1:
		parts = append(parts, "1 match.")
	default:
		parts = append(parts, strconv.Itoa(len(r.Hits))+" matches.")
	}
	if r.Note != "" && !p.waiting {
		parts = append(parts, r.Note)
	}
	if p.indexing != "" {
		parts = append(parts, p.indexing)
	}
	p.status.SetText(strings.Join(parts, " "))
}

// move moves the keyboard selection by delta hits.
func (p *SearchPanel) move(delta int) {
	if len(p.hits) == 0 {
		return
	}
	p.cur = min(max(p.cur+delta, 0), len(p.hits)-1)
	p.selecting = true
	p.list.Select(p.cur)
	p.selecting = false
	p.list.ScrollTo(p.cur)
}

// openCurrent opens the selected hit (Enter).
func (p *SearchPanel) openCurrent() {
	p.stopTimer()
	if p.cur >= 0 && p.cur < len(p.hits) {
		p.open(p.cur)
	}
}

func (p *SearchPanel) onSelected(id widget.ListItemID) {
	if p.selecting {
		return
	}
	p.list.UnselectAll()
	if id >= 0 && id < len(p.hits) {
		p.cur = id
		p.open(id)
	}
}

// open closes the panel and asks the app to show hit i. The window stays
// frozen under where the panel was until the app has shown the hit: the
// frame in between would paint the whole window as it was, which the
// session's rows then wait behind.
func (p *SearchPanel) open(i int) {
	trace.Mark("input", "open_hit")
	h := p.hits[i]
	p.close(false)
	p.actions.OpenSearchHit(h)
}

func (p *SearchPanel) length() int { return len(p.hits) }

func (p *SearchPanel) createItem() fyne.CanvasObject { return newSearchRow() }

func (p *SearchPanel) updateItem(id widget.ListItemID, o fyne.CanvasObject) {
	if id < 0 || id >= len(p.hits) {
		return
	}
	o.(*searchRow).update(&p.hits[id], p.now())
}

// searchRow shows a hit: the session, worktree, time and kind on one line,
// the snippet with its matches in bold under it.
type searchRow struct {
	widget.BaseWidget
	head    *runLine
	snippet *runLine
	root    *fyne.Container
}

func newSearchRow() *searchRow {
	r := &searchRow{head: newRunLine(), snippet: newRunLine()}
	r.root = container.NewVBox(r.head, r.snippet)
	r.ExtendBaseWidget(r)
	return r
}

// CreateRenderer returns a renderer of the row's two lines.
func (r *searchRow) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(r.root)
}

func (r *searchRow) update(h *SearchHit, now time.Time) {
	when := h.Time
	if t, err := time.ParseInLocation(createdLayout, h.Time, time.UTC); err == nil {
		when = relativeTime(now, t)
	}
	r.head.Set([]textRun{
		{Text: h.Session, Style: fyne.TextStyle{Bold: true}},
		{Text: "  " + h.Worktree + " · " + when + " · " + kindLabel(h.Kind), Color: theme.ColorNamePlaceHolder, Size: theme.SizeNameCaptionText},
	})
	r.snippet.Set(snippetRuns(h.Snippet, h.Highlights))
}

// kindLabel names an event kind for people.
func kindLabel(kind string) string {
	switch kind {
	case "UserMessage":
		return "prompt"
	case "AssistantText":
		return "reply"
	case "ToolCall":
		return "tool call"
	case "ToolResult":
		return "tool result"
	case "Compaction":
		return "compaction summary"
	}
	return strings.ToLower(kind)
}

// snippetRuns splits a snippet into plain and bold runs at its
// highlights, ignoring ranges that are out of order or not on rune
// boundaries.
func snippetRuns(s string, hl [][2]int) []textRun {
	bold := fyne.TextStyle{Bold: true}
	var runs []textRun
	at := 0
	for _, r := range hl {
		if r[0] < at || r[1] > len(s) || r[0] >= r[1] || !utf8.ValidString(s[r[0]:r[1]]) || !utf8.RuneStart(s[r[0]]) {
			continue
		}
		if r[0] > at {
			runs = append(runs, textRun{Text: expandTabs(s[at:r[0]])})
		}
		runs = append(runs, textRun{Text: expandTabs(s[r[0]:r[1]]), Style: bold, Color: theme.ColorNamePrimary})
		at = r[1]
	}
	if at < len(s) || len(runs) == 0 {
		runs = append(runs, textRun{Text: expandTabs(s[at:])})
	}
	return runs
}

// searchEntry is the panel's query entry: Up and Down move through the
// hits, Enter opens the selected one and Escape closes the panel.
type searchEntry struct {
	widget.Entry
	panel *SearchPanel
}

func newSearchEntry(p *SearchPanel) *searchEntry {
	e := &searchEntry{panel: p}
	e.ExtendBaseWidget(e)
	return e
}

// TypedKey handles the panel's keys and passes the others to the entry.
func (e *searchEntry) TypedKey(k *fyne.KeyEvent) {
	switch k.Name {
	case fyne.KeyDown:
		e.panel.move(1)
	case fyne.KeyUp:
		e.panel.move(-1)
	case fyne.KeyReturn, fyne.KeyEnter:
		e.panel.openCurrent()
	case fyne.KeyEscape:
		e.panel.Hide()
	default:
		e.Entry.TypedKey(k)
	}
}

// ShowThought scrolls the transcript to the first thinking that came
// before the event with seq, opens it and highlights it. It reports
// whether there is one.
func (n *Navigator) ShowThought(seq int64) bool {
	rows := n.t.rows
	for i := range rows.rows {
		if r := &rows.rows[i]; r.kind == rowThinking && rows.events[r.event].Seq == seq {
			if !r.open {
				rows.toggle(i)
			}
			n.t.find.setRow(i)
			rows.scroll.to(i)
			return true
		}
	}
	return n.ShowEvent(seq, false)
}

// ShowEvent scrolls the transcript to the event with seq (or, for a
// compaction summary, to the summary that follows seq) and highlights its
// row. When no row has that seq (the read-time filter hid the event), the
// first row after it is shown. It reports whether a row was found.
func (n *Navigator) ShowEvent(seq int64, compaction bool) bool {
	rows := n.t.rows
	row := rows.rowAtSeq(seq, compaction, false)
	if row < 0 {
		return false
	}
	n.t.find.setRow(row)
	rows.scroll.to(row)
	return true
}

// ShowFullEvent shows the event with seq like ShowEvent, with its full
// output (or Write content) open, scrolled to the line holding byte
// offset of that full text: where a search hit matched text that the
// shortened card does not show. It reports whether the row was found.
func (n *Navigator) ShowFullEvent(seq int64, offset int) bool {
	rows := n.t.rows
	row := rows.rowOfSeq(seq)
	full, ok := "", false
	if row >= 0 {
		full, ok = n.t.cards.fullOf(row)
	}
	if !ok {
		return n.ShowEvent(seq, false)
	}
	if !rows.rows[row].open {
		rows.toggle(row)
	}
	n.t.find.setRow(row)
	rows.scroll.to(row)
	line := strings.Count(full[:min(max(offset, 0), len(full))], "\n")
	rows.post(func() { // after the opened card has its height
		rows.scroll.target = -1
		y := rows.rowTop(row) + rows.template + float32(line)*lineHeight() - rows.body.Size().Height/3
		rows.list.ScrollToOffset(max(y, rows.rowTop(row)))
	})
	return true
}

// lineHeight is the height of one line of monospace card text.
func lineHeight() float32 {
	return fyne.MeasureText("M", theme.Size(theme.SizeNameText), fyne.TextStyle{Monospace: true}).Height
}
