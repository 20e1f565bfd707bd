package insight

import (
	"context"
	"fmt"
	"os"
)

// Several processes may bring one store's index up to date at once (two
// `lazuli sync push` of the store, a window and a CLI command). An Update
// reads the index's state (its high-water mark, turns, usage version),
// then writes what it derived in several transactions: two Updates
// interleaved would each add the same events and usage rows, and SQLite's
// busy timeout could run out for the one that waits. So an Update (and the
// opening, which may start the file over) holds the index's update lock
// from the first read to the last write: an exclusive lock (flock, or
// LockFileEx on Windows) on a file
// beside the index, which another process's Update waits for. The kernel
// drops it when its process dies, and it is per open file, so two Index
// values of one process wait for each other too.

// lockSuffix names the lock file: the index's path with it appended.
const lockSuffix = ".lock"

// lockUpdates takes the update lock of the index at path, waiting while
// another Update holds it; unlock releases it. A cancelled ctx stops the
// wait.
func lockUpdates(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path+lockSuffix, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the index lock: %w", err)
	}
	unlock = func() { _ = f.Close() } // closing the file drops its lock
	if lockFile(f, false) == nil {
		return unlock, nil
	}
	done := make(chan error, 1)
	go func() { done <- lockFile(f, true) }()
	select {
	case err := <-done:
		if err != nil {
			unlock()
			return nil, fmt.Errorf("lock the index: %w", err)
		}
		return unlock, nil
	case <-ctx.Done():
		go func() { <-done; unlock() }() // the file stays open until flock returns
		return nil, ctx.Err()
	}
}
