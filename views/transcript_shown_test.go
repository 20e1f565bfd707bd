package views

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// conversation returns n prompts and replies, stored from seq first.
func conversation(name string, first int64, n int) []store.StoredEvent {
	var evs []codec.Event
	for i := range n {
		evs = append(evs, codec.UserMessage(fmt.Sprintf("%s prompt %d", name, i)),
			codec.AssistantText(fmt.Sprintf("%s reply %d:\n\n- one\n- two\n\n%s", name, i, strings.Repeat("words that wrap ", 5+i%30))))
	}
	return storedFrom(first, evs...)
}

// cardTexts returns the titles and bodies of the cards on screen, by row.
func cardTexts(tr *Transcript) map[int]string {
	out := map[int]string{}
	for id, c := range cardsByRow(tr) {
		out[id] = fmt.Sprintf("%d %s", c.version, c.title.Text)
		for _, rt := range collectObjects[*widget.RichText](c, true) {
			out[id] += "|" + rt.String()
		}
	}
	return out
}

// TestTranscriptKeepsShownSessions: showing again a session left moments
// ago takes its laid-out list back and fills no card, and shows what a
// fresh build shows; a session whose events changed, or an id reused, or
// a new theme, is built afresh.
func TestTranscriptKeepsShownSessions(t *testing.T) {
	a := store.Session{ID: 1, Created: "2026-11-01 10:00:00", Worktree: "main"}
	b := store.Session{ID: 2, Created: "2026-11-01 11:00:00", Worktree: "main"}
	evA, evB := conversation("alpha", 1, 40), conversation("beta", 1, 40)
	// setup returns a transcript and a function that shows a session in
	// it as the app does: a new slice of events each time.
	setup := func(t *testing.T) (*Transcript, func(store.Session, []store.StoredEvent)) {
		tr, _, q := newTestTranscript(t, fyne.NewSize(800, 600))
		return tr, func(s store.Session, evs []store.StoredEvent) {
			tr.SetSessionTail(s, slices.Clone(evs), nil, 0)
			q.drain()
		}
	}

	t.Run("Again", func(t *testing.T) {
		tr, show := setup(t)
		show(a, evA)
		listA, wantA := tr.rows.list, cardTexts(tr)
		if len(wantA) == 0 {
			t.Fatal("no card on screen")
		}
		show(b, evB)
		filled := tr.cards.shows
		show(a, evA)
		if tr.rows.list != listA {
			t.Error("showing A again built a new list, want the one kept")
		}
		if n := tr.cards.shows - filled; n != 0 {
			t.Errorf("showing A again filled %d cards, want 0", n)
		}
		if got := cardTexts(tr); !maps.Equal(got, wantA) {
			t.Errorf("A shown again = %v, want %v", got, wantA)
		}
	})

	tests := []struct {
		name   string
		change func() (store.Session, []store.StoredEvent)
	}{
		{"Appended", func() (store.Session, []store.StoredEvent) {
			return a, append(slices.Clone(evA), storedFrom(81, codec.UserMessage("alpha later"))...)
		}},
		{"IDReused", func() (store.Session, []store.StoredEvent) {
			again := a
			again.Created = "2026-11-02 09:00:00"
			return again, evA
		}},
		{"OtherWorktree", func() (store.Session, []store.StoredEvent) {
			other := a
			other.Worktree = "feature"
			return other, evA
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, show := setup(t)
			show(a, evA)
			listA := tr.rows.list
			show(b, evB)
			s, evs := tt.change()
			show(s, evs)
			if tr.rows.list == listA {
				t.Errorf("%s: the kept list was shown for other events", tt.name)
			}
			fresh, showFresh := setup(t)
			showFresh(s, evs)
			if got, want := cardTexts(tr), cardTexts(fresh); !sameShown(got, want) {
				t.Errorf("%s: shown %v, want %v (a fresh build)", tt.name, got, want)
			}
		})
	}

	t.Run("Resized", func(t *testing.T) {
		tr, w, q := newTestTranscript(t, fyne.NewSize(800, 600))
		tr.SetSessionTail(a, slices.Clone(evA), nil, 0)
		q.drain()
		tr.SetSessionTail(b, slices.Clone(evB), nil, 0)
		q.drain()
		w.Resize(fyne.NewSize(420, 600))
		q.drain()
		tr.SetSessionTail(a, slices.Clone(evA), nil, 0) // no drain: the first frame
		cards := cardsByRow(tr)
		if len(cards) == 0 {
			t.Fatal("no card shown")
		}
		for id, c := range cards {
			if got, want := tr.rows.heightOf(id), c.MinSize().Height; got+0.5 < want {
				t.Errorf("row %d is %v tall in the first frame at the new width, its card needs %v", id, got, want)
			}
		}
		q.drain()
		fresh, _, fq := newTestTranscript(t, fyne.NewSize(420, 600))
		fresh.SetSessionTail(a, slices.Clone(evA), nil, 0)
		fq.drain()
		for id := range cardsByRow(fresh) {
			if got, want := tr.rows.heights[id], fresh.rows.heights[id]; got != want {
				t.Errorf("row %d height %v after the resize, want %v (a fresh build)", id, got, want)
			}
		}
	})

	t.Run("Theme", func(t *testing.T) {
		tr, show := setup(t)
		show(a, evA)
		listA := tr.rows.list
		show(b, evB)
		fyne.CurrentApp().Settings().SetTheme(Theme{}) // other colours than the test theme's
		tr.rows.list.Refresh()
		show(a, evA)
		if tr.rows.list == listA {
			t.Error("the list kept in the old theme was shown again")
		}
	})

	t.Run("Bounded", func(t *testing.T) {
		tr, show := setup(t)
		show(a, evA)
		listA := tr.rows.list
		for i := range keptSessions + 1 {
			show(store.Session{ID: int64(10 + i), Created: a.Created, Worktree: "main"}, conversation("gamma", 1, 3))
		}
		if len(tr.shown.entries) > keptSessions {
			t.Errorf("%d sessions kept, want at most %d", len(tr.shown.entries), keptSessions)
		}
		show(a, evA)
		if tr.rows.list == listA {
			t.Errorf("A was kept after %d other sessions, want at most %d kept", keptSessions+1, keptSessions)
		}
	})
}

