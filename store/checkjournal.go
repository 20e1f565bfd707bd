package store

import (
	"context"
	"database/sql"
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

// interruptedCopy is a temporary copy of a store whose last write was
// interrupted, with its journal, for reading without touching the store.
type interruptedCopy struct {
	dir  string // the temporary folder holding the copy
	path string // the copied store file
}

// copyInterrupted copies the store at path and its journal to a new
// temporary folder. SQLite rolls the copy back the first time a read-write
// connection reads it, as it will the store the next time a program opens
// it for writing.
func copyInterrupted(path string) (*interruptedCopy, error) {
	dir, err := os.MkdirTemp("", "lazuli-interrupted-")
	if err != nil {
		return nil, fmt.Errorf("copy the interrupted store: %w", err)
	}
	c := &interruptedCopy{dir: dir, path: filepath.Join(dir, filepath.Base(path))}
	for _, suffix := range []string{"", "-journal"} {
		if err := copyNew(path+suffix, c.path+suffix); err != nil {
			c.remove()
			return nil, fmt.Errorf("copy the interrupted store: %w", err)
		}
	}
	return c, nil
}

// remove deletes the copy; a nil copy is nothing to remove.
func (c *interruptedCopy) remove() {
	if c != nil {
		_ = os.RemoveAll(c.dir) // a temporary folder
	}
}

// attachCopy opens a read-only Store on a rolled-back copy of its file
// (see copyInterrupted). s.mu must be held.
func (s *Store) attachCopy(ctx context.Context) (*sql.DB, *schemaInfo, error) {
	c, err := copyInterrupted(s.path)
	if err != nil {
		return nil, nil, err
	}
	db, err := openPool(c.path, false, s.opts.busyTimeout) // read-write: it rolls the copy back
	if err != nil {
		c.remove()
		return nil, nil, err
	}
	info, err := validate(ctx, db, c.path, true)
	if err != nil {
		_ = db.Close()
		c.remove()
		return nil, nil, err
	}
	s.snapshot = c
	return db, info, nil
}

// checkInterrupted checks a store whose last write was interrupted without
// touching it: it checks a rolled-back copy (copyInterrupted). The report
// names the store and says so.
func checkInterrupted(ctx context.Context, path string, cd *codec) (Report, error) {
	c, err := copyInterrupted(path)
	if err != nil {
		return Report{}, err
	}
	defer c.remove()
	db, err := openPool(c.path, false, DefaultBusyTimeout)
	if err != nil {
		return Report{}, err
	}
	defer db.Close()
	r, err := checkDB(ctx, db, cd, path)
	if err != nil {
		return r, err
	}
	r.Findings = append(r.Findings, Finding{Severity: SeverityInfo, Code: "interrupted_write",
		Message: "the last write was interrupted; its journal undoes it the next time the store is opened for writing, " +
			"which leaves the store as checked here (a rolled-back copy; the file itself was not changed)"})
	return r, nil
}

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
