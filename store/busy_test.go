package store

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"
)

// TestWriteWaitsWhileOtherWriterProgresses: a write that finds the store
// locked by another writer for longer than its busy timeout tries again as
// long as that writer commits meanwhile, and gives up with ErrBusy only
// after a wait in which nothing was committed. The other writer gives the
// lock up only at the moments the test chooses (from the busy hook), so
// the outcome does not depend on timing.
func TestWriteWaitsWhileOtherWriterProgresses(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name    string
		commits int // commits the other writer makes before it lets go
		release bool
	}{
		{"Progress", 3, true},
		{"Stuck", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := newStoreFile(t)
			s := mustOpenPath(t, path, WithBusyTimeout(20*time.Millisecond))
			other, err := sql.Open("sqlite", "file:"+path)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			conn, err := other.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			exec := func(q string) {
				if _, err := conn.ExecContext(ctx, q); err != nil {
					t.Error(q, err)
				}
			}
			exec("BEGIN IMMEDIATE")
			busy := 0
			s.busyHook = func() {
				busy++
				switch {
				case busy <= tt.commits:
					exec("INSERT INTO sessions(worktree) VALUES ('other writer')")
					exec("COMMIT")
					exec("BEGIN IMMEDIATE") // and holds the lock again
				case tt.release:
					exec("INSERT INTO sessions(worktree) VALUES ('other writer')")
					exec("COMMIT")
				}
			}
			_, err = s.Sessions().Create(ctx, "main", "mine")
			if tt.release {
				if err != nil || busy != tt.commits+1 {
					t.Fatalf("CreateSession() = %v after %d busy waits, want success after %d", err, busy, tt.commits+1)
				}
				if list, err := s.Sessions().List(ctx, ""); err != nil || len(list) != 2+tt.commits+1 {
					t.Errorf("listed %d sessions, %v", len(list), err)
				}
				return
			}
			if !errors.Is(err, ErrBusy) || busy != 1 {
				t.Errorf("CreateSession() = %v after %d busy waits, want ErrBusy after 1", err, busy)
			}
			exec("ROLLBACK")
		})
	}
}
