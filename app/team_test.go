package app

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/internal/pgtest"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/teamsync"
)

// TestTeamWindow: two stores pushed as two machines show up together in
// the Team window, a session opens read-only with its transcript, a team
// search finds both machines' events, and the URL is kept without its
// password.
func TestTeamWindow(t *testing.T) {
	srv := pgtest.Start(t)
	url := srv.URL(srv.CreateDB(t), pgtest.Superuser)
	fa := test.NewTempApp(t)
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
		if _, _, err := st.CreateSessionWithEvents(ctx, "main", "work on "+m, []store.Event{
			store.UserMessage("the wombat bug"), store.AssistantText("fixed the wombat in step " + string(rune('1'+i))),
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := teamsync.Push(ctx, db, st, teamsync.Options{Machine: m, User: "u", Repository: "app"}); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
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
