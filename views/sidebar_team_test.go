package views

import (
	"fmt"
	"slices"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// sourceRecorder records the source switches.
type sourceRecorder struct{ team []bool }

func (r *sourceRecorder) ShowSource(team bool) { r.team = append(r.team, team) }

func teamGroups() []WorktreeGroup {
	return []WorktreeGroup{
		{Worktree: "app · main", StorePath: TeamStore, Sessions: []store.Session{
			{ID: 41, Name: "Fix flaky runner · alice@laptop", Created: "2026-11-22 11:00:00"},
			{ID: 7, Name: "Split worker · bob@desktop", Created: "2026-11-21 10:00:00"},
		}},
	}
}

// TestSidebarTeamSource switches the sidebar to the team's sessions and
// back: the switch appears once enabled, each switch is sent once, the
// team's groups replace the project's (which come back as they were), a
// team session's row selects it by its team ref, and the team's sessions
// cannot be created, renamed or deleted.
func TestSidebarTeamSource(t *testing.T) {
	s, a, _ := newTestSidebar(t)
	if s.source.Visible() {
		t.Fatal("the source switch shows without a team database")
	}
	rec := &sourceRecorder{}
	s.EnableTeam(rec)
	s.ApplyTeam(teamGroups())
	if !s.source.Visible() || s.TeamShown() || s.rows[0].title != "main" {
		t.Fatalf("after EnableTeam: switch visible %v, team shown %v, first row %q", s.source.Visible(), s.TeamShown(), s.rows[0].title)
	}
	s.source.SetSelected(sourceTeam)
	if !s.TeamShown() || !slices.Equal(rec.team, []bool{true}) {
		t.Fatalf("switch to the team: shown %v, intents %v", s.TeamShown(), rec.team)
	}
	var titles []string
	for _, r := range s.rows {
		titles = append(titles, r.title)
	}
	if want := []string{"app · main", "Fix flaky runner · alice@laptop", "Split worker · bob@desktop"}; !slices.Equal(titles, want) {
		t.Fatalf("team rows %q, want %q", titles, want)
	}
	s.onSelected(2)
	if got := a.calls[len(a.calls)-1]; got != "select team:#7" {
		t.Fatalf("selecting a team row sent %q", got)
	}
	if !s.newBtn.Disabled() || !s.rename.Disabled() || !s.delete.Disabled() {
		t.Fatal("New, Rename or Delete enabled on the team's sessions")
	}
	n := len(a.calls)
	s.onNew()
	s.onRename()
	s.onDelete()
	if len(a.calls) != n {
		t.Fatalf("a team session was changed: %v", a.calls[n:])
	}
	s.Apply(sampleGroups()) // the project changes meanwhile: kept for later
	if s.rows[0].title != "app · main" {
		t.Fatalf("Apply replaced the team's rows: first row %q", s.rows[0].title)
	}
	s.source.SetSelected(sourceLocal)
	if s.TeamShown() || !slices.Equal(rec.team, []bool{true, false}) || s.rows[0].title != "main" || s.newBtn.Disabled() {
		t.Fatalf("back to the project: team shown %v, intents %v, first row %q", s.TeamShown(), rec.team, s.rows[0].title)
	}
}

// TestMainViewShowsTeamSessionReadOnly shows a team session: its
// transcript (over the first-run panel of a project without sessions),
// with the prompt box disabled and no fork from its prompts.
func TestMainViewShowsTeamSessionReadOnly(t *testing.T) {
	m, a := newTestMainView(t)
	m.ShowFirstRun(&FirstRun{Project: "new", Native: 0}, noFirstRun{}) // a project without sessions of its own
	if !m.FirstRunShown() {
		t.Fatal("no first-run panel")
	}
	team := SessionRef{StorePath: TeamStore, ID: 41}
	events := []store.StoredEvent{{ID: 1, Seq: 1, Kind: "UserMessage", Event: codec.UserMessage("fix the flaky test")}}
	m.ShowSession(team, store.Session{ID: 41, Name: "Fix flaky runner"}, events, nil, 0)
	if m.FirstRunShown() {
		t.Fatal("the first-run panel covers the team session shown")
	}
	local := SessionRef{StorePath: "/p/a.azs", ID: 3}
	m.ShowSession(local, store.Session{ID: 3, Name: "mine"}, nil, nil, 0)
	if _, ok := m.PromptBox().Session(); !ok {
		t.Fatal("the prompt box is off for a local session")
	}
	m.ShowSession(team, store.Session{ID: 41, Name: "Fix flaky runner"}, events, nil, 0)
	if _, ok := m.PromptBox().Session(); ok || m.PromptBox().IdleNote() != fmt.Sprintf(teamIdleNote, 41) {
		t.Fatalf("the prompt box of a team session: takes prompts %v, says %q", ok, m.PromptBox().IdleNote())
	}
	n := len(a.calls)
	for i := range m.Transcript().rows.rows {
		c := &card{t: m.Transcript(), id: i}
		c.onFork()
	}
	if len(a.calls) != n {
		t.Fatalf("a team session was forked: %v", a.calls[n:])
	}
	m.ShowSession(local, store.Session{ID: 3, Name: "mine"}, nil, nil, 0)
	m.PromptBox().SetSession(SessionRef{}, false, "")
	if got := m.PromptBox().IdleNote(); got != noSessionPlaceHolder {
		t.Fatalf("after a local session, the idle box says %q", got)
	}
}

// newTestMainView returns a main view in a window, with the actions it
// sends its intents to.
func newTestMainView(t *testing.T) (*MainView, *fakeActions) {
	t.Helper()
	test.NewTempApp(t)
	a := &fakeActions{}
	m := NewMainView(a)
	test.NewTempWindow(t, m.Content())
	return m, a
}

// noFirstRun is FirstRunActions that do nothing.
type noFirstRun struct{}

func (noFirstRun) ImportNativeHistory()  {}
func (noFirstRun) ImportTranscriptFile() {}
func (noFirstRun) StartSession()         {}
