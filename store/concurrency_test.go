package store

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestConcurrentAppendsFromTwoStores appends to one session from goroutines
// on two Stores (two connection pools) on the same file: every batch lands,
// seqs never collide and stay contiguous, and each batch stays in one piece.
func TestConcurrentAppendsFromTwoStores(t *testing.T) {
	const (
		goroutines = 4
		batches    = 15
		perBatch   = 5
	)
	ctx := context.Background()
	a := mustOpen(t)
	sess := mustCreateSession(t, a, "main", "")
	b := mustOpenPath(t, a.Path())
	var wg sync.WaitGroup
	errs := make(chan error, goroutines*batches)
	for g := range goroutines {
		s := []*Store{a, b}[g%2]
		wg.Go(func() {
			for i := range batches {
				evs := make([]codec.Event, perBatch)
				for j := range evs {
					evs[j] = codec.AssistantText(fmt.Sprintf("g%d b%d e%d", g, i, j))
				}
				if _, err := s.Events().Append(ctx, sess.ID, evs); err != nil {
					errs <- err
				}
				if _, err := s.Sessions().List(ctx, ""); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	evs := mustLoad(t, mustOpenPath(t, a.Path()), sess.ID)
	if len(evs) != goroutines*batches*perBatch {
		t.Fatalf("loaded %d events, want %d", len(evs), goroutines*batches*perBatch)
	}
	seen := map[string]bool{}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
		if i%perBatch == 0 {
			var g, batch int
			fmt.Sscanf(e.Event.Text, "g%d b%d", &g, &batch)
			for j := range perBatch {
				if want := fmt.Sprintf("g%d b%d e%d", g, batch, j); evs[i+j].Event.Text != want {
					t.Fatalf("batch split: event %d is %q, want %q", i+j, evs[i+j].Event.Text, want)
				}
			}
		}
		seen[e.Event.Text] = true
	}
	if len(seen) != len(evs) {
		t.Errorf("%d distinct events of %d", len(seen), len(evs))
	}
}

// TestEventCacheFollowsChanges checks cached loads against a fresh Store as
// the session grows, is compacted, and is deleted and recreated elsewhere.
func TestEventCacheFollowsChanges(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	mustCreateSession(t, s, "main", "")
	other := mustOpenPath(t, s.Path())
	steps := []func(){
		func() { mustAppend(t, s, 1, sampleBatch()...) },
		func() { mustAppend(t, other, 1, codec.UserMessage("from the other store"), codec.AssistantText("ok")) },
		func() {
			rawExec(t, s.Path(), "INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (1, 7, 'UserMessage', X'28b52ffd00', 1)")
		},
		func() { other.Compactions().Add(ctx, 1, 4, "summary") },
		func() {
			other.Sessions().Delete(ctx, 1)
			mustCreateSession(t, other, "main", "")
			mustAppend(t, other, 1, codec.UserMessage("new"))
		},
		func() { mustAppend(t, other, 1, newBenchGen(4).events(1200)...) },
	}
	for i, step := range steps {
		step()
		fresh := mustOpenPath(t, s.Path())
		for _, r := range [][2]int64{{0, 0}, {2, 0}, {3, 5}, {5, 1000}} {
			got, err1 := s.Events().Load(ctx, 1, r[0], r[1])
			want, err2 := fresh.Events().Load(ctx, 1, r[0], r[1])
			if err1 != nil || err2 != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("step %d range %v: cached %d events (%d skipped), fresh %d (%d skipped), %v %v",
					i, r, len(got.Events), got.Skipped, len(want.Events), want.Skipped, err1, err2)
			}
		}
		p1, _ := s.Compactions().Context(ctx, 1)
		p2, _ := fresh.Compactions().Context(ctx, 1)
		if !reflect.DeepEqual(p1, p2) {
			t.Errorf("step %d: BuildContext differs", i)
		}
	}
}

func TestEventCacheReturnsCopies(t *testing.T) {
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, sampleBatch()...)
	first := mustLoad(t, s, sess.ID)
	*first[2].Event.FilePath = "changed"
	first[2].Event.Input[2] = 'X'
	first[0].Event.Content = "changed"
	second := mustLoad(t, s, sess.ID)
	if *second[2].Event.FilePath != "/src/main.rs" || string(second[2].Event.Input) != `{"file_path":"/src/main.rs"}` ||
		second[0].Event.Content != "Hello" {
		t.Errorf("changing loaded events changed the cache: %+v", second)
	}
}
