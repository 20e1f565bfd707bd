package e2e

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	fm "github.com/lazuli-app/lazuli/internal/fakemodel"
	"github.com/lazuli-app/lazuli/internal/pgtest"
)

// TestTeamPullThenContinue has a teammate's real claude session pushed to
// a real PostgreSQL server, pulled into another worktree's store and
// continued there with lazuli run: the agent's request holds the
// teammate's history in its injected context (the scripted model routes
// on it), and the continued session keeps both turns.
func TestTeamPullThenContinue(t *testing.T) {
	claude := fm.NeedCLI(t, "claude")
	srv, err := pgtest.New()
	if err != nil {
		pgtest.Missing(t, err)
	}
	t.Cleanup(srv.Close)
	url := srv.URL(srv.CreateDB(t), pgtest.Superuser)
	const teammate = "Teammate answer: the flaky test is TestQuokka, fixed with a mutex."
	h := newHarness(t, fm.Script{fm.Text(teammate)},
		fm.Route{Contains: "TestQuokka, fixed with a mutex", Script: fm.Script{fm.Text("I see the teammate's fix of TestQuokka.")}})
	b := backend{"claude", claude}
	if rr, r := h.run(b, "Which test is flaky?"); r.code != 0 || rr.Session != 1 {
		t.Fatalf("teammate's run:\n%s", r)
	}
	h.ok("sync", "push", "--pg", url, "--store", h.store, "--machine", "alice-laptop")

	var list []struct {
		ID      int64  `json:"id"`
		Machine string `json:"machine"`
	}
	if r := h.ok("team", "ls", "--pg", url, "--json"); json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 1 || list[0].Machine != "alice-laptop" {
		t.Fatalf("team ls: %+v\n%s", list, r)
	}
	mine := filepath.Join(t.TempDir(), "mine", ".azureal", "sessions.azs")
	r := h.ok("team", "pull", "--pg", url, "--store", mine, "--json", strconv.FormatInt(list[0].ID, 10))
	var pulled struct {
		SessionID int64 `json:"session_id"`
		Duplicate bool  `json:"duplicate"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &pulled); err != nil || pulled.SessionID == 0 || pulled.Duplicate {
		t.Fatalf("team pull: %+v, %v\n%s", pulled, err, r)
	}
	local := strconv.FormatInt(pulled.SessionID, 10)
	const second = "Continue: what did my teammate find?"
	want := h.ok("context", "--store", mine, local, second).stdout
	if !strings.HasPrefix(want, "<azureal-session-context>\n") || !strings.Contains(want, teammate) {
		t.Fatalf("lazuli context of the pulled session = %q", want)
	}
	r = h.lazuli("", "run", "--json", "--store", mine, "--backend", "claude", "--session", local, second)
	rr := decodeRun(t, r)
	if r.code != 0 || rr.Completed == nil || !*rr.Completed || rr.Session != pulled.SessionID {
		t.Fatalf("continued run:\n%s", r)
	}
	h.checkContextSent(want, "the continued run's request did not carry the teammate's history")
	evs := h.ok("show", "--json", "--store", mine, local).stdout
	if !strings.Contains(evs, teammate) || !strings.Contains(evs, "I see the teammate's fix of TestQuokka.") {
		t.Errorf("the continued session lacks a turn:\n%.3000s", evs)
	}
}
