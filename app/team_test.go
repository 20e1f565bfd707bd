package app

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/pgtest"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/teamsync"
	"github.com/lazuli-app/lazuli/views"
)

// TestTeamWindow: two stores pushed as two machines show up together in
// the Team window, a session opens read-only with its transcript, a team
// search finds both machines' events, and the URL is kept without its
// password.
func TestTeamWindow(t *testing.T) {
	srv, url := pushTwoMachines(t)
	fa := test.NewTempApp(t)
	ctx := context.Background()
	tw := newTeamWindow(&gui{ctx: ctx, fa: fa}, test.NewTempWindow(t, nil), "")
	defer func() { tw.close(); tw.wg.Wait() }()

	tw.TeamConnect(srv.PasswordURL("nosuchdb", "Secret-Pw-123"))
	tw.wg.Wait()
	if s := tw.browser.Status(); !strings.Contains(s, "authentication failed") || strings.Contains(s, "Secret-Pw-123") {
		t.Fatalf("status after a wrong password: %q", s)
	}

	tw.TeamConnect(url)
	tw.wg.Wait()
	sessions := tw.browser.Sessions()
	machines := map[string]int64{}
	for id, s := range sessions {
		machines[s.Machine] = id
	}
	if len(sessions) != 2 || machines["laptop"] == 0 || machines["desktop"] == 0 || tw.browser.Status() != "2 sessions from 2 machines" {
		t.Fatalf("team sessions %v, status %q", sessions, tw.browser.Status())
	}
	if got := fa.Preferences().String(prefTeamURL); got != url {
		t.Fatalf("kept URL %q, want %q", got, url)
	}
	tw.TeamSelect(machines["desktop"])
	tw.wg.Wait()
	if s := tw.browser.Transcript().Session(); s.Name != "work on desktop" || s.EventCount != 2 {
		t.Fatalf("transcript shows %+v", s)
	}
	tw.TeamSearch("wombat")
	tw.wg.Wait()
	if s := tw.browser.Status(); s != "4 hits" {
		t.Fatalf("search status %q", s)
	}
	if got := withoutPassword("postgres://ana:pw@h/db?sslmode=require"); got != "postgres://ana@h/db?sslmode=require" {
		t.Fatalf("withoutPassword = %q", got)
	}
}

// pushTwoMachines pushes a session about a wombat from each of two
// machines into a new team database and returns its server and URL.
func pushTwoMachines(t *testing.T) (*pgtest.Server, string) {
	t.Helper()
	srv := pgtest.Start(t)
	url := srv.URL(srv.CreateDB(t), pgtest.Superuser)
	ctx := context.Background()
	db, err := teamsync.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, m := range []string{"laptop", "desktop"} {
		st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.azs"))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := st.Sessions().CreateWithEvents(ctx, "main", "work on "+m, []codec.Event{
			codec.UserMessage("the wombat bug"), codec.AssistantText("fixed the wombat in step " + string(rune('1'+i))),
		}, store.Usage{Event: 1, Source: "claude-stream", Model: "claude-sonnet-4-5", Backend: "claude", Tokens: store.Tokens{Input: 1200, Output: 300}}); err != nil {
			t.Fatal(err)
		}
		o := teamsync.Options{Machine: m, User: "u", Repository: "app", Insight: teamsync.IndexInsight{}}
		if _, err := teamsync.Push(ctx, db, st, o); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	return srv, url
}

