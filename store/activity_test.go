package store

import (
	"context"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestListLastActivity: a session created long ago and continued recently
// is listed with the time of its latest turn, not its created time; the
// quick list agrees; rows of a deleted session under a reused id do not
// count.
func TestListLastActivity(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	old, _, err := s.Transfer().CreateAt(ctx, "main", "old but busy", "2025-01-02 03:04:05", []codec.Event{codec.UserMessage("start")})
	if err != nil {
		t.Fatal(err)
	}
	fresh, _, err := s.Transfer().CreateAt(ctx, "main", "new and idle", "2026-06-01 00:00:00", []codec.Event{codec.UserMessage("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Events().Append(ctx, old.ID, []codec.Event{codec.UserMessage("more"), codec.AssistantText("done"), codec.Complete(true, 10, 0)},
		Usage{Event: 2, At: "2026-11-20 10:00:00", Backend: "claude", Tokens: Tokens{Input: 1}}); err != nil {
		t.Fatal(err)
	}
	want := map[int64]string{old.ID: "2026-11-20 10:00:00", fresh.ID: "2026-06-01 00:00:00"}
	check := func(label string, list []Session) {
		t.Helper()
		for _, x := range list {
			if x.LastActive != want[x.ID] {
				t.Errorf("%s: S%d LastActive %q, want %q", label, x.ID, x.LastActive, want[x.ID])
			}
		}
	}
	list, err := s.Sessions().List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	check("ListSessions", list)
	if list[0].ID != old.ID {
		t.Errorf("list order %+v: the session continued last is not first", list)
	}
	quick, _, err := mustOpenPath(t, s.Path()).Sessions().ListQuick(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	check("ListSessionsQuick", quick)
	for id := range want { // Get reads the one session's rows only
		one, err := s.Sessions().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		check("Get", []Session{one})
	}

	// A later failure counts too.
	mustAppend(t, s, fresh.ID, codec.Complete(false, 1, 0), RunFailed("exit 1"))
	list, _ = s.Sessions().List(ctx, "")
	for _, x := range list {
		if x.ID == fresh.ID && x.LastActive <= "2026-06-01 00:00:00" {
			t.Errorf("a run failure recorded now does not count: %q", x.LastActive)
		}
	}

	// Usage left by a deleted session whose id was reused does not count.
	rawExec(t, s.Path(), "PRAGMA foreign_keys = OFF", "DELETE FROM sessions WHERE id = 1",
		"INSERT INTO sessions(id, worktree, created) VALUES (1, 'main', '2024-01-01 00:00:00')")
	list, _ = s.Sessions().List(ctx, "")
	for _, x := range list {
		if x.ID == 1 && x.LastActive != "2024-01-01 00:00:00" {
			t.Errorf("a reused id inherits its predecessor's activity: %q", x.LastActive)
		}
	}
}

// TestListInterrupted: a session whose last turn was stopped (a Codex
// turn_aborted: the notice, then the failed Complete) is marked
// Interrupted; an ordinary failure, and an interrupted turn the session
// went on from, are not. A session whose last Complete is followed by
// prompts has an unknown end, not that Complete's status.
func TestListInterrupted(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	mk := func(events ...codec.Event) int64 {
		x := mustCreateSession(t, s, "main", "")
		mustAppend(t, s, x.ID, events...)
		return x.ID
	}
	stopped := mk(codec.UserMessage("go"), codec.AssistantText(TurnAbortedText("interrupted")), codec.Complete(false, 5000, 0))
	failed := mk(codec.UserMessage("go"), codec.AssistantText("I could not."), codec.Complete(false, 5000, 0))
	resumed := mk(codec.UserMessage("go"), codec.AssistantText(TurnAbortedText("interrupted")), codec.Complete(false, 5000, 0),
		codec.UserMessage("again"), codec.AssistantText("ok"), codec.Complete(true, 10, 0))
	// A Codex rollout without task_complete: only its interrupted turn
	// stored a Complete, and the turns after it ended normally.
	laterTurns := mk(codec.UserMessage("go"), codec.AssistantText(TurnAbortedText("interrupted")), codec.Complete(false, 420000, 0),
		codec.UserMessage("again"), codec.AssistantText("done"), codec.UserMessage("more"), codec.AssistantText("done too"))
	doneThenPrompt := mk(codec.UserMessage("go"), codec.AssistantText("ok"), codec.Complete(true, 10, 0), codec.UserMessage("again"))
	// Events after the interrupted turn's Complete that start no turn.
	trailing := mk(codec.UserMessage("go"), codec.AssistantText(TurnAbortedText("interrupted")), codec.Complete(false, 5000, 0),
		codec.AssistantText("a late notice"))
	list, err := s.Sessions().List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]bool{stopped: true, failed: false, resumed: false, laterTurns: false, doneThenPrompt: false, trailing: true}
	unknown := map[int64]bool{laterTurns: true, doneThenPrompt: true}
	check := func(x Session) {
		t.Helper()
		if x.Interrupted != want[x.ID] {
			t.Errorf("S%d Interrupted = %v, want %v", x.ID, x.Interrupted, want[x.ID])
		}
		if x.Unfinished != unknown[x.ID] {
			t.Errorf("S%d Unfinished = %v, want %v", x.ID, x.Unfinished, unknown[x.ID])
		}
		if x.Completed == nil {
			t.Errorf("S%d Completed = nil: the stored column must be kept", x.ID)
		}
	}
	for _, x := range list {
		check(x)
	}
	for id := range want {
		x, err := s.Sessions().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		check(x)
	}
	if r, ok := TurnAborted(codec.AssistantText("Turn interrupted")); !ok || r != "interrupted" {
		t.Errorf("TurnAborted = %q, %v", r, ok)
	}
	if _, ok := TurnAborted(codec.AssistantText("Turn interrupted by the user, who then asked")); ok {
		t.Error("ordinary text taken for the notice")
	}
}
