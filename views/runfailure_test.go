package views

import (
	"slices"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// TestTranscriptRunFailure: why a run failed is a row of its own under the
// run's ✗, in the error colour, with the whole reason; event lookups skip
// it, and a failure that arrives live with the run's last events is shown.
func TestTranscriptRunFailure(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 1200))
	const why = "agent exited without a result (exit code 1)\nError: --dangerously-skip-permissions cannot be used with root/sudo privileges"
	events := stored(codec.UserMessage("fix it"), codec.Complete(false, 900, 0))
	events[1].RunFailures = []string{why}
	tr.SetSession(store.Session{ID: 1}, events, nil)
	q.drain()
	var kinds []rowKind
	for _, r := range tr.rows.rows {
		kinds = append(kinds, r.kind)
	}
	if want := []rowKind{rowUser, rowComplete, rowFailure}; !slices.Equal(kinds, want) {
		t.Fatalf("row kinds %v, want %v", kinds, want)
	}
	c := cardsByRow(tr)[2]
	if c.title.Text != "Why the run failed" || c.title.Color != theme.Color(theme.ColorNameError) || cardBody(c) != why {
		t.Errorf("failure card: %q %v body %q", c.title.Text, c.title.Color, cardBody(c))
	}
	if got := tr.rows.rowOfSeq(2); got != 1 {
		t.Errorf("rowOfSeq(2) = %d, want the ✗ row 1", got)
	}
	if tr.rows.rowText(2) != why {
		t.Errorf("rowText = %q", tr.rows.rowText(2))
	}
	live := []store.StoredEvent{{Seq: 3, Kind: codec.KindUserMessage, Event: codec.UserMessage("again")},
		{Seq: 4, Kind: codec.KindComplete, Event: codec.Complete(false, 5, 0), RunFailures: []string{"agent stopped: no answer from the model within 5m0s"}}}
	tr.AppendEvents(live)
	q.drain()
	if n := len(tr.rows.rows); n != 6 || tr.rows.rows[5].kind != rowFailure || len(tr.rows.heights) != 6 {
		t.Fatalf("after AppendEvents: %d rows, last %v", n, tr.rows.rows[n-1].kind)
	}
}
