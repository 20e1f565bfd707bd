package views

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// cardSet owns the transcript's cards: binding a card to its row, what
// cards show beyond the rows (the full text of shortened events, the usage
// of turns on completion rows, "Fork from here"), and when every card must
// be bound again.
type cardSet struct {
	t *Transcript
	// theme is the theme the cards show.
	theme themeKey
	// full is the full text of shortened events, by seq (the whole tool
	// output or Write content, store.FullTextTable): a card offers it
	// behind its toggle.
	full map[int64]string
	// turns is the usage of the session's turns, by FirstSeq, for the
	// completion rows (SetTurnUsage).
	turns []TurnUsage
	// readOnly: the window writes nothing (MainView.SetReadOnly), so no
	// prompt card offers "Fork from here".
	readOnly bool

	shows int // cards filled for a row: what a change costs, for tests
}

// createItem returns a list item: a slot holding a card, so that a card
// built and measured off screen can take the place of the one it holds.
func (cs *cardSet) createItem() fyne.CanvasObject { return container.NewStack(newCard(cs.t)) }

func (cs *cardSet) updateItem(id widget.ListItemID, o fyne.CanvasObject) {
	r := cs.t.rows
	if id < 0 || id >= len(r.rows) {
		return
	}
	if k := currentThemeKey(); k != cs.theme {
		cs.theme = k // colours and sizes changed: rebind and re-measure every card
		r.gen = nextGen()
		clear(r.widths)
		cs.t.shown.clear() // the sessions kept were drawn in the old theme
	}
	slot := o.(*fyne.Container)
	c := r.built.into(slot, id)
	if r.installing {
		// A new list's first layout shows its top rows, which the caller
		// scrolls away from in the same turn (to the end, to an event):
		// binding them would build cards no frame shows. settleInstall
		// binds those still on screen after the scroll.
		r.skipped = true
		return
	}
	c.bind(id)
	r.measure(id, c)
}

// forget drops what was given for the session shown: another is shown.
func (cs *cardSet) forget() { cs.full, cs.turns = nil, nil }

// setFullText is Transcript.SetFullText.
func (cs *cardSet) setFullText(full map[int64]string) {
	if len(full) == 0 && len(cs.full) == 0 {
		return
	}
	old := cs.full
	cs.full = full
	cs.t.rows.changed(func(r *transcriptRow, seq int64) bool { // their toggles appear or go, or the text changed
		before, was := old[seq]
		now, is := full[seq]
		return was != is || before != now
	})
}

// addFullText is Transcript.AddFullText.
func (cs *cardSet) addFullText(full map[int64]store.FullText) {
	for seq, f := range full {
		if cs.full == nil {
			cs.full = map[int64]string{}
		}
		cs.full[seq] = f.Text
	}
}

// fullOf returns the full text of row id's event, if one was given.
func (cs *cardSet) fullOf(id int) (string, bool) {
	r := cs.t.rows
	row := &r.rows[id]
	if row.event < 0 || cs.full == nil {
		return "", false
	}
	s, ok := cs.full[r.events[row.event].Seq]
	return s, ok
}

// card is the template widget of every transcript row. The list reuses
// cards across rows of any kind, so a card creates the body widgets it
// needs on first use and hides the others.
type card struct {
	widget.BaseWidget
	t       *Transcript
	id      int    // row shown; -1 for none
	version uint32 // the row version shown
	gen     uint64 // the transcript generation shown

	bg       *canvas.Rectangle
	title    *canvas.Text
	titleBox *fyne.Container // the title on the header's first line
	detail   *cutLabel
	added    *canvas.Text
	removed  *canvas.Text
	toggle   *tapText
	open     *tapText        // "open sub-agent ›" on an Agent/Task call
	openBox  *fyne.Container // open, centred; hidden as a whole, so it takes no room
	copy     *tapText
	fork     *tapText        // "Fork from here", on prompts (lifecycle.go)
	forkBox  *fyne.Container // fork, centred; hidden with it so it takes no room
	body     *fyne.Container

	text *widget.Label    // user prompts: selectable, wrapped
	md   *widget.RichText // assistant text, plans, summaries
	mono *widget.Label    // tool input and results: selectable monospace
	note *widget.Label    // "truncated at ingestion"
	diff *diffView

	hl     string           // the find query highlighted in the text; "" for none
	textHL *widget.RichText // text with the find query highlighted, in place of text
	monoHL *widget.RichText // the same for mono

	root *fyne.Container
}

