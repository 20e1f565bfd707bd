package views

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// TestTranscriptThinking: the thinking before an event is a collapsed row
// of its own above it (its first line only), opened by its toggle, found
// by find, and ShowThought opens and shows it; event lookups skip it.
func TestTranscriptThinking(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 2000))
	events := stored(codec.UserMessage("why?"), codec.AssistantText("because"), codec.AssistantText("done"))
	events[1].Thinking = []string{"\nFirst I weigh it.\nThen the zorp detail.", "second thought"}
	tr.SetSession(store.Session{ID: 1}, events, nil)
	q.drain()
	kinds := []rowKind{}
	for _, r := range tr.rows.rows {
		kinds = append(kinds, r.kind)
	}
	if want := []rowKind{rowUser, rowThinking, rowThinking, rowAssistant, rowAssistant}; !slices.Equal(kinds, want) {
		t.Fatalf("row kinds %v, want %v", kinds, want)
	}
	c := cardsByRow(tr)[1]
	if c.title.Text != "Thinking" || !c.detail.Visible() || c.detail.Text != "First I weigh it." || cardBody(c) != "" || c.toggle.text.Text != "▸ show" {
		t.Fatalf("collapsed thinking shows %q %q body %q toggle %q", c.title.Text, c.detail.Text, cardBody(c), c.toggle.text.Text)
	}
	test.Tap(c.toggle)
	q.drain()
	if c := cardsByRow(tr)[1]; cardBody(c) != "\nFirst I weigh it.\nThen the zorp detail." || c.toggle.text.Text != "▾ hide" {
		t.Errorf("opened thinking shows %q", cardBody(c))
	}
	if got := tr.rows.rowOfSeq(2); got != 3 {
		t.Errorf("rowOfSeq(2) = %d, want the event's row 3", got)
	}
	if !tr.nav.ShowEvent(2, false) || tr.find.row != 3 {
		t.Errorf("ShowEvent(2) chose row %d, want 3", tr.find.row)
	}
	if !tr.nav.ShowThought(2) || tr.find.row != 1 {
		t.Errorf("ShowThought(2) chose row %d, want 1", tr.find.row)
	}
	tr.AppendEvents([]store.StoredEvent{{Seq: 4, Kind: codec.KindAssistantText, Event: codec.AssistantText("more"), Thinking: []string{"late zorp"}}})
	q.drain()
	if len(tr.rows.rows) != 7 || len(tr.rows.heights) != 7 || len(tr.rows.widths) != 7 || tr.rows.rows[5].kind != rowThinking {
		t.Fatalf("after AppendEvents: %d rows, %d heights, %d widths", len(tr.rows.rows), len(tr.rows.heights), len(tr.rows.widths))
	}
	if tr.rows.rowText(5) != "late zorp" {
		t.Errorf("rowText of the appended thinking = %q", tr.rows.rowText(5))
	}
}
