package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// forkParent stores a session of three prompts, each with thinking and
// tool calls (full text kept), compacted through seqs 5 and 9.
// Its prompts are at seqs 1, 7 and 13.
func forkParent(t *testing.T, s *Store) Session {
	t.Helper()
	ctx := context.Background()
	sess := mustCreateSession(t, s, "main", "plan")
	for i := range 3 {
		evs := fullEvents()
		evs[0] = codec.UserMessage(fmt.Sprintf("prompt %d", i))
		evs = append(evs[:1], append([]codec.Event{Thinking(fmt.Sprintf("why %d", i))}, evs[1:]...)...)
		if _, err := s.Events().Append(ctx, sess.ID, evs); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Compactions().Add(ctx, sess.ID, 5, "the first turn"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compactions().Add(ctx, sess.ID, 9, "through the second prompt"); err != nil {
		t.Fatal(err)
	}
	return sess
}

// forkRows returns a session's event rows from seq from to to as
// seq|kind|char_len|hex(data).
func forkRows(t *testing.T, path string, id, from, to int64) string {
	t.Helper()
	return rawQueryString(t, path, fmt.Sprintf(`SELECT group_concat(kind || '|' || char_len || '|' || hex(data), ',')
		FROM (SELECT * FROM events WHERE session_id = %d AND seq BETWEEN %d AND %d ORDER BY seq)`, id, from, to))
}

// TestFork: a fork holds the parent's events before the prompt byte for
// byte, renumbered from 1, the compactions wholly before it and the full
// text of its events; its context is the parent's at that prompt, also
// inside a compacted range (seq 7 lies in 6..9); the parent is untouched and the link is kept.
func TestFork(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	parent := forkParent(t, s)
	before := forkRows(t, s.Path(), parent.ID, 1, 100)
	for _, at := range []int64{1, 7, 13} {
		f, err := s.Forks().Create(ctx, parent.ID, at, "")
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("plan ⑂ %d", (at+5)/6); f.Name != want || f.Worktree != "main" || f.EventCount != at-1 {
			t.Errorf("fork at %d: %q in %q with %d events, want %q with %d", at, f.Name, f.Worktree, f.EventCount, want, at-1)
		}
		if got, want := forkRows(t, s.Path(), f.ID, 1, 100), forkRows(t, s.Path(), parent.ID, 1, at-1); got != want {
			t.Errorf("fork at %d: rows differ from the parent's\n%s\n%s", at, got, want)
		}
		if got := rawQueryString(t, s.Path(), fmt.Sprintf("SELECT COALESCE(MIN(seq), 0) || '-' || COALESCE(MAX(seq), 0) FROM events WHERE session_id = %d", f.ID)); got != fmt.Sprintf("%d-%d", min(1, at-1), at-1) {
			t.Errorf("fork at %d: seqs %s", at, got)
		}
		want, err := s.Forks().ContextAt(ctx, parent.ID, at)
		if err != nil {
			t.Fatal(err)
		}
		got, err := s.Compactions().Context(ctx, f.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || codec.BuildContextPrompt(got, "next") != codec.BuildContextPrompt(want, "next") {
			t.Errorf("fork at %d: context %+v, parent's at that seq %+v", at, got, want)
		}
		comps, _ := s.Compactions().Of(ctx, f.ID)
		if wantComps := map[int64]int{1: 0, 7: 1, 13: 2}[at]; len(comps) != wantComps {
			t.Errorf("fork at %d: %d compactions, want %d", at, len(comps), wantComps)
		}
		thoughts, err := s.Thinking().Of(ctx, f.ID)
		if n := int((at - 1) / 6); err != nil || len(thoughts) != n || (n > 0 && (thoughts[n-1].BeforeSeq != at-5 || thoughts[n-1].Text != fmt.Sprintf("why %d", n-1))) {
			t.Errorf("fork at %d: thoughts %+v, %v", at, thoughts, err)
		}
		full, err := s.FullText().Of(ctx, f.ID)
		if wantFull := 2 * int((at-1)/6); err != nil || len(full) != wantFull {
			t.Errorf("fork at %d: %d full texts, want %d (%v)", at, len(full), wantFull, err)
		}
	}
	p := rawQueryString(t, s.Path(), fmt.Sprintf("SELECT group_concat(seq) FROM events WHERE session_id = %d AND kind = 'UserMessage'", parent.ID))
	if p != "1,7,13" {
		t.Fatalf("prompts at %s", p)
	}
	if got := forkRows(t, s.Path(), parent.ID, 1, 100); got != before {
		t.Errorf("forking changed the parent")
	}
	links, err := s.Forks().All(ctx)
	if err != nil || len(links) != 3 {
		t.Fatalf("Forks().All() = %v, %v", links, err)
	}
	for id, l := range links {
		if l.SessionID != id || l.ParentID != parent.ID || (l.ParentSeq != 1 && l.ParentSeq != 7 && l.ParentSeq != 13) {
			t.Errorf("link %+v", l)
		}
		if l.Copied != l.ParentSeq-1 { // the fork's copies: the parent's events before the prompt
			t.Errorf("link %+v: Copied = %d, want %d", l, l.Copied, l.ParentSeq-1)
		}
	}
	named, err := s.Forks().Create(ctx, parent.ID, 7, "other way")
	if err != nil || named.Name != "other way" {
		t.Errorf("named fork: %+v, %v", named, err)
	}
	if again, err := s.Forks().Create(ctx, parent.ID, 7, ""); err != nil || again.Name != "plan ⑂ 4" {
		t.Errorf("fork of a fork point again: %q, %v", again.Name, err)
	}
	for _, bad := range []int64{0, 2, 99} {
		if _, err := s.Forks().Create(ctx, parent.ID, bad, ""); !errors.Is(err, ErrNotPrompt) {
			t.Errorf("fork at %d: %v, want ErrNotPrompt", bad, err)
		}
	}
	if _, err := s.Forks().Create(ctx, 99, 1, ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("fork of a missing session: %v", err)
	}
	rep, err := s.Check(ctx)
	if err != nil || !rep.OK() || !hasFinding(rep, "forks", SeverityInfo) || hasFinding(rep, "forks_stale", SeverityWarning) {
		t.Errorf("Check() = %+v, %v", rep.Findings, err)
	}
}

// TestForkInsideCompaction: a fork made at a prompt a compaction covers
// does not carry that compaction; its context is the parent's at the
// prompt, built from the earlier compaction and the events after it.
func TestForkInsideCompaction(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	parent := forkParent(t, s)
	if _, err := s.Compactions().Add(ctx, parent.ID, 15, "past the third prompt"); err != nil {
		t.Fatal(err)
	}
	f, err := s.Forks().Create(ctx, parent.ID, 13, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Compactions().Context(ctx, f.ID)
	if err != nil {
		t.Fatal(err)
	}
	want, err := s.Forks().ContextAt(ctx, parent.ID, 13)
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || got.Summary == nil || *got.Summary != "through the second prompt" || len(got.Events) != 3 || !reflect.DeepEqual(got, want) {
		t.Errorf("context %+v, want %+v", got, want)
	}
	if now, _ := s.Compactions().Context(ctx, parent.ID); reflect.DeepEqual(now, want) {
		t.Errorf("the parent's context today is its context at seq 13: the test shows nothing")
	}
}

// TestForkCompactionAtThePrompt: a fork at the prompt at seq 13 carries a
// compaction that ends right before the prompt (after_seq 12, kept as 12:
// the fork's context is that summary alone) and not one that ends at the
// prompt itself (after_seq 13 covers the prompt, which the fork does not
// copy: its context is the earlier summary and the events after it).
func TestForkCompactionAtThePrompt(t *testing.T) {
	ctx := context.Background()
	const at = 13
	for _, tc := range []struct {
		name      string
		afterSeq  int64
		wantComps string // the fork's compactions, after_seq:summary
		wantSum   string // the summary of the fork's context
		wantEvs   int    // the events of the fork's context
	}{
		{"ends before the prompt", at - 1, "5:the first turn,9:through the second prompt,12:up to the prompt", "up to the prompt", 0},
		{"ends at the prompt", at, "5:the first turn,9:through the second prompt", "through the second prompt", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustOpen(t)
			parent := forkParent(t, s)
			if _, err := s.Compactions().Add(ctx, parent.ID, tc.afterSeq, "up to the prompt"); err != nil {
				t.Fatal(err)
			}
			f, err := s.Forks().Create(ctx, parent.ID, at, "")
			if err != nil {
				t.Fatal(err)
			}
			comps, err := s.Compactions().Of(ctx, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range comps {
				got = append(got, fmt.Sprintf("%d:%s", c.AfterSeq, c.Summary))
			}
			if g := strings.Join(got, ","); g != tc.wantComps {
				t.Errorf("Forks().Create(%d) after a compaction at %d: compactions %q, want %q", at, tc.afterSeq, g, tc.wantComps)
			}
			fc, err := s.Compactions().Context(ctx, f.ID)
			if err != nil {
				t.Fatal(err)
			}
			if fc == nil || fc.Summary == nil || *fc.Summary != tc.wantSum || len(fc.Events) != tc.wantEvs {
				t.Errorf("BuildContext(fork) = %+v, want summary %q and %d events", fc, tc.wantSum, tc.wantEvs)
			}
			if pc, err := s.Forks().ContextAt(ctx, parent.ID, at); err != nil || !reflect.DeepEqual(fc, pc) {
				t.Errorf("Forks().ContextAt(parent, %d) = %+v, %v; want the fork's %+v", at, pc, err, fc)
			}
		})
	}
}

// TestForkUnderAZUREAL: AZUREAL reads a store with forks as sessions like
// any other; its delete of a fork takes the link with it; its delete of a
// parent (or a delete with foreign keys off and a reused id) leaves a row
// that is ignored, reported by Check and removed by the next fork.
func TestForkUnderAZUREAL(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	parent := forkParent(t, s)
	a, _ := s.Forks().Create(ctx, parent.ID, 7, "")
	b, _ := s.Forks().Create(ctx, parent.ID, 13, "")
	c, _ := s.Forks().Create(ctx, a.ID, 1, "")
	path := s.Path()
	// AZUREAL's list query sees four sessions with their names and counts.
	if got := rawQueryString(t, path, `SELECT group_concat(s.id || ':' || s.name || ':' || (SELECT COUNT(*) FROM events e WHERE e.session_id = s.id), ',')
		FROM sessions s WHERE s.worktree = 'main'`); got != "1:plan:18,2:plan ⑂ 1:6,3:plan ⑂ 2:12,4:plan ⑂ 1 ⑂ 1:0" {
		t.Errorf("AZUREAL sees %q", got)
	}
	s.Close()
	rawExec(t, path, "PRAGMA foreign_keys = ON", fmt.Sprintf("DELETE FROM sessions WHERE id = %d", b.ID), "VACUUM",
		fmt.Sprintf("DELETE FROM sessions WHERE id = %d", parent.ID), "VACUUM")
	if got := rawQueryString(t, path, "SELECT group_concat(session_id) FROM lazuli_forks"); got != fmt.Sprintf("%d,%d", a.ID, c.ID) {
		t.Errorf("rows left %q", got)
	}
	// A delete with foreign keys off, and the id reused by another session.
	rawExec(t, path, "PRAGMA foreign_keys = OFF", fmt.Sprintf("DELETE FROM sessions WHERE id = %d", c.ID),
		fmt.Sprintf("INSERT INTO sessions(id, name, worktree, created) VALUES (%d, 'reused', 'main', '2001-01-01 00:00:00')", c.ID))
	s = mustOpenPath(t, path)
	links, err := s.Forks().All(ctx)
	if err != nil || len(links) != 0 {
		t.Errorf("Forks().All() = %v, %v; want none: one parent and one fork are gone", links, err)
	}
	list, err := s.Sessions().List(ctx, "")
	if err != nil || len(list) != 2 {
		t.Fatalf("ListSessions() = %d, %v", len(list), err)
	}
	rep, err := s.Check(ctx)
	if err != nil || !rep.OK() || !hasFinding(rep, "forks_stale", SeverityWarning) {
		t.Errorf("Check() = %+v, %v", rep.Findings, err)
	}
	if _, err := s.Events().Append(ctx, c.ID, []codec.Event{codec.UserMessage("again")}); err != nil {
		t.Fatal(err)
	}
	d, err := s.Forks().Create(ctx, c.ID, 1, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := rawQueryString(t, path, "SELECT group_concat(session_id) FROM lazuli_forks"); got != fmt.Sprint(d.ID) {
		t.Errorf("rows after the next fork %q, want only %d", got, d.ID)
	}
	if links, err := s.Forks().All(ctx); err != nil || links[d.ID].ParentID != c.ID {
		t.Errorf("Forks().All() = %v, %v", links, err)
	}
}

// An interruption stored as a user message is not a prompt: no fork
// starts there.
func TestForkNotAtInterruption(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess, err := s.Sessions().Create(ctx, "main", "interrupted")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Events().Append(ctx, sess.ID, []codec.Event{
		codec.UserMessage("go"),
		codec.AssistantText("working"),
		codec.UserMessage("[Request interrupted by user for tool use]"),
		codec.UserMessage("try again"),
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Forks().Create(ctx, sess.ID, 3, ""); !errors.Is(err, ErrNotPrompt) {
		t.Errorf("fork at the interruption: %v, want ErrNotPrompt", err)
	}
	if _, err := s.Forks().Create(ctx, sess.ID, 4, ""); err != nil {
		t.Errorf("fork at the prompt after it: %v", err)
	}
}
