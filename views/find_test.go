package views

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// typeInto types s into whatever has the keyboard focus of c.
func typeInto(t *testing.T, c fyne.Canvas, s string) {
	t.Helper()
	for _, r := range s {
		f := c.Focused()
		if f == nil {
			t.Fatalf("typing %q: nothing has the focus", r)
		}
		f.TypedRune(r)
	}
}

// focusPrompt focuses the selectable text of row 0, as a click in it does.
func focusPrompt(t *testing.T, tr *Transcript, c fyne.Canvas) {
	t.Helper()
	for _, o := range objectsOf[fyne.Widget](cardsByRow(tr)[0].text) {
		if f, ok := o.(fyne.Focusable); ok {
			c.Focus(f)
			return
		}
	}
	t.Fatal("the prompt's text is not selectable")
}

// TestFindKeyboard: after a click in the transcript, Ctrl+F takes the
// typing; reopening selects the last query so typing replaces it; Esc
// closes the bar. (The main view hands the transcript its window's canvas:
// the driver does not know the canvas of a find entry never drawn.)
func TestFindKeyboard(t *testing.T) {
	m, tr, q, w := newShownMainView(t, fyne.NewSize(900, 500))
	m.BindShortcuts(w.Canvas())
	test.NewTempWindow(t, widget.NewLabel("another window")) // the test driver's guess for any object
	tr.SetSession(store.Session{ID: 1}, stored(codec.UserMessage("find the needle"), codec.AssistantText("a needle, a pin")), nil)
	q.drain()
	c := w.Canvas()
	focusPrompt(t, tr, c)

	tr.find.Show()
	typeInto(t, c, "needle")
	if tr.find.entry.Text != "needle" || tr.find.Status() != "1 of 2" {
		t.Fatalf("after Ctrl+F and typing: entry %q, %q", tr.find.entry.Text, tr.find.Status())
	}
	tr.find.Hide()
	focusPrompt(t, tr, c)
	tr.find.Show()
	typeInto(t, c, "pin")
	if tr.find.entry.Text != "pin" || tr.find.Status() != "1 of 1" {
		t.Fatalf("reopened and typed: entry %q, %q; want the old query replaced", tr.find.entry.Text, tr.find.Status())
	}
	c.Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if tr.find.bar.Visible() || c.Focused() != nil {
		t.Fatalf("after Esc: bar shown %v, focus on %T", tr.find.bar.Visible(), c.Focused())
	}
}

// TestFindShowsMatchInTallCard: a match deep inside a card taller than the
// view is scrolled into view (List.ScrollTo showed the card's end).
func TestFindShowsMatchInTallCard(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(600, 300))
	lines := make([]string, 120)
	for i := range lines {
		lines[i] = "filler line of the long answer"
	}
	lines[40] = "the needle line of the long answer"
	tall := strings.Join(lines, "\n\n")
	tr.SetSession(store.Session{ID: 1}, stored(codec.UserMessage("q"), codec.AssistantText(tall), codec.AssistantText("after")), nil)
	q.drain()
	tr.find.Show()
	tr.find.entry.SetText("needle")
	q.drain()
	if tr.find.row != 1 {
		t.Fatalf("match on row %d, want 1", tr.find.row)
	}
	pad := tr.rows.list.Theme().Size(theme.SizeNamePadding)
	top := tr.rows.heightOf(0) + pad
	h := tr.rows.heightOf(1)
	if h < 3*tr.rows.list.Size().Height {
		t.Fatalf("card is %v high in a %v view: not tall", h, tr.rows.list.Size().Height)
	}
	matchY := top + h*40/120
	off, view := tr.rows.list.GetScrollOffset(), tr.rows.list.Size().Height
	if matchY < off || matchY > off+view {
		t.Errorf("match at y %.0f, view shows %.0f..%.0f", matchY, off, off+view)
	}
}

// markedText returns the primary-coloured text of segs.
func markedText(segs []widget.RichTextSegment) []string {
	var out []string
	for _, s := range segs {
		switch v := s.(type) {
		case *widget.TextSegment:
			if v.Style.ColorName == theme.ColorNamePrimary {
				out = append(out, v.Text)
			}
		case *widget.ParagraphSegment:
			out = append(out, markedText(v.Texts)...)
		case *widget.ListSegment:
			out = append(out, markedText(v.Items)...)
		}
	}
	return out
}

// TestFindHighlightsMatches: the current match's card shows each occurrence
// of the query marked in its text: markdown, a prompt and tool output.
func TestFindHighlightsMatches(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 600))
	tr.SetSession(store.Session{ID: 1}, stored(
		codec.UserMessage("where is the Needle?"),
		codec.AssistantText("- a **needle** in\n- a haystack, needle"),
		codec.ToolCall("t1", "Bash", nil, rawJSON(t, map[string]any{"command": "grep needle"})),
		codec.ToolResult("t1", "Bash", nil, "hay\nneedle found", false),
	), nil)
	q.drain()
	tr.find.Show()
	tr.find.entry.SetText("needle")
	q.drain()
	want := map[int][]string{0: {"Needle"}, 1: {"needle", "needle"}, 3: {"needle"}}
	for step := range 4 {
		row := tr.find.row
		c := cardsByRow(tr)[row]
		var got []string
		switch {
		case c.md != nil && c.md.Visible():
			got = markedText(c.md.Segments)
		case c.textHL != nil && c.textHL.Visible():
			got = markedText(c.textHL.Segments)
		case c.monoHL != nil && c.monoHL.Visible():
			got = markedText(c.monoHL.Segments)
		}
		if w, ok := want[row]; ok && strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("step %d, row %d: marked %q, want %q", step, row, got, w)
		}
		tr.find.Next()
		q.drain()
	}
	tr.find.Hide()
	q.drain()
	if c := cardsByRow(tr)[0]; c.textHL.Visible() || !c.text.Visible() {
		t.Error("the prompt still shows the highlight after the bar closed")
	}
}

