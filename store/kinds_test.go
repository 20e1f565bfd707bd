package store

import (
	"context"
	"slices"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

func TestKindSeqsAndExistingSeqs(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess, err := s.Sessions().Create(ctx, "main", "")
	if err != nil {
		t.Fatal(err)
	}
	evs := []codec.Event{codec.UserMessage("a"), codec.Unit(codec.KindCompacted), codec.AssistantText("b"), codec.Unit(codec.KindCompacted)}
	if _, err := s.Events().Append(ctx, sess.ID, evs); err != nil {
		t.Fatal(err)
	}
	got, err := s.Events().KindSeqs(ctx, sess.ID, codec.KindCompacted)
	if err != nil || !slices.Equal(got, []int64{2, 4}) {
		t.Errorf("KindSeqs(Compacted) = %v, %v; want [2 4]", got, err)
	}
	if got, err := s.Events().KindSeqs(ctx, sess.ID+1, codec.KindCompacted); err != nil || len(got) != 0 {
		t.Errorf("KindSeqs of a missing session = %v, %v; want none", got, err)
	}
	got2, err := s.Events().ExistingSeqs(ctx, sess.ID, []int64{1, 4, 5, 0})
	if err != nil || len(got2) != 2 || !got2[1] || !got2[4] {
		t.Errorf("ExistingSeqs(1, 4, 5, 0) = %v, %v; want 1 and 4", got2, err)
	}
	if got2, err := s.Events().ExistingSeqs(ctx, sess.ID+1, []int64{1}); err != nil || len(got2) != 0 {
		t.Errorf("ExistingSeqs of a missing session = %v, %v; want none", got2, err)
	}
}
