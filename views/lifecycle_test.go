package views

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

func (f *fakeActions) ForkSession(ref SessionRef, atSeq int64, prompt string) {
	f.calls = append(f.calls, fmt.Sprintf("fork %s#%d@%d %q", ref.StorePath, ref.ID, atSeq, prompt))
}

// TestForkFromHere: every prompt card, and only prompt cards, offers
// "Fork from here", which sends ForkSession with the prompt's seq and text.
func TestForkFromHere(t *testing.T) {
	test.NewTempApp(t)
	a := &fakeActions{}
	m := NewMainView(a)
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(900, 2000))
	tr := m.Transcript()
	q := &postQueue{}
	tr.rows.post = q.post
	ref := SessionRef{StorePath: "/p/a.azs", ID: 4}
	m.ShowSession(ref, store.Session{ID: 4, Name: "plan"}, storedFrom(5, codec.UserMessage("first"),
		codec.AssistantText("reply"), codec.UserMessage("second\nline")), nil, 0)
	q.drain()
	cards := cardsByRow(tr)
	if len(cards) != 3 {
		t.Fatalf("%d cards on screen", len(cards))
	}
	for id, c := range cards {
		if want := tr.rows.rows[id].kind == rowUser; c.forkBox.Visible() != want || c.fork.text.Text != forkLabel {
			t.Errorf("row %d (kind %d): fork action shown %v", id, tr.rows.rows[id].kind, c.forkBox.Visible())
		}
	}
	test.Tap(cards[2].fork)
	test.Tap(cards[0].fork)
	if got, want := a.String(), `fork /p/a.azs#4@7 "second\nline"; fork /p/a.azs#4@5 "first"`; got != want {
		t.Errorf("intents %s, want %s", got, want)
	}
}

// TestForkOriginLink: the header of a fork links back to its parent; a
// session that is not a fork, or no session, shows no link.
func TestForkOriginLink(t *testing.T) {
	m, a := newTestMainView(t)
	parent := SessionRef{StorePath: "/p/a.azs", ID: 1}
	m.SetForkOrigin(ForkOrigin{Parent: parent, ParentName: "plan", ParentSeq: 7})
	if !m.forkLink.Visible() || m.forkLink.Text != "⑂ forked from plan before its prompt at seq 7" {
		t.Fatalf("link %q shown %v", m.forkLink.Text, m.forkLink.Visible())
	}
	test.TapAt(m.forkLink, fyne.NewPos(20, m.forkLink.Size().Height/2))
	if a.String() != "select /p/a.azs#1" {
		t.Errorf("intents %s", a)
	}
	m.ClearSession()
	if m.forkLink.Visible() || m.ForkOrigin() != (ForkOrigin{}) {
		t.Errorf("the link stays after ClearSession")
	}
}

// TestSidebarForksUnderParent: forks are listed right after their parent
// (a fork of a fork deeper still), in the group's order among siblings; a
// fork whose parent is not in the group stays at the top level.
func TestSidebarForksUnderParent(t *testing.T) {
	s, _, _ := newTestSidebar(t)
	g := WorktreeGroup{Worktree: "main", StorePath: "/p/a.azs", Sessions: []store.Session{
		{ID: 5, Name: "plan ⑂ 1 ⑂ 1"}, {ID: 4, Name: "plan ⑂ 2"}, {ID: 3, Name: "other"},
		{ID: 2, Name: "plan ⑂ 1"}, {ID: 1, Name: "plan"}, {ID: 6, Name: "orphan"},
	}, Forks: map[int64]int64{5: 2, 4: 1, 2: 1, 6: 99}}
	s.Apply([]WorktreeGroup{g})
	var got []string
	for _, r := range s.rows[1:] {
		got = append(got, r.title)
	}
	want := []string{"other", "plan", "↳ plan ⑂ 2", "↳ plan ⑂ 1", "   ↳ plan ⑂ 1 ⑂ 1", "orphan"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows %q, want %q", got, want)
	}
	s.filters.entry.SetText("⑂ 1 ⑂")
	if len(s.rows) != 2 || s.rows[1].title != "   ↳ plan ⑂ 1 ⑂ 1" {
		t.Errorf("filtered rows %+v", s.rows)
	}
}

// TestPromptSetDraft: the fork's prompt text lands in its prompt box,
// whether the box already shows the fork or shows it next.
func TestPromptSetDraft(t *testing.T) {
	p, _, _ := newTestPrompt(t)
	fork := SessionRef{StorePath: "/p/a.azs", ID: 9}
	p.SetDraft(fork, "edit me")
	if p.entry.Text != "" {
		t.Errorf("another session's draft went into the entry: %q", p.entry.Text)
	}
	p.SetSession(fork, true, "")
	if p.entry.Text != "edit me" {
		t.Errorf("entry %q", p.entry.Text)
	}
	p.SetDraft(fork, "again")
	if p.entry.Text != "again" {
		t.Errorf("entry %q", p.entry.Text)
	}
}

// TestSidebarPinnedArchived: pinned sessions come first in their group
// (and first among a parent's forks), marked ★; archived ones the group
// shows are greyed.
func TestSidebarPinnedArchived(t *testing.T) {
	s, _, _ := newTestSidebar(t)
	g := WorktreeGroup{Worktree: "main", StorePath: "/p/a.azs", Sessions: []store.Session{
		{ID: 4, Name: "d"}, {ID: 3, Name: "c"}, {ID: 2, Name: "b"}, {ID: 1, Name: "a"},
	}, Forks: map[int64]int64{4: 1, 3: 1}, Pinned: map[int64]bool{3: true, 2: true}, Archived: map[int64]bool{1: true}}
	s.Apply([]WorktreeGroup{g})
	var got []string
	for _, r := range s.rows[1:] {
		got = append(got, fmt.Sprintf("%s:%v", r.title, r.archived))
	}
	want := []string{"★ b:false", "a:true", "↳ ★ c:false", "↳ d:false"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows %q, want %q", got, want)
	}
	byName := map[string]*sidebarItem{}
	for _, it := range objectsOf[*sidebarItem](s.list) {
		if it.row != nil && !it.row.header {
			byName[it.row.title] = it
		}
	}
	if it := byName["a"]; it == nil || it.name.ColorName != theme.ColorNameDisabled {
		t.Errorf("the archived row is not greyed")
	}
	if it := byName["★ b"]; it == nil || it.name.ColorName != theme.ColorNameForeground {
		t.Errorf("a row that is not archived is greyed")
	}
}

// TestNoForkInReadOnlyTranscript: the team's read-only transcript offers
// no "Fork from here".
func TestNoForkInReadOnlyTranscript(t *testing.T) {
	test.NewTempApp(t)
	tr := NewTranscript(readOnly{})
	q := &postQueue{}
	tr.rows.post = q.post
	w := test.NewTempWindow(t, tr.Content())
	w.Resize(fyne.NewSize(800, 600))
	tr.SetSession(store.Session{ID: 1}, stored(codec.UserMessage("hi")), nil)
	q.drain()
	cards := cardsByRow(tr)
	if len(cards) != 1 || cards[0].forkBox.Visible() {
		t.Errorf("a read-only prompt card offers a fork")
	}
}

func (f *fakeActions) ArchiveSession(ref SessionRef, archived bool) {
	f.calls = append(f.calls, fmt.Sprintf("archive %s#%d %v", ref.StorePath, ref.ID, archived))
}
