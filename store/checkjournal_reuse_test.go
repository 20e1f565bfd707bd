package store

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestInterruptedCopyNotReusedWhenOnlyMTimeChanged: a Store that reads a
// store with an interrupted write through a rolled-back copy makes a new
// copy when the store or its journal changed, even when only its mtime
// did (the same size: a copy of another interrupted store, say).
func TestInterruptedCopyNotReusedWhenOnlyMTimeChanged(t *testing.T) {
	ctx := context.Background()
	for _, suffix := range []string{"", "-journal"} {
		t.Run("file"+suffix, func(t *testing.T) {
			path := hotJournalCopy(t)
			s, err := OpenReadOnly(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Sessions().List(ctx, ""); err != nil || s.snapshot == nil {
				t.Fatalf("ListSessions() = %v, copy %v; want a read through a copy", err, s.snapshot)
			}
			first := s.snapshot.dir
			if _, err := s.Sessions().List(ctx, ""); err != nil || s.snapshot.dir != first {
				t.Fatalf("ListSessions() of an unchanged store = %v, copy %s; want the copy %s again", err, s.snapshot.dir, first)
			}
			fi, err := os.Stat(path + suffix)
			if err != nil {
				t.Fatal(err)
			}
			mtime := fi.ModTime().Add(time.Second)
			if err := os.Chtimes(path+suffix, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Sessions().List(ctx, ""); err != nil {
				t.Fatal(err)
			}
			if s.snapshot == nil || s.snapshot.dir == first {
				t.Errorf("after only the mtime of %q changed, the Store read through the copy %s: want a new copy", "sessions.azs"+suffix, first)
			}
		})
	}
}