// TestFindOpensCollapsedThinking: a match inside collapsed thinking opens
// it and shows the query marked in its text (the collapsed card showed only
// the thought's first line, unmarked, so the match was not to be seen).
func TestFindOpensCollapsedThinking(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 600))
	events := stored(codec.UserMessage("why?"), codec.AssistantText("because"))
	events[1].Thinking = []string{"First I weigh it.\nThen the zorp detail."}
	tr.SetSession(store.Session{ID: 1}, events, nil)
	q.drain()
	tr.find.Show()
	tr.find.entry.SetText("zorp")
	q.drain()
	if tr.find.row != 1 || tr.rows.rows[1].kind != rowThinking {
		t.Fatalf("match on row %d, want the thinking row 1", tr.find.row)
	}
	c := cardsByRow(tr)[1]
	if !tr.rows.rows[1].open || c.toggle.text.Text != "▾ hide" {
		t.Fatalf("the matched thinking stays collapsed (toggle %q)", c.toggle.text.Text)
	}
	if c.textHL == nil || !c.textHL.Visible() || strings.Join(markedText(c.textHL.Segments), "|") != "zorp" {
		t.Errorf("the thinking's text does not show the match marked")
	}
}

// TestFindShowsWholeCard: a match in a card whose top shows at the view's
// bottom brings the whole card into view (Fyne's List.ScrollTo compares the
// card's top plus the template height with the view, so it left such a card
// cut off, e.g. thinking find had just opened).
func TestFindShowsWholeCard(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(600, 300))
	tr.SetSession(store.Session{ID: 1}, stored(
		codec.UserMessage(strings.Repeat("the question goes on\n", 6)),
		codec.UserMessage(strings.Repeat("the answer goes on\n", 6)+"the needle"),
		codec.AssistantText("after")), nil)
	q.drain()
	tr.rows.list.ScrollToTop()
	q.drain()
	pad := tr.rows.list.Theme().Size(theme.SizeNamePadding)
	top := tr.rows.heightOf(0) + pad
	bottom := top + tr.rows.heightOf(1)
	view := tr.rows.list.Size().Height
	if top >= view || bottom <= view || tr.rows.heightOf(1) > view {
		t.Fatalf("setup: card at y %.0f..%.0f in a %.0f view; want its top shown, its end below, its height within the view", top, bottom, view)
	}
	tr.find.Show()
	tr.find.entry.SetText("needle")
	q.drain()
	if tr.find.row != 1 {
		t.Fatalf("match on row %d, want 1", tr.find.row)
	}
	if off := tr.rows.list.GetScrollOffset(); top < off || bottom > off+view {
		t.Errorf("card at y %.0f..%.0f, view shows %.0f..%.0f", top, bottom, off, off+view)
	}
}

// TestFindShowsOpenedThinking: thinking a match opens is scrolled into view
// at its opened height (the view went to its collapsed one-line height and
// the opened text was left below the view).
func TestFindShowsOpenedThinking(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(600, 300))
	events := stored(codec.UserMessage(strings.Repeat("the question goes on\n", 8)), codec.AssistantText(strings.Repeat("the answer goes on\n\n", 20)))
	events[1].Thinking = []string{"First I weigh it.\nthen\nmore\nand more\nThen the zorp detail."}
	tr.SetSession(store.Session{ID: 1}, events, nil)
	q.drain()
	tr.rows.list.ScrollToTop()
	tr.find.Show()
	tr.find.entry.SetText("zorp")
	q.drain()
	if tr.find.row != 1 || !tr.rows.rows[1].open {
		t.Fatalf("match on row %d (open %v), want the opened thinking row 1", tr.find.row, tr.rows.rows[1].open)
	}
	pad := tr.rows.list.Theme().Size(theme.SizeNamePadding)
	top := tr.rows.heightOf(0) + pad
	bottom := top + tr.rows.heightOf(1)
	off, view := tr.rows.list.GetScrollOffset(), tr.rows.list.Size().Height
	if top < off || bottom > off+view {
		t.Errorf("thinking at y %.0f..%.0f, view shows %.0f..%.0f", top, bottom, off, off+view)
	}
}

// newShownMainView returns a main view in a test window of size, its
// transcript, and the queue that holds what the transcript posts to the
// Fyne goroutine (drain it to run them).
func newShownMainView(t *testing.T, size fyne.Size) (*MainView, *Transcript, *postQueue, fyne.Window) {
	t.Helper()
	test.NewTempApp(t)
	m := NewMainView(&fakeActions{})
	tr := m.Transcript()
	q := &postQueue{}
	tr.rows.post = q.post
	w := test.NewTempWindow(t, m.Content())
	w.Resize(size)
	return m, tr, q, w
}
