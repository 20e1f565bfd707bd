package store

import (
	"context"
	"testing"
)

func TestSessionFacets(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	a := mustCreateSession(t, s, "main", "")
	b := mustCreateSession(t, s, "main", "")
	c := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, a.ID, Init("/w", "claude-sonnet-4-5"), UserMessage("q"), Complete(false, 5, 0), UserMessage("again"), Complete(true, 5, 0))
	mustAppend(t, s, b.ID, Init("/w", "gpt-5-codex"), ModelSwitch("gpt-5.5"), UserMessage("q"), Complete(true, 1, 0))
	got, err := s.SessionFacets(ctx, []int64{a.ID, b.ID, c.ID, 99})
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