func newCard(t *Transcript) *card {
	c := &card{
		t: t, id: -1,
		bg:      canvas.NewRectangle(color.Transparent),
		title:   canvas.NewText("", color.Black),
		detail:  newHeaderDetail(),
		added:   canvas.NewText("", color.Black),
		removed: canvas.NewText("", color.Black),
		body:    container.NewVBox(),
	}
	c.toggle = newTapText("", c.onToggle)
	c.open = newTapText("open sub-agent ›", c.onOpen)
	c.openBox = onFirstLine(c.open)
	c.copy = newTapIcon(theme.ContentCopyIcon(), c.onCopy)
	c.fork = newForkAction(c)
	c.forkBox = onFirstLine(c.fork)
	c.title.TextStyle.Bold = true
	c.added.TextStyle.Monospace = true
	c.removed.TextStyle.Monospace = true
	right := container.NewHBox(onFirstLine(c.added), onFirstLine(c.removed),
		c.openBox, onFirstLine(c.toggle), c.forkBox, onFirstLine(c.copy))
	c.titleBox = onFirstLine(c.title)
	header := container.NewBorder(nil, nil, c.titleBox, right, c.detail)
	pad := theme.Size(theme.SizeNamePadding)
	inner := container.New(&insetLayout{left: 2 * pad, top: pad, right: 2 * pad, bottom: pad},
		container.NewBorder(header, nil, nil, nil, c.body))
	c.root = container.NewStack(c.bg, inner)
	c.ExtendBaseWidget(c)
	return c
}

// CreateRenderer returns a renderer of the card's containers.
func (c *card) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(c.root) }

// bind shows row id, unless the card already shows its current version.
func (c *card) bind(id int) {
	t := c.t
	r := &t.rows.rows[id]
	hl := t.find.highlightIn(id)
	changed := c.id != id || c.version != r.version || c.gen != t.rows.gen || c.hl != hl
	if changed {
		if c.id == id && c.hl != hl && id < len(t.rows.widths) {
			t.rows.widths[id] = 0 // bold matches may wrap the text differently: measure again
		}
		c.id, c.version, c.gen, c.hl = id, r.version, t.rows.gen, hl
		t.cards.shows++
		c.reset()
		c.show(r, t.rows.detailOf(id))
		if hl != "" {
			c.highlight(hl)
		}
	}
	// A card bound to the same row as before is left alone: refreshing it
	// lays out and re-shapes all of its text, which the list asks for on
	// every scroll and refresh.
	lit := c.setHighlight(t.find.row == id)
	if changed {
		c.title.Refresh()
		c.added.Refresh()
		c.removed.Refresh()
		relayout(c.root)
	}
	if changed || lit {
		c.bg.Refresh()
	}
}

// relayout lays o's containers out again, top down, after show changed
// what they hold. Unlike Container.Refresh it does not refresh the widgets
// in them: show refreshed those it filled, and a refresh of every text of
// the card, hidden ones included, shaped all of their text again (most of
// what binding a card cost).
func relayout(o fyne.CanvasObject) {
	c, ok := o.(*fyne.Container)
	if !ok || !c.Visible() {
		return
	}
	if c.Layout != nil {
		c.Layout.Layout(c.Objects, c.Size())
	}
	for _, child := range c.Objects {
		relayout(child)
	}
}

// heightFor lays the card out at width w and returns the height it needs.
func (c *card) heightFor(w float32) float32 {
	c.Resize(fyne.NewSize(w, c.MinSize().Height))
	c.Resize(fyne.NewSize(w, c.MinSize().Height))
	return c.MinSize().Height
}

