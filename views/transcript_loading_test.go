package views

import (
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// While a session loads the transcript shows, in place, a moving bar and
// what is loading; the session's arrival (or Loader.Hide, for a load that
// failed) takes it away. Earlier and All show progress in their bar until
// the events arrive.
func TestTranscriptLoadingIndicator(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(600, 400))
	var delayed []func()
	tr.load.after = func(_ time.Duration, f func()) func() bool { delayed = append(delayed, f); return nil }
	late := func() {
		for _, f := range delayed {
			f()
		}
		delayed = nil
	}
	if tr.load.Shown() {
		t.Fatal("a new transcript shows loading")
	}
	tr.load.Show("Loading S3…")
	if tr.load.Shown() || !tr.rows.body.Visible() {
		t.Errorf("loading shown at once (%v), or the transcript hidden (body %v): the session shown stays a moment", tr.load.Shown(), tr.rows.body.Visible())
	}
	late()
	if !tr.load.Shown() || !tr.load.bar.Visible() || tr.load.label.Text != "Loading S3…" || tr.empty.Visible() || tr.rows.body.Visible() {
		t.Errorf("loading shown: %v, label %q, empty %v, body %v", tr.load.Shown(), tr.load.label.Text, tr.empty.Visible(), tr.rows.body.Visible())
	}
	var events []codec.Event
	for range 10 {
		events = append(events, codec.UserMessage("p"), codec.AssistantText("r"))
	}
	tr.SetSessionTail(store.Session{ID: 3}, stored(events...)[10:], nil, 10)
	q.drain()
	if tr.load.Shown() || !tr.rows.body.Visible() {
		t.Errorf("the session arrived, loading still shown (%v) or body hidden (%v)", tr.load.Shown(), tr.rows.body.Visible())
	}

	test := func(all bool) {
		t.Helper()
		b := tr.load.earlierMore
		if all {
			b = tr.load.earlierAll
		}
		b.OnTapped()
		if !tr.load.earlierProgress.Visible() || tr.load.earlierLabel.Text == "" || !tr.load.earlierMore.Disabled() {
			t.Errorf("Earlier (all %v): progress %v, label %q", all, tr.load.earlierProgress.Visible(), tr.load.earlierLabel.Text)
		}
	}
	test(false)
	tr.PrependEvents(stored(events...)[5:10], 5)
	if tr.load.earlierProgress.Visible() {
		t.Error("earlier events arrived, progress still shown")
	}
	test(true)
	tr.PrependEvents(nil, 5) // the load failed
	if tr.load.earlierProgress.Visible() || tr.load.earlierMore.Disabled() {
		t.Error("a failed load left the progress shown or the buttons disabled")
	}

	tr.load.Show("Loading S4…")
	late()
	tr.load.Hide() // the load failed: the session shown stays
	if tr.load.Shown() || !tr.rows.body.Visible() || tr.empty.Visible() {
		t.Errorf("Loader.Hide: loading %v, body %v, empty %v", tr.load.Shown(), tr.rows.body.Visible(), tr.empty.Visible())
	}
}

// A session that arrives before the loading delay is shown without the
// indicator ever taking the transcript's place.
func TestTranscriptQuickLoadShowsNoIndicator(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(600, 400))
	var delayed []func()
	tr.load.after = func(_ time.Duration, f func()) func() bool { delayed = append(delayed, f); return nil }
	tr.SetSession(store.Session{ID: 1}, stored(codec.UserMessage("p")), nil)
	tr.load.Show("Loading S2…")
	tr.SetSession(store.Session{ID: 2}, stored(codec.UserMessage("q")), nil)
	q.drain()
	for _, f := range delayed {
		f()
	}
	if tr.load.Shown() || !tr.rows.body.Visible() {
		t.Errorf("a quick load showed the indicator (%v) or hid the transcript (body %v)", tr.load.Shown(), tr.rows.body.Visible())
	}
}
