package views

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// TestTranscriptFullText: a tool result whose full output the store kept
// offers it behind its toggle; ShowFullEvent (a search hit in that full
// output) opens it, shows it instead of the shortened text, and scrolls
// down to the line of the match.
func TestTranscriptFullText(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 400))
	var lines []string
	for i := range 300 {
		lines = append(lines, fmt.Sprintf("output line %d", i))
	}
	lines[250] = "deep handleSubmit match"
	full := strings.Join(lines, "\n")
	var events []codec.Event
	// Enough rows above that the padding between them (forgotten once in
	// the target's offset) is more than the view is high.
	const row = 300
	for i := range row {
		events = append(events, codec.AssistantText(fmt.Sprintf("event %d", i+1)))
	}
	events = append(events, codec.ToolResult("t1", "Bash", nil, "output line 298\noutput line 299", false))
	for i := range 10 {
		events = append(events, codec.AssistantText(fmt.Sprintf("after %d", i+1)))
	}
	tr.SetSession(store.Session{ID: 1}, stored(events...), nil)
	tr.SetFullText(map[int64]string{row + 1: full})
	q.drain()
	if tr.rows.rows[row].open || tr.rows.rowText(row) != "output line 298\noutput line 299" {
		t.Fatalf("before: open %v, text %q", tr.rows.rows[row].open, tr.rows.rowText(row))
	}
	if !tr.nav.ShowFullEvent(row+1, strings.Index(full, "handleSubmit")) {
		t.Fatal("ShowFullEvent found nothing")
	}
	q.drain()
	if !tr.rows.rows[row].open || tr.find.row != row || tr.rows.rowText(row) != full {
		t.Errorf("after: open %v, find row %d, text %d bytes", tr.rows.rows[row].open, tr.find.row, len(tr.rows.rowText(row)))
	}
	c := cardsByRow(tr)[row]
	if c == nil || !c.toggle.Visible() || !strings.HasPrefix(c.toggle.text.Text, "▾ full output") || c.mono.Text != full {
		t.Fatalf("the card does not show the full output: %+v", c)
	}
	if y := tr.rows.list.GetScrollOffset(); y < tr.rows.rowTop(row)+200*lineHeight() {
		t.Errorf("scrolled to %v; the match is near %v", y, tr.rows.rowTop(row)+250*lineHeight())
	}
	// The match's line is in view, by the list's own layout: every row
	// above with the padding after it.
	var top float32
	for i := range row {
		top += tr.rows.heightOf(i) + tr.rows.list.Theme().Size(theme.SizeNamePadding)
	}
	match := top + tr.rows.template + 250*lineHeight()
	if y, view := tr.rows.list.GetScrollOffset(), tr.rows.list.Size().Height; match < y || match > y+view {
		t.Errorf("the match at %v is out of the view %v–%v", match, y, y+view)
	}
	tr.rows.toggle(row)
	q.drain()
	if c := cardsByRow(tr)[row]; c != nil && c.mono.Text == full {
		t.Error("closing the toggle still shows the full output")
	}
}

// TestSearchHitMarkedInFullOutput: opening a search hit inside a tool's
// full output marks the match in the output (the card's outline is out of
// view in a long one); going elsewhere removes the mark.
func TestSearchHitMarkedInFullOutput(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 3000))
	full := "line one\nline two\ndeep HandleSubmit match\nline four"
	tr.SetSession(store.Session{ID: 1}, stored(
		codec.UserMessage("run it"),
		codec.ToolResult("t1", "Bash", nil, "line four", false),
	), nil)
	tr.SetFullText(map[int64]string{2: full})
	q.drain()
	hit := SearchHit{Seq: 2, InFull: true, Offset: strings.Index(full, "Handle"), Snippet: "…deep HandleSubmit match…", Highlights: [][2]int{{8, 20}}}
	if hit.Match() != "HandleSubmit" {
		t.Fatalf("Match() = %q, want HandleSubmit", hit.Match())
	}
	if !tr.nav.ShowFullMatch(hit.Seq, hit.Offset, hit.Match()) {
		t.Fatal("ShowFullMatch found nothing")
	}
	q.drain()
	c := cardsByRow(tr)[1]
	if c == nil || c.monoHL == nil || !c.monoHL.Visible() {
		t.Fatal("the full output is not shown marked")
	}
	var marked []string
	for _, s := range c.monoHL.Segments {
		if ts := s.(*widget.TextSegment); ts.Style.ColorName == theme.ColorNamePrimary {
			marked = append(marked, ts.Text)
		}
	}
	if len(marked) != 1 || marked[0] != "HandleSubmit" {
		t.Errorf("marked %q, want [HandleSubmit]", marked)
	}
	tr.nav.ShowEvent(1, false)
	q.drain()
	if c := cardsByRow(tr)[1]; c.monoHL != nil && c.monoHL.Visible() {
		t.Error("the mark stays after going to another event")
	}
}
