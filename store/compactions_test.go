package store

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"
)

func TestStoreCompaction(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := s.Compactions().Add(ctx, 9, 1, "x"); !errors.Is(err, ErrNotFound) {
			t.Errorf("StoreCompaction(9) error = %v, want ErrNotFound", err)
		}
	})
	t.Run("OK", func(t *testing.T) {
		if c, err := s.Compactions().Latest(ctx, sess.ID); c != nil || err != nil {
			t.Fatalf("LatestCompaction() before any = %+v, %v", c, err)
		}
		first, err := s.Compactions().Add(ctx, sess.ID, 10, "first")
		if err != nil || first.ID != 1 || first.SessionID != sess.ID || first.AfterSeq != 10 || first.Created == "" {
			t.Fatalf("StoreCompaction() = %+v, %v", first, err)
		}
		second, _ := s.Compactions().Add(ctx, sess.ID, 20, "second")
		list, err := s.Compactions().Of(ctx, sess.ID)
		if err != nil || !reflect.DeepEqual(list, []Compaction{first, second}) {
			t.Errorf("Compactions() = %+v, %v", list, err)
		}
		if c, _ := s.Compactions().Latest(ctx, sess.ID); c == nil || *c != second {
			t.Errorf("LatestCompaction() = %+v", c)
		}
	})
}

func TestCompactionBoundaryKeep(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	appendPairs(t, s, sess.ID, 3)
	tests := []struct {
		keep int
		want int64
		ok   bool
	}{{1, 4, true}, {2, 2, true}, {3, 0, false}}
	for _, tt := range tests {
		got, ok, err := s.Compactions().Boundary(ctx, sess.ID, 1, tt.keep)
		if err != nil || got != tt.want || ok != tt.ok {
			t.Errorf("CompactionBoundary(keep %d) = %d, %v, %v, want %d, %v", tt.keep, got, ok, err, tt.want, tt.ok)
		}
	}
	if _, _, err := s.Compactions().Boundary(ctx, sess.ID, 1, 0); err == nil {
		t.Error("CompactionBoundary(keep 0) did not fail")
	}
}

func TestBuildContextFromFixture(t *testing.T) {
	ctx := context.Background()
	s := mustOpenPath(t, copyToWorktree(t, filepath.Join(fixtureDir(t, "azs"), "ii_compaction.azs")))
	p, err := s.Compactions().Context(ctx, 1)
	if err != nil || p == nil || p.Summary == nil || len(p.Events) != 288-264 {
		t.Fatalf("BuildContext() = %v events, %v", len(p.Events), err)
	}
	if n, _ := s.Compactions().CharsSince(ctx, 1); n != 64_259 {
		t.Errorf("CharsSinceCompaction() = %d, want 64259", n)
	}
}
