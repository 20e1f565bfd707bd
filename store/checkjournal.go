package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// isHotJournal reports SQLite's refusal to read a file through a read-only
// connection because a write was interrupted (a process killed, a machine
// stopped) and its journal must be rolled back first.
func isHotJournal(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code() == sqlite3.SQLITE_READONLY_ROLLBACK
}

// needsCopy reports an error of a read-only connection that a writer
// would not get: a hot journal (see isHotJournal), or a WAL file whose
// index a read-only connection cannot rebuild or lock (its -shm file
// missing in a folder it cannot write, for example). The file is then read
// through a copy (see copyInterrupted).
func needsCopy(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() {
	case sqlite3.SQLITE_READONLY_ROLLBACK, sqlite3.SQLITE_READONLY_RECOVERY,
		sqlite3.SQLITE_READONLY_CANTINIT, sqlite3.SQLITE_READONLY_CANTLOCK:
		return true
	}
	return false
}

// sidecars are the files beside a store that hold part of its state: the
// rollback journal of an interrupted write, and a WAL file.
var sidecars = []string{"-journal", "-wal"}

// interruptedCopy is a temporary copy of a store whose last write was
// interrupted, with its journal, for reading without touching the store.
type interruptedCopy struct {
	dir    string              // the temporary folder holding the copy
	path   string              // the copied store file
	copied map[string]fileInfo // by suffix ("" for the store): what was copied
}

// fileInfo is what tells a file's versions apart without opening it.
type fileInfo struct {
	size    int64
	modTime int64 // nanoseconds
}

// statInfo returns path's fileInfo; ok is false when it does not exist.
func statInfo(path string) (fileInfo, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return fileInfo{}, false
	}
	return fileInfo{size: st.Size(), modTime: st.ModTime().UnixNano()}, true
}

// copyInterrupted copies the store at path and its journal (or WAL file)
// to a new temporary folder. SQLite rolls the copy back the first time a
// read-write connection reads it, as it will the store the next time a
// program opens it for writing. The journal is copied first: should a
// writer roll the store back meanwhile, the copy is rolled back to the same
// state again.
//
// A store in WAL mode is copied the same way, with its WAL file and
// without its -shm index, which SQLite rebuilds beside the copy from the
// WAL. Only another program writes a store in WAL mode (Lazuli's first
// write leaves it); should one commit or checkpoint while the files are
// copied, they are copied again, up to copyAttempts times.
func copyInterrupted(path string) (*interruptedCopy, error) {
	var err error
	for range copyAttempts {
		var c *interruptedCopy
		if c, err = copyOnce(path); err != nil || c.matches(path) {
			return c, err
		}
		c.remove()
		err = errors.New("copy the interrupted store: another program kept writing it")
	}
	return nil, err
}

// copyAttempts is how many times copyInterrupted copies a store that
// another program changes meanwhile before it gives up.
const copyAttempts = 5

// copyOnce makes one copy for copyInterrupted.
func copyOnce(path string) (*interruptedCopy, error) {
	dir, err := os.MkdirTemp("", "lazuli-interrupted-")
	if err != nil {
		return nil, fmt.Errorf("copy the interrupted store: %w", err)
	}
	c := &interruptedCopy{dir: dir, path: filepath.Join(dir, filepath.Base(path)), copied: map[string]fileInfo{}}
	for _, suffix := range append(sidecars[:len(sidecars):len(sidecars)], "") {
		info, ok := statInfo(path + suffix)
		if !ok && suffix != "" {
			continue
		}
		if err := copyNew(path+suffix, c.path+suffix); err != nil {
			c.remove()
			return nil, fmt.Errorf("copy the interrupted store: %w", err)
		}
		c.copied[suffix] = info
	}
	return c, nil
}

// matches reports whether the store at path and the files beside it are
// still as they were copied: the copy reads the store as it is.
func (c *interruptedCopy) matches(path string) bool {
	for _, suffix := range append(sidecars[:len(sidecars):len(sidecars)], "") {
		was, copied := c.copied[suffix]
		now, exists := statInfo(path + suffix)
		if copied != exists || now != was {
			return false
		}
	}
	return true
}

// remove deletes the copy; a nil copy is nothing to remove.
func (c *interruptedCopy) remove() {
	if c != nil {
		_ = os.RemoveAll(c.dir) // a temporary folder
	}
}

// The findings that say a check read a copy (see checkCopy).
var (
	interruptedFinding = Finding{Severity: SeverityInfo, Code: "interrupted_write",
		Message: "the last write was interrupted; its journal undoes it the next time the store is opened for writing, " +
			"which leaves the store as checked here (a rolled-back copy; the file itself was not changed)"}
	walFinding = Finding{Severity: SeverityInfo, Code: "wal_mode",
		Message: "the store is in WAL mode (another program left it so); it was checked through a copy with its WAL file, " +
			"and the next write by Lazuli leaves WAL mode (the files themselves were not changed)"}
)

// copyNew copies src to a new file dst.
func copyNew(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