// reset hides every optional part.
func (c *card) reset() {
	c.bg.FillColor = color.Transparent
	c.title.TextStyle = fyne.TextStyle{Bold: true}
	c.title.TextSize = theme.Size(theme.SizeNameText)
	c.title.Color = theme.Color(theme.ColorNameForeground)
	c.titleBox.Show()
	c.detail.TextStyle, c.detail.ColorName, c.detail.Flush = fyne.TextStyle{Monospace: true}, "", false
	c.detail.Hide()
	c.added.Hide()
	c.removed.Hide()
	c.toggle.Hide()
	c.forkBox.Hide()
	c.openBox.Hide()
	c.copy.Show()
	for _, o := range c.body.Objects {
		o.Hide()
	}
}

// show fills the card for r.
func (c *card) show(r *transcriptRow, d *rowDetail) {
	if r.kind == rowCompaction {
		c.showCompaction(r, &c.t.rows.compactions[r.comp])
		return
	}
	if r.kind == rowThinking {
		c.showThinking(r, c.t.rows.events[r.event].Thinking[r.thought])
		return
	}
	if r.kind == rowFailure {
		c.showFailure(c.t.rows.events[r.event].RunFailures[r.thought])
		return
	}
	e := &c.t.rows.events[r.event].Event
	switch r.kind {
	case rowUser:
		c.setTitle("You", theme.ColorNamePrimary)
		c.bg.FillColor = withAlpha(theme.Color(theme.ColorNamePrimary), 0x26)
		c.textLabel().Hidden = false // shown before its text is set: Show would refresh it again
		c.text.SetText(expandTabs(e.Content))
		c.forkBox.Hidden = !c.t.cards.canFork()
	case rowAssistant:
		c.setTitle("Assistant", theme.ColorNamePlaceHolder)
		c.showMarkdown(e.Text)
	case rowPlan:
		c.setTitle("Plan", theme.ColorNamePrimary)
		c.setDetail(e.Name)
		c.showMarkdown(e.Content)
	case rowTool, rowEdit, rowWrite:
		c.showTool(r, d)
	case rowResult:
		c.showResult(r, e, d)
	case rowComplete:
		// In the title's place, cut to the card's width: the line with the
		// turn's tokens and cost is longer than a narrow window.
		name := theme.ColorNameSuccess
		if !e.Success {
			name = theme.ColorNameError
		}
		c.titleBox.Hide()
		c.detail.TextStyle, c.detail.ColorName, c.detail.Flush = fyne.TextStyle{Bold: true}, name, true
		c.setDetail(c.t.cards.completeRowText(c.t.rows.events[r.event].Seq, e))
	default:
		c.setTitle(d.title, theme.ColorNamePlaceHolder)
		c.title.TextStyle = fyne.TextStyle{Italic: true}
		c.copy.Hide()
	}
}

func (c *card) setTitle(s string, name fyne.ThemeColorName) {
	c.title.Text = s
	c.title.Color = theme.Color(name)
}

func (c *card) setDetail(s string) {
	if s == "" {
		return
	}
	c.detail.Text = s
	c.detail.Refresh() // its style may have changed with the same text
	c.detail.Show()
}

func (c *card) tint() {
	c.bg.FillColor = theme.Color(theme.ColorNameInputBackground)
}

// highlight shows the find query q in the primary colour (bold unless
// monospace) wherever it occurs in the card's text or diff.
func (c *card) highlight(q string) {
	switch {
	case c.md != nil && c.md.Visible():
		c.md.Segments = highlightSegments(c.md.Segments, q)
		c.md.Refresh()
	case c.text != nil && c.text.Visible():
		c.textHL = c.showMarked(c.text, c.textHL, q)
	case c.mono != nil && c.mono.Visible():
		c.monoHL = c.showMarked(c.mono, c.monoHL, q)
	case c.diff != nil && c.diff.Visible():
		c.diff.setMark(q)
	}
}

