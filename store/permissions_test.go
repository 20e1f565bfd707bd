package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestSessionPermissions: a session's mode and rules are written and read
// back as given, an update sees what the last one wrote, the zero value
// removes the row, AZUREAL's rows stay as they were, and Check reports
// the table.
func TestSessionPermissions(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	a := mustCreateSession(t, s, "main", "a")
	b := mustCreateSession(t, s, "main", "b")
	if _, err := s.Events().Append(ctx, a.ID, []codec.Event{codec.UserMessage("x")}); err != nil {
		t.Fatal(err)
	}
	if p, err := s.Permissions().Of(ctx, a.ID); err != nil || !p.IsZero() {
		t.Fatalf("Permissions().Of() before = %+v, %v", p, err)
	}
	if got := rawQueryString(t, s.Path(), "SELECT COUNT(*) FROM sqlite_master WHERE name = 'lazuli_permissions'"); got != "0" {
		t.Errorf("reading created the table")
	}
	before := sessionRows(t, s.Path())
	want := Permissions{Mode: "ask", Rules: []PermissionRule{
		{Permission: "Bash", Pattern: "git *", Action: "allow", Source: "session", AddedAt: "2026-01-02 03:04:05"}}}
	if err := s.Permissions().Set(ctx, a.ID, want); err != nil {
		t.Fatal(err)
	}
	if err := s.Permissions().Update(ctx, a.ID, func(p *Permissions) error {
		p.Rules = append(p.Rules, PermissionRule{Permission: "Edit", Pattern: "src/**", Action: "deny", Source: "session"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want.Rules = append(want.Rules, PermissionRule{Permission: "Edit", Pattern: "src/**", Action: "deny", Source: "session"})
	if got, err := s.Permissions().Of(ctx, a.ID); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("Permissions().Of() = %+v, %v; want %+v", got, err, want)
	}
	if err := s.Permissions().Set(ctx, b.ID, Permissions{Mode: "plan"}); err != nil {
		t.Fatal(err)
	}
	if m, err := s.Permissions().Modes(ctx); err != nil || !reflect.DeepEqual(m, map[int64]string{a.ID: "ask", b.ID: "plan"}) {
		t.Errorf("Permissions().Modes() = %v, %v", m, err)
	}
	if err := s.Permissions().Set(ctx, b.ID, Permissions{}); err != nil {
		t.Fatal(err)
	}
	if got := rawQueryString(t, s.Path(), "SELECT group_concat(session_id) FROM lazuli_permissions"); got != fmt.Sprint(a.ID) {
		t.Errorf("rows %q: a session with no permissions keeps a row", got)
	}
	if after := sessionRows(t, s.Path()); after != before {
		t.Errorf("permissions changed AZUREAL's rows")
	}
	if err := s.Permissions().Set(ctx, 99, Permissions{Mode: "ask"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("permissions of a missing session: %v", err)
	}
	rep, err := s.Check(ctx)
	if err != nil || !rep.OK() || !hasFinding(rep, "permissions", SeverityInfo) || hasFinding(rep, "permissions_stale", SeverityWarning) {
		t.Errorf("Check() = %+v, %v", rep.Findings, err)
	}
	// A row whose rules are not a list is an error, not "no rules".
	path := s.Path()
	s.Close()
	rawExec(t, path, fmt.Sprintf("UPDATE lazuli_permissions SET rules = '{' WHERE session_id = %d", a.ID))
	s = mustOpenPath(t, path)
	if _, err := s.Permissions().Of(ctx, a.ID); err == nil {
		t.Errorf("damaged rules read without an error")
	}
}

// TestSessionPermissionsUnderAZUREAL: AZUREAL's reader sees the same
// sessions and events in a store with permission rules; its delete takes
// a session's row with it; a delete with foreign keys off and a reused id
// leaves a row that the new session does not inherit, reported by Check
// and removed by the next write of permissions.
func TestSessionPermissionsUnderAZUREAL(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	a := mustCreateSession(t, s, "main", "a")
	b := mustCreateSession(t, s, "main", "b")
	c := mustCreateSession(t, s, "main", "c")
	if _, err := s.Events().Append(ctx, b.ID, []codec.Event{codec.UserMessage("x"), codec.AssistantText("y")}); err != nil {
		t.Fatal(err)
	}
	azureal := func() string {
		return rawQueryString(t, s.Path(), `SELECT group_concat(s.id || ':' || s.name || ':' || (SELECT COUNT(*) FROM events e WHERE e.session_id = s.id), ',')
			FROM sessions s WHERE s.worktree = 'main'`) + rawEventRows(t, s.Path())
	}
	before := azureal()
	rule := []PermissionRule{{Permission: "Bash", Pattern: "rm *", Action: "deny", Source: "session"}}
	for _, id := range []int64{a.ID, b.ID, c.ID} {
		if err := s.Permissions().Set(ctx, id, Permissions{Mode: "acceptEdits", Rules: rule}); err != nil {
			t.Fatal(err)
		}
	}
	if after := azureal(); after != before {
		t.Errorf("AZUREAL sees %q, before the rules %q", after, before)
	}
	path := s.Path()
	s.Close()
	azurealDeletes(t, path, a.ID, c.ID)
	if got := rawQueryString(t, path, "SELECT group_concat(session_id) FROM lazuli_permissions"); got != fmt.Sprintf("%d,%d", b.ID, c.ID) {
		t.Errorf("rows left %q", got)
	}
	s = mustOpenPath(t, path)
	if p, err := s.Permissions().Of(ctx, c.ID); err != nil || !p.IsZero() {
		t.Errorf("Permissions().Of(reused id) = %+v, %v; the new session must not inherit the rules", p, err)
	}
	if m, err := s.Permissions().Modes(ctx); err != nil || !reflect.DeepEqual(m, map[int64]string{b.ID: "acceptEdits"}) {
		t.Errorf("Permissions().Modes() = %v, %v", m, err)
	}
	rep, err := s.Check(ctx)
	if err != nil || !rep.OK() || !hasFinding(rep, "permissions_stale", SeverityWarning) {
		t.Errorf("Check() = %+v, %v", rep.Findings, err)
	}
	if err := s.Permissions().Set(ctx, b.ID, Permissions{Mode: "plan"}); err != nil {
		t.Fatal(err)
	}
	if got := rawQueryString(t, path, "SELECT group_concat(session_id) FROM lazuli_permissions"); got != fmt.Sprint(b.ID) {
		t.Errorf("rows after the next write %q", got)
	}
}
