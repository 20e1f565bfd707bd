package store

import (
	"context"
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

// checkInterrupted checks a store whose last write was interrupted without
// touching it: the file and its journal are copied to a temporary folder,
// SQLite rolls the copy back, as it will the store the next time a program
// opens it for writing, and the copy is checked. The report names the
// store and says so.
func checkInterrupted(ctx context.Context, path string, cd *codec) (Report, error) {
	dir, err := os.MkdirTemp("", "lazuli-check-")
	if err != nil {
		return Report{}, err
	}
	defer os.RemoveAll(dir) //nolint:errcheck // a temporary copy
	cp := filepath.Join(dir, filepath.Base(path))
	for _, suffix := range []string{"", "-journal"} {
		if err := copyNew(path+suffix, cp+suffix); err != nil {
			return Report{}, fmt.Errorf("copy the interrupted store: %w", err)
		}
	}
	db, err := openPool(cp, false, DefaultBusyTimeout)
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
