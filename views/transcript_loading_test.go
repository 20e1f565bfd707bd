package views

import (
	"testing"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/store"
)

// While a session loads the transcript shows, in place, a moving bar and
// what is loading; the session's arrival (or HideLoading, for a load that
// failed) takes it away. Earlier and All show progress in their bar until
// the events arrive.
func TestTranscriptLoadingIndicator(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(600, 400))
	if tr.Loading() {
		t.Fatal("a new transcript shows loading")
	}
	tr.ShowLoading("Loading S3…")
	if !tr.Loading() || !tr.loading.bar.Visible() || tr.loading.label.Text != "Loading S3…" || tr.empty.Visible() || tr.body.Visible() {
		t.Errorf("loading shown: %v, label %q, empty %v, body %v", tr.Loading(), tr.loading.label.Text, tr.empty.Visible(), tr.body.Visible())
	}
	var events []store.Event
	for range 10 {
		events = append(events, store.UserMessage("p"), store.AssistantText("r"))
	}
	tr.SetSessionTail(store.Session{ID: 3}, stored(events...)[10:], nil, 10)
	q.drain()
	if tr.Loading() || !tr.body.Visible() {
		t.Errorf("the session arrived, loading still shown (%v) or body hidden (%v)", tr.Loading(), tr.body.Visible())
	}

	test := func(all bool) {
		t.Helper()
		b := tr.earlierMore
		if all {
			b = tr.earlierAll
		}
		b.OnTapped()
		if !tr.earlierProgress.Visible() || tr.earlierLabel.Text == "" || !tr.earlierMore.Disabled() {
			t.Errorf("Earlier (all %v): progress %v, label %q", all, tr.earlierProgress.Visible(), tr.earlierLabel.Text)
		}
	}
	test(false)
	tr.PrependEvents(stored(events...)[5:10], 5)
	if tr.earlierProgress.Visible() {
		t.Error("earlier events arrived, progress still shown")
	}
	test(true)
	tr.PrependEvents(nil, 5) // the load failed
	if tr.earlierProgress.Visible() || tr.earlierMore.Disabled() {
		t.Error("a failed load left the progress shown or the buttons disabled")
	}

	tr.ShowLoading("Loading S4…")
	tr.HideLoading() // the load failed: the session shown stays
	if tr.Loading() || !tr.body.Visible() || tr.empty.Visible() {
		t.Errorf("HideLoading: loading %v, body %v, empty %v", tr.Loading(), tr.body.Visible(), tr.empty.Visible())
	}
}