// sameShown compares two transcripts' cards on screen by their text,
// leaving out the row versions (a fresh build starts them at 0).
func sameShown(a, b map[int]string) bool {
	strip := func(m map[int]string) map[int]string {
		out := map[int]string{}
		for k, v := range m {
			_, rest, _ := strings.Cut(v, " ")
			out[k] = rest
		}
		return out
	}
	return maps.Equal(strip(a), strip(b))
}

// What the transcript keeps of a session it showed is named by the ref
// MainView showed it as; showing it again from that fills no card, and the
// same events given once more (its load) change nothing: no card filled,
// the view left where the user scrolled it.
func TestKeptSessionShownAgainUnchanged(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 600))
	a, b := SessionRef{StorePath: "/p", ID: 1}, SessionRef{StorePath: "/p", ID: 2}
	evA, evB := conversation("a", 1, 40), conversation("b", 1, 40)
	show := func(ref SessionRef, s store.Session, ev []store.StoredEvent) {
		tr.ref = ref // as MainView.ShowSession does
		tr.SetSession(s, ev, nil)
		q.drain()
	}
	sa, sb := store.Session{ID: 1, Created: "2026-11-28 10:00:00"}, store.Session{ID: 2, Created: "2026-11-28 11:00:00"}
	show(a, sa, evA)
	show(b, sb, evB)
	if _, ok := tr.Kept(b); ok {
		t.Error("the session shown is listed as kept")
	}
	k, ok := tr.Kept(a)
	if !ok || k.Session.ID != 1 || len(k.Events) != len(evA) {
		t.Fatalf("Kept(a) = %+v, %v", k.Session, ok)
	}
	before := tr.cards.shows
	show(a, k.Session, k.Events)
	if n := tr.cards.shows - before; n != 0 {
		t.Errorf("showing the kept session filled %d cards", n)
	}
	tr.rows.list.ScrollToOffset(300)
	off := tr.rows.list.GetScrollOffset()
	before = tr.cards.shows
	show(a, sa, evA) // its load: the same events
	if n := tr.cards.shows - before; n != 0 {
		t.Errorf("the same events again filled %d cards", n)
	}
	if got := tr.rows.list.GetScrollOffset(); got != off {
		t.Errorf("the same events again moved the view from %v to %v", off, got)
	}
	more := append(slices.Clone(evA), conversation("a", int64(len(evA)+1), 1)...)
	show(a, sa, more) // something new: laid out again, at the end
	if len(tr.rows.events) != len(more) || !tr.rows.atBottom() {
		t.Errorf("new events: %d shown, at the bottom %v", len(tr.rows.events), tr.rows.atBottom())
	}
}

// A first visit builds the cards it shows, once: those it measured off
// screen to open at its end are the ones the list shows, and the top rows
// the new list's first layout shows before it is scrolled get none. Every
// card on screen is bound to its row, in a long session (scrolled to its
// end) and a short one (not scrolled at all).
func TestFirstVisitBindsWhatItShows(t *testing.T) {
	for _, n := range []int{75, 2} {
		tr, _, q := newTestTranscript(t, fyne.NewSize(800, 600))
		b := tr.cards.shows
		tr.SetSession(store.Session{ID: 1}, conversation("a", 1, n), nil)
		shown := cardsByRow(tr) // no drain: the first frame
		if len(shown) == 0 {
			t.Fatalf("%d prompts: no card on screen", n)
		}
		for id, c := range shown {
			if c.id != id || c.gen != tr.rows.gen {
				t.Errorf("%d prompts: the card of row %d is bound to row %d of generation %d", n, id, c.id, c.gen)
			}
		}
		q.drain()
		if filled := tr.cards.shows - b; filled > len(shown)+1 { // the cards measured to open it are the ones it shows
			t.Errorf("%d prompts: a first visit filled %d cards for %d on screen", n, filled, len(shown))
		}
	}
}
