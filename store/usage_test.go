package store

import (
	"context"
	"database/sql"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestUsageRows: usage stored with events lands after the right seq (a
// skipped kind does not shift it), reading creates no table, and rows go
// with their session.
func TestUsageRows(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess, _, err := s.Sessions().CreateWithEvents(ctx, "main", "", []codec.Event{
		codec.UserMessage("one"), codec.Unit(codec.KindFiltered), codec.AssistantText("a"), codec.Complete(true, 1, 0.5),
		codec.UserMessage("two"), codec.AssistantText("b"),
	}, Usage{Event: 3, Model: "m1", Backend: "claude", Tokens: Tokens{Input: 10, Output: 5, CostUSD: 0.5}, HasCost: true},
		Usage{Event: 5, Model: "m2", Backend: "codex", Tokens: Tokens{Input: 7, CacheRead: 3}},
		Usage{Event: -1, Model: "m0"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Events().Append(ctx, sess.ID, []codec.Event{codec.AssistantText("c")}, Usage{Event: 0, Model: "m3"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Usage().Append(ctx, sess.ID, 2, []Usage{{Model: "m4", Tokens: Tokens{Output: 1}}}); err != nil {
		t.Fatal(err)
	}
	rows, err := s.Usage().Rows(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, r := range rows {
		got[r.Model] = r.AfterSeq
	}
	want := map[string]int64{"m0": 0, "m1": 3, "m2": 5, "m3": 6, "m4": 2}
	if len(got) != len(want) {
		t.Fatalf("rows %+v", rows)
	}
	for m, seq := range want {
		if got[m] != seq {
			t.Errorf("%s after seq %d, want %d", m, got[m], seq)
		}
	}
	for _, r := range rows {
		if r.Model == "m1" && (!r.HasCost || r.CostUSD != 0.5 || r.Input != 10) {
			t.Errorf("m1 = %+v", r)
		}
		if r.Model == "m2" && (r.HasCost || r.CacheRead != 3) {
			t.Errorf("m2 = %+v", r)
		}
	}
	// The table and its index are Lazuli's own, not foreign objects.
	rep, err := s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Findings {
		if f.Severity != SeverityInfo {
			t.Errorf("check: %+v", f)
		}
	}
	if err := s.Sessions().Delete(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	if rows, err := s.Usage().Rows(ctx, 0); err != nil || len(rows) != 0 {
		t.Errorf("after delete: %+v, %v", rows, err)
	}
}

// TestUsageVersion: the version of a store without usage is zero; it
// counts the live rows, their largest rowid and their input, output and
// cache read tokens (not cache write nor reasoning), and changes when a
// row is appended or its session deleted.
func TestUsageVersion(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	version := func(label string, want UsageVersion) {
		t.Helper()
		if got, err := s.Usage().Version(ctx); err != nil || got != want {
			t.Errorf("%s: Version() = %+v, %v, want %+v", label, got, err, want)
		}
	}
	version("no table", UsageVersion{})
	a, _, err := s.Sessions().CreateWithEvents(ctx, "main", "", []codec.Event{codec.UserMessage("one"), codec.Complete(true, 1, 0)},
		Usage{Event: 1, Tokens: Tokens{Input: 1, Output: 20, CacheRead: 300, CacheWrite: 4000, Reasoning: 50000}})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := s.Sessions().CreateWithEvents(ctx, "main", "", []codec.Event{codec.UserMessage("two")}, Usage{Event: 0, Tokens: Tokens{Input: 7}})
	if err != nil {
		t.Fatal(err)
	}
	version("created", UsageVersion{Rows: 2, MaxID: 2, Tokens: 328})
	if err := s.Usage().Append(ctx, a.ID, 2, []Usage{{Tokens: Tokens{Output: 1000}}}); err != nil {
		t.Fatal(err)
	}
	version("appended", UsageVersion{Rows: 3, MaxID: 3, Tokens: 1328})
	if err := s.Sessions().Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	version("deleted", UsageVersion{Rows: 2, MaxID: 3, Tokens: 1321})
}

// TestUsageUnderAZUREAL plays AZUREAL deleting a session with foreign keys
// off, then reusing its id: the old usage rows must not count for the new
// session, and check warns about them.
func TestUsageUnderAZUREAL(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	if _, _, err := s.Sessions().CreateWithEvents(ctx, "main", "", []codec.Event{codec.UserMessage("one")}, Usage{Event: 0, Tokens: Tokens{Input: 9}}); err != nil {
		t.Fatal(err)
	}
	path := s.Path()
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"PRAGMA foreign_keys = OFF", "DELETE FROM events WHERE session_id = 1", "DELETE FROM sessions WHERE id = 1",
		"INSERT INTO sessions(id, worktree, created) VALUES (1, 'main', '2031-01-01 00:00:00')", "VACUUM"} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	s = mustOpenPath(t, path)
	if rows, err := s.Usage().Rows(ctx, 0); err != nil || len(rows) != 0 {
		t.Errorf("usage of a reused id: %+v, %v", rows, err)
	}
	if v, err := s.Usage().Version(ctx); err != nil || v != (UsageVersion{}) {
		t.Errorf("version with only the rows of a reused id: Version() = %+v, %v, want the zero version", v, err)
	}
	rep, err := s.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range rep.Findings {
		found = found || f.Code == "usage_stale"
	}
	if !found {
		t.Errorf("check did not warn about stale usage rows: %+v", rep.Findings)
	}
}

// TestTokensAdd: Add sums each kind of tokens and the cost, and the sum is
// estimated when either side was; each case adds one field, so a field
// Add drops fails its case.
func TestTokensAdd(t *testing.T) {
	base := Tokens{Input: 1, Output: 2, CacheRead: 3, CacheWrite: 4, Reasoning: 5, CostUSD: 0.5}
	with := func(f func(*Tokens)) Tokens {
		t := base
		f(&t)
		return t
	}
	for _, tc := range []struct {
		name string
		t, o Tokens
		want Tokens
	}{
		{"Input", base, Tokens{Input: 10}, with(func(t *Tokens) { t.Input = 11 })},
		{"Output", base, Tokens{Output: 20}, with(func(t *Tokens) { t.Output = 22 })},
		{"CacheRead", base, Tokens{CacheRead: 30}, with(func(t *Tokens) { t.CacheRead = 33 })},
		{"CacheWrite", base, Tokens{CacheWrite: 40}, with(func(t *Tokens) { t.CacheWrite = 44 })},
		{"Reasoning", base, Tokens{Reasoning: 50}, with(func(t *Tokens) { t.Reasoning = 55 })},
		{"CostUSD", base, Tokens{CostUSD: 0.25}, with(func(t *Tokens) { t.CostUSD = 0.75 })},
		{"EstimatedAdded", base, Tokens{CostEstimated: true}, with(func(t *Tokens) { t.CostEstimated = true })},
		{"EstimatedKept", with(func(t *Tokens) { t.CostEstimated = true }), Tokens{}, with(func(t *Tokens) { t.CostEstimated = true })},
		{"Zero", base, Tokens{}, base},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.t
			got.Add(tc.o)
			if got != tc.want {
				t.Errorf("%+v.Add(%+v) = %+v, want %+v", tc.t, tc.o, got, tc.want)
			}
		})
	}
}

// TestTokensTotal: Total counts input, output and cache read and written,
// and not reasoning (already in output).
func TestTokensTotal(t *testing.T) {
	for _, tc := range []struct {
		name string
		t    Tokens
		want int64
	}{
		{"Input", Tokens{Input: 1}, 1},
		{"Output", Tokens{Output: 2}, 2},
		{"CacheRead", Tokens{CacheRead: 3}, 3},
		{"CacheWrite", Tokens{CacheWrite: 4}, 4},
		{"Reasoning", Tokens{Output: 5, Reasoning: 5}, 5},
		{"All", Tokens{Input: 1, Output: 20, CacheRead: 300, CacheWrite: 4000, Reasoning: 10, CostUSD: 9}, 4321},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.t.Total(); got != tc.want {
				t.Errorf("%+v.Total() = %d, want %d", tc.t, got, tc.want)
			}
		})
	}
}
