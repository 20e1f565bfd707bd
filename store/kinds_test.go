package store

import (
	"context"
	"slices"
	"testing"
)

func TestKindSeqsAndHasEvent(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess, err := s.CreateSession(ctx, "main", "")
	if err != nil {
		t.Fatal(err)
	}
	evs := []Event{UserMessage("a"), Unit(KindCompacted), AssistantText("b"), Unit(KindCompacted)}
	if _, err := s.AppendEvents(ctx, sess.ID, evs); err != nil {
		t.Fatal(err)
	}
	got, err := s.KindSeqs(ctx, sess.ID, KindCompacted)
	if err != nil || !slices.Equal(got, []int64{2, 4}) {
		t.Errorf("KindSeqs(Compacted) = %v, %v; want [2 4]", got, err)
	}
	if got, err := s.KindSeqs(ctx, sess.ID+1, KindCompacted); err != nil || len(got) != 0 {
		t.Errorf("KindSeqs of a missing session = %v, %v; want none", got, err)
	}
	for _, c := range []struct {
		session, seq int64
		want         bool
	}{{sess.ID, 1, true}, {sess.ID, 4, true}, {sess.ID, 5, false}, {sess.ID + 1, 1, false}} {
		if ok, err := s.HasEvent(ctx, c.session, c.seq); err != nil || ok != c.want {
			t.Errorf("HasEvent(%d, %d) = %v, %v; want %v", c.session, c.seq, ok, err, c.want)
		}
	}
}
