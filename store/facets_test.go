package store

import (
	"context"
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