// TestTeamSourceInMainWindow switches the main window's sidebar to the
// team database set in the preferences: both machines' sessions are
// listed under their repository and worktree, one opens read-only in the
// window's transcript (no prompt, no store to write) with its usage line,
// the Insights total the team's usage, Ctrl+K searches the team, and
// switching back lists the project's sessions again.
func TestTeamSourceInMainWindow(t *testing.T) {
	_, url := pushTwoMachines(t)
	fa := test.NewTempApp(t)
	fa.Preferences().SetString(prefTeamURL, url)
	wt, st := openTestWorktree(t)
	if _, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", "local work", []codec.Event{codec.UserMessage("hi")}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	pw := testWindow(t, fa, wt)
	pw.search = newSearcher(pw)
	pw.team = newTeamSource(pw)
	defer pw.close()
	pw.list.refresh()
	pw.wg.Wait()
	sb := pw.mv.Sidebar()
	if len(sb.Shown()) != 1 {
		t.Fatalf("the project's sidebar shows %v", sb.Shown())
	}
	sb.SetSource(true)
	pw.wg.Wait()
	shown := sb.Shown()
	if len(shown) != 2 || !shown[0].Ref.IsTeam() || !shown[1].Ref.IsTeam() {
		t.Fatalf("the team source shows %v", shown)
	}
	pw.shown.SelectSession(shown[0].Ref)
	pw.wg.Wait()
	s := pw.mv.Transcript().Session()
	if !strings.HasPrefix(s.Name, "work on ") || s.EventCount != 2 || !strings.HasPrefix(s.Worktree, "app · main · u@") {
		t.Fatalf("the transcript shows %+v", s)
	}
	if _, ok := pw.mv.PromptBox().Session(); ok {
		t.Fatal("the prompt box takes prompts for a team session")
	}
	if u := pw.mv.Header().Usage(); !strings.HasPrefix(u, "1200 in · 300 out · ") {
		t.Fatalf("the header's usage line is %q", u)
	}
	if _, err := pw.store(views.TeamStore); !errors.Is(err, errTeamReadOnly) {
		t.Fatalf("the team session's store opened: %v", err)
	}
	pw.search.Search(0, "wombat")
	pw.wg.Wait()
	hits := pw.search.panel.Hits()
	if len(hits) != 4 || !hits[0].Ref.IsTeam() {
		t.Fatalf("Ctrl+K on the team source found %+v", hits)
	}
	d, err := pw.team.insights(context.Background(), 0, time.Now())
	if err != nil || d.Total.Sessions != 2 || d.Total.Input != 2400 || len(d.Models) != 1 || d.Models[0].Key != "claude-sonnet-4-5" ||
		len(d.Worktrees) != 1 || len(d.Days) == 0 {
		t.Fatalf("team insights %+v, %v", d, err)
	}
	// A search cancelled by the next one closes the connection: the next
	// search opens another.
	if err := pw.team.db.Conn().Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	pw.search.Search(0, "wombat")
	pw.wg.Wait()
	if hits := pw.search.panel.Hits(); len(hits) != 4 {
		t.Fatalf("the search after a closed connection found %d hits (%s)", len(hits), pw.search.panel.Status())
	}
	sb.SetSource(false)
	if got := sb.Shown(); len(got) != 1 || got[0].Ref.IsTeam() {
		t.Fatalf("back on the project, the sidebar shows %v", got)
	}
}

// TestTeamDatabaseSetting sets the team database of a window that had
// none: the Team source lists the team, the preference keeps the URL
// without its password, and unsetting it brings the project back.
func TestTeamDatabaseSetting(t *testing.T) {
	srv, url := pushTwoMachines(t)
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	st.Close()
	pw := testWindow(t, fa, wt)
	pw.search = newSearcher(pw)
	pw.team = newTeamSource(pw)
	defer pw.close()
	sb := pw.mv.Sidebar()
	sb.SetSource(true)
	if sb.TeamShown() {
		t.Fatal("the Team source shows without a team database")
	}
	pw.team.setURL(url)
	sb.SetSource(true)
	pw.wg.Wait()
	if got := sb.Shown(); len(got) != 2 || !got[0].Ref.IsTeam() {
		t.Fatalf("the Team source shows %v", got)
	}
	pw.team.setURL(srv.PasswordURL("lazuli", "Pw-in-the-URL"))
	if got := fa.Preferences().String(prefTeamURL); got == "" || strings.Contains(got, "Pw-in-the-URL") {
		t.Fatalf("kept URL %q", got)
	}
	pw.wg.Wait()
	pw.team.setURL("")
	if sb.TeamShown() || fa.Preferences().String(prefTeamURL) != "" {
		t.Fatalf("after unsetting: team shown %v, kept URL %q", sb.TeamShown(), fa.Preferences().String(prefTeamURL))
	}
}