// showMarked shows label's text with q highlighted in rt (made and put
// after label on first use) in place of label, and returns rt.
func (c *card) showMarked(label *widget.Label, rt *widget.RichText, q string) *widget.RichText {
	if rt == nil {
		rt = widget.NewRichText()
		objs := c.body.Objects
		for i, o := range objs {
			if o == label {
				c.body.Objects = append(objs[:i+1:i+1], append([]fyne.CanvasObject{rt}, objs[i+1:]...)...)
				break
			}
		}
	}
	rt.Wrapping = label.Wrapping
	style := widget.RichTextStyle{Inline: true, TextStyle: label.TextStyle}
	if label.Importance == widget.DangerImportance {
		style.ColorName = theme.ColorNameError
	}
	rt.Segments = markSegments(label.Text, q, style)
	rt.Refresh()
	label.Hide()
	rt.Show()
	return rt
}

func (c *card) diffView() *diffView {
	if c.diff == nil {
		c.diff = newDiffView()
		c.body.Add(c.diff)
	}
	return c.diff
}

// setHighlight outlines the card when it is the current find match.
// setHighlight draws the card's outline when on, and reports whether it
// changed anything.
func (c *card) setHighlight(on bool) bool {
	width, stroke, radius := float32(0), c.bg.StrokeColor, theme.Size(theme.SizeNameInputRadius)
	if on {
		width, stroke = 2, theme.Color(theme.ColorNamePrimary)
	}
	if width == c.bg.StrokeWidth && stroke == c.bg.StrokeColor && radius == c.bg.CornerRadius {
		return false
	}
	c.bg.StrokeWidth, c.bg.StrokeColor, c.bg.CornerRadius = width, stroke, radius
	return true
}

func (c *card) onToggle() {
	if c.id >= 0 {
		c.t.rows.toggle(c.id)
	}
}

func (c *card) onCopy() {
	if c.id >= 0 {
		fyne.CurrentApp().Clipboard().SetContent(c.t.rows.rowText(c.id))
	}
}

// onOpen asks to open the session of the sub-agent the call started.
func (c *card) onOpen() {
	t := c.t
	if c.id < 0 || c.id >= len(t.rows.rows) || t.rows.rows[c.id].kind == rowCompaction {
		return
	}
	if e := &t.rows.events[t.rows.rows[c.id].event].Event; isSubagentCall(e) {
		t.actions.OpenSubagent(t.ref, e.ToolUseID)
	}
}

// isSubagentCall reports a Claude Agent/Task call, whose sub-agent's work
// may be a session of its own.
func isSubagentCall(e *codec.Event) bool {
	return e.Kind == codec.KindToolCall && e.ToolUseID != "" && codec.IsSubagentTool(e.ToolName)
}

// tapText is a small clickable text or icon: a card's "▸ input" toggle
// and its Copy action.
type tapText struct {
	widget.BaseWidget
	text  *canvas.Text
	icon  *widget.Icon
	onTap func()
}

var (
	_ fyne.Tappable      = (*tapText)(nil)
	_ desktop.Cursorable = (*tapText)(nil)
)

func newTapText(s string, onTap func()) *tapText {
	t := &tapText{text: canvas.NewText(s, theme.Color(theme.ColorNamePrimary)), onTap: onTap}
	t.text.TextSize = theme.Size(theme.SizeNameCaptionText)
	t.ExtendBaseWidget(t)
	return t
}

func newTapIcon(res fyne.Resource, onTap func()) *tapText {
	t := &tapText{icon: widget.NewIcon(res), onTap: onTap}
	t.ExtendBaseWidget(t)
	return t
}

func (t *tapText) setText(s string) {
	t.text.Text = s
	t.text.Color = theme.Color(theme.ColorNamePrimary)
	t.text.Refresh()
}

// CreateRenderer returns a renderer of the text or icon.
func (t *tapText) CreateRenderer() fyne.WidgetRenderer {
	if t.icon != nil {
		return widget.NewSimpleRenderer(container.NewGridWrap(fyne.NewSquareSize(16), t.icon))
	}
	return widget.NewSimpleRenderer(t.text)
}

// Tapped runs the action.
func (t *tapText) Tapped(*fyne.PointEvent) {
	if t.onTap != nil {
		t.onTap()
	}
}

// Cursor shows a pointer over the action.
func (t *tapText) Cursor() desktop.Cursor { return desktop.PointerCursor }
