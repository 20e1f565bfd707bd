package store

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestRunFailureBesideTheEvents: a run's failure reason is kept beside the
// session, shown with the event the run ended with, and is in none of what
// AZUREAL reads: events, counts, char_len, the context prompt.
func TestRunFailureBesideTheEvents(t *testing.T) {
	ctx := context.Background()
	with, without := mustOpen(t), mustOpen(t)
	evs := []codec.Event{codec.UserMessage("fix it"), codec.Complete(false, 900, 0)}
	a := mustCreateSession(t, with, "main", "")
	b := mustCreateSession(t, without, "main", "")
	reason := "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"
	// The failure comes in the batch that ends the run, after its ✗.
	mustAppend(t, with, a.ID, append(evs, RunFailed("  "+reason+"\n"), RunFailed(" \n"))...)
	mustAppend(t, without, b.ID, evs...)

	got, _ := with.Dump(ctx)
	want, _ := without.Dump(ctx)
	got.Sessions[0].Created = want.Sessions[0].Created
	if d := firstDiff("dump", got, want); d != "" {
		t.Errorf("AZUREAL's view of the store changed: %s", d)
	}
	sw, _ := with.Sessions().Get(ctx, a.ID)
	so, _ := without.Sessions().Get(ctx, b.ID)
	if sw.EventCount != so.EventCount || sw.CharsSinceCompaction != so.CharsSinceCompaction {
		t.Errorf("session %+v, want the counts of %+v", sw, so)
	}
	cw, _ := with.Compactions().Context(ctx, a.ID)
	co, _ := without.Compactions().Context(ctx, b.ID)
	if p := codec.BuildContextPrompt(cw, "next"); p != codec.BuildContextPrompt(co, "next") || strings.Contains(p, "root/sudo") {
		t.Error("the failure reason reached the context prompt")
	}

	events := mustLoad(t, with, a.ID)
	var shown [][]string
	for _, e := range events {
		shown = append(shown, e.RunFailures)
	}
	if wantShown := [][]string{nil, {reason}}; !reflect.DeepEqual(shown, wantShown) {
		t.Errorf("failures per event = %q, want %q", shown, wantShown)
	}
	// The next run's events come after it; it stays with the event it followed.
	mustAppend(t, with, a.ID, codec.UserMessage("again"))
	if events := mustLoad(t, with, a.ID); len(events[1].RunFailures) != 1 || events[2].RunFailures != nil {
		t.Errorf("after the next prompt: %+v", events)
	}
	if part, err := with.Events().Range(ctx, a.ID, 1, 1); err != nil || part[0].RunFailures != nil {
		t.Errorf("a range before the failure shows it: %+v, %v", part, err)
	}
	if fs, err := without.RunFailures().Of(ctx, b.ID); err != nil || fs != nil {
		t.Errorf("a store without the table: %v, %v", fs, err)
	}
	rep, err := with.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Severity != SeverityInfo || f.Code != "run_failures" {
			t.Errorf("Check() finding %+v", f)
		}
	}
}

// TestRunFailuresUnderAZUREAL: AZUREAL's delete takes the failures along
// (cascade); with foreign keys off they stay behind but a session that
// reuses the id does not show them, Check reports them stale, and the next
// failure recorded removes them.
func TestRunFailuresUnderAZUREAL(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	a := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, a.ID, codec.UserMessage("q"))
	mustAppend(t, s, a.ID, RunFailed("no API key"))
	path := s.Path()
	s.Close()
	db, conn := openAsAZUREAL(t, path)
	if _, err := conn.ExecContext(ctx, "DELETE FROM sessions WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM lazuli_run_failures").Scan(&left); err != nil || left != 0 {
		t.Errorf("failure rows after AZUREAL's delete: %d, %v", left, err)
	}
	conn.Close()
	db.Close()

	s = mustOpen(t)
	a = mustCreateSession(t, s, "main", "")
	mustAppend(t, s, a.ID, codec.UserMessage("q"))
	mustAppend(t, s, a.ID, RunFailed("old reason"))
	rawExec(t, s.Path(), "DELETE FROM sessions WHERE id = 1",
		"INSERT INTO sessions(id, worktree, created) VALUES (1, 'main', '2000-01-01 00:00:00')")
	if fs, err := s.RunFailures().Of(ctx, a.ID); err != nil || len(fs) != 0 {
		t.Errorf("a reused session id shows %v, %v", fs, err)
	}
	rep, err := s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stale := false
	for _, f := range rep.Findings {
		stale = stale || f.Code == "run_failures_stale"
	}
	if !stale {
		t.Errorf("Check() does not report the stale row: %+v", rep.Findings)
	}
	mustAppend(t, s, a.ID, codec.Complete(false, 1, 0), RunFailed("new reason"))
	if got := rawQueryString(t, s.Path(), "SELECT group_concat(reason) FROM lazuli_run_failures"); got != "new reason" {
		t.Errorf("rows after the next failure: %q, want only the new one", got)
	}
}

// TestRunFailureCapped: a long reason keeps its end, within
// MaxRunFailureLen, cut at a character boundary.
func TestRunFailureCapped(t *testing.T) {
	s := mustOpen(t)
	a := mustCreateSession(t, s, "main", "")
	long := strings.Repeat("é", MaxRunFailureLen) + "\nError: the last line says most"
	mustAppend(t, s, a.ID, codec.UserMessage("q"), RunFailed(long))
	fs, err := s.RunFailures().Of(context.Background(), a.ID)
	if err != nil || len(fs) != 1 {
		t.Fatalf("%+v, %v", fs, err)
	}
	r := fs[0].Reason
	if len(r) > MaxRunFailureLen+len("…") || !strings.HasPrefix(r, "…é") || !strings.HasSuffix(r, "the last line says most") || fs[0].AfterSeq != 1 {
		t.Errorf("kept %d bytes %q…, after seq %d", len(r), r[:12], fs[0].AfterSeq)
	}
}
