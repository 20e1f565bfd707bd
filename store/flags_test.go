package store

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestSessionFlags: pin and archive set and clear their marks, keep the
// first time a mark was set, leave the sessions' rows as they were, and
// a session with neither mark has no row.
func TestSessionFlags(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	a := mustCreateSession(t, s, "main", "a")
	b := mustCreateSession(t, s, "main", "b")
	if _, err := s.Events().Append(ctx, a.ID, []codec.Event{codec.UserMessage("x")}); err != nil {
		t.Fatal(err)
	}
	if f, err := s.Flags().All(ctx); err != nil || len(f) != 0 {
		t.Fatalf("Flags().All() before = %v, %v", f, err)
	}
	if got := rawQueryString(t, s.Path(), "SELECT COUNT(*) FROM sqlite_master WHERE name = 'lazuli_session_flags'"); got != "0" {
		t.Errorf("reading created the table")
	}
	before := sessionRows(t, s.Path())
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(s.Flags().SetPinned(ctx, a.ID, true))
	must(s.Flags().SetArchived(ctx, b.ID, true))
	must(s.Flags().SetArchived(ctx, a.ID, true))
	must(s.Flags().SetPinned(ctx, a.ID, true)) // again: no change
	f, err := s.Flags().All(ctx)
	if err != nil || len(f) != 2 || !f[a.ID].Pinned() || !f[a.ID].Archived() || f[b.ID].Pinned() || !f[b.ID].Archived() {
		t.Fatalf("Flags().All() = %+v, %v", f, err)
	}
	must(s.Flags().SetArchived(ctx, a.ID, false))
	must(s.Flags().SetArchived(ctx, b.ID, false))
	f, _ = s.Flags().All(ctx)
	if len(f) != 1 || !f[a.ID].Pinned() || f[a.ID].Archived() {
		t.Errorf("after unarchive: %+v", f)
	}
	if got := rawQueryString(t, s.Path(), "SELECT group_concat(session_id) FROM lazuli_session_flags"); got != fmt.Sprint(a.ID) {
		t.Errorf("rows %q: a session with no mark keeps a row", got)
	}
	if after := sessionRows(t, s.Path()); after != before {
		t.Errorf("marks changed AZUREAL's rows")
	}
	if err := s.Flags().SetPinned(ctx, 99, true); !errors.Is(err, ErrNotFound) {
		t.Errorf("pin of a missing session: %v", err)
	}
	rep, err := s.Check(ctx)
	if err != nil || !rep.OK() || !hasFinding(rep, "session_flags", SeverityInfo) || hasFinding(rep, "session_flags_stale", SeverityWarning) {
		t.Errorf("Check() = %+v, %v", rep.Findings, err)
	}
}

// sessionRows is every row of AZUREAL's sessions and events tables, to
// compare before and after a write to one of Lazuli's own tables.
func sessionRows(t *testing.T, path string) string {
	t.Helper()
	return rawQueryString(t, path, "SELECT group_concat(id || name || worktree || created, ',') FROM sessions") + rawEventRows(t, path)
}

// azurealDeletes plays AZUREAL's delete of session deleted (foreign keys
// on, then VACUUM), and a delete of session reused with foreign keys off
// followed by a new session under its id.
func azurealDeletes(t *testing.T, path string, deleted, reused int64) {
	t.Helper()
	rawExec(t, path, "PRAGMA foreign_keys = ON", fmt.Sprintf("DELETE FROM sessions WHERE id = %d", deleted), "VACUUM",
		"PRAGMA foreign_keys = OFF", fmt.Sprintf("DELETE FROM sessions WHERE id = %d", reused),
		fmt.Sprintf("INSERT INTO sessions(id, name, worktree, created) VALUES (%d, 'reused', 'main', '2001-01-01 00:00:00')", reused))
}

// TestSessionFlagsUnderAZUREAL: AZUREAL's delete takes a session's marks
// with it; a delete with foreign keys off and a reused id leaves a row
// that the new session does not inherit, reported by Check and removed by
// the next write of a mark.
func TestSessionFlagsUnderAZUREAL(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	a := mustCreateSession(t, s, "main", "a")
	b := mustCreateSession(t, s, "main", "b")
	c := mustCreateSession(t, s, "main", "c")
	for _, id := range []int64{a.ID, b.ID, c.ID} {
		if err := s.Flags().SetArchived(ctx, id, true); err != nil {
			t.Fatal(err)
		}
	}
	path := s.Path()
	s.Close()
	azurealDeletes(t, path, a.ID, c.ID)
	if got := rawQueryString(t, path, "SELECT group_concat(session_id) FROM lazuli_session_flags"); got != fmt.Sprintf("%d,%d", b.ID, c.ID) {
		t.Errorf("rows left %q", got)
	}
	s = mustOpenPath(t, path)
	f, err := s.Flags().All(ctx)
	if err != nil || len(f) != 1 || !f[b.ID].Archived() {
		t.Errorf("Flags().All() = %+v, %v; the reused id must not be archived", f, err)
	}
	rep, err := s.Check(ctx)
	if err != nil || !rep.OK() || !hasFinding(rep, "session_flags_stale", SeverityWarning) {
		t.Errorf("Check() = %+v, %v", rep.Findings, err)
	}
	if err := s.Flags().SetPinned(ctx, b.ID, true); err != nil {
		t.Fatal(err)
	}
	if got := rawQueryString(t, path, "SELECT group_concat(session_id) FROM lazuli_session_flags"); got != fmt.Sprint(b.ID) {
		t.Errorf("rows after the next write %q", got)
	}
}
