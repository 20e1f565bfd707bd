package recall

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// longQuery runs until the query budget interrupts it, reading the store
// all along.
const longQuery = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n)
	SELECT MAX(i + (SELECT COUNT(*) FROM events)) FROM n`

// TestWriterNotBlocked: while the longest call there is (a query that runs
// until QueryBudget stops it) holds its read of the store, a writer with
// the store's default busy timeout commits: the call ends by its budget,
// well inside the writer's wait, and its answer is an error for the agent.
func TestWriterNotBlocked(t *testing.T) {
	if QueryBudget*2 >= store.DefaultBusyTimeout {
		t.Fatalf("QueryBudget %v: a writer waits at most %v, a query may last twice its budget", QueryBudget, store.DefaultBusyTimeout)
	}
	path := crafted(t)
	h := open(t, path)
	ctx := context.Background()
	done := make(chan error, 1)
	go func() {
		_, err := h.Query(ctx, QueryArgs{SQL: longQuery})
		done <- err
	}()
	// Wait until the query holds its read of the store: a read lock of
	// this process on the file (Linux lists them in /proc/locks).
	for !readLocked(t, path) {
		select {
		case err := <-done:
			t.Fatalf("the query ended (%v) before it was seen holding the store", err)
		default:
			runtime.Gosched()
		}
	}
	w, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s, err := w.Sessions().Create(ctx, "main", "written meanwhile")
	if err == nil {
		_, err = w.Events().Append(ctx, s.ID, []codec.Event{codec.UserMessage("hello")})
	}
	if err != nil {
		t.Fatalf("the writer failed while a call ran: %v", err)
	}
	if err := <-done; !errors.Is(err, ErrBadArgument) {
		t.Errorf("the long query answered %v, want an error for the agent (interrupted)", err)
	}
}

// readLocked reports whether this process holds a POSIX read lock on the
// file at path (SQLite's SHARED lock), as /proc/locks says; it skips the
// test where there is no /proc/locks.
func readLocked(t *testing.T, path string) bool {
	t.Helper()
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		t.Skipf("no /proc/locks to see the query's lock: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no inode to find the lock by")
	}
	ino := fmt.Sprintf(":%d ", st.Ino)
	pid := fmt.Sprintf(" %d ", os.Getpid())
	for _, line := range strings.Split(string(locks), "\n") {
		if strings.Contains(line, "POSIX") && strings.Contains(line, " READ ") && strings.Contains(line, pid) && strings.Contains(line+" ", ino) {
			return true
		}
	}
	return false
}
