package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

func TestSessionFacets(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	a := mustCreateSession(t, s, "main", "")
	b := mustCreateSession(t, s, "main", "")
	c := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, a.ID, codec.Init("/w", "claude-sonnet-4-5"), codec.UserMessage("q"), codec.Complete(false, 5, 0), codec.UserMessage("again"), codec.Complete(true, 5, 0))
	mustAppend(t, s, b.ID, codec.Init("/w", "gpt-5-codex"), codec.ModelSwitch("gpt-5.5"), codec.UserMessage("q"), codec.Complete(true, 1, 0))
	got, err := s.Sessions().Facets(ctx, []int64{a.ID, b.ID, c.ID, 99})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]Facets{a.ID: {Model: "claude-sonnet-4-5", Failed: true}, b.ID: {Model: "gpt-5.5"}, c.ID: {}, 99: {}}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("session %d: %+v, want %+v", id, got[id], w)
		}
	}
}

// TestSessionFacetsBackend: the backend of a session's last usage row is
// its Facets.Backend (and UsageBackend) until an Init or ModelSwitch comes
// after it; a row of another session that reused the id is ignored.
func TestSessionFacetsBackend(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	pi, _, err := s.Sessions().CreateWithEvents(ctx, "main", "", []codec.Event{
		codec.Init("/w", "claude-sonnet-4-5"), codec.UserMessage("q"), codec.AssistantText("a"), codec.Complete(true, 1, 0),
	}, Usage{Event: 2, Model: "claude-sonnet-4-5", Backend: "claude"}, Usage{Event: 3, Model: "claude-sonnet-4-5", Backend: "pi"})
	if err != nil {
		t.Fatal(err)
	}
	none := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, none.ID, codec.Init("/w", "gpt-5.5"))
	check := func(id int64, want string) {
		t.Helper()
		f, err := s.Sessions().Facets(ctx, []int64{id})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.Sessions().UsageBackend(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if f[id].Backend != want || b != want {
			t.Errorf("S%d: Facets.Backend %q, UsageBackend %q, want %q", id, f[id].Backend, b, want)
		}
	}
	check(pi.ID, "pi")
	check(none.ID, "")
	// A later turn run with a model of its own: the model tells.
	mustAppend(t, s, pi.ID, codec.ModelSwitch("gpt-5.5"), codec.UserMessage("next"))
	check(pi.ID, "")
	if _, err := s.Events().Append(ctx, pi.ID, []codec.Event{codec.AssistantText("b")}, Usage{Event: 0, Model: "gpt-5.5", Backend: "codex"}); err != nil {
		t.Fatal(err)
	}
	check(pi.ID, "codex")
	// The usage row of a session whose id was reused (created no longer matches).
	rawExec(t, s.Path(), fmt.Sprintf("UPDATE lazuli_usage SET session_created = 'earlier' WHERE session_id = %d", pi.ID))
	check(pi.ID, "")
}
