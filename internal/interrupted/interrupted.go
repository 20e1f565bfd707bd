// Package interrupted leaves a store as a writer killed in the middle of
// its work leaves it, for tests of the code that must only read it.
package interrupted

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "modernc.org/sqlite" // the "sqlite" driver
)

// Journal leaves the store at path in the middle of a write whose changed
// pages have spilled into the file: the file, and a hot rollback journal
// beside it. The write inserts sessions named "interrupted"; the rollback
// removes them.
func Journal(path string) error {
	return capture(path, "-journal", []string{"PRAGMA journal_mode = DELETE", "BEGIN IMMEDIATE"},
		func(c *sql.Conn) error {
			for range 200 { // more pages than the cache holds: they spill into the file
				if _, err := c.ExecContext(context.Background(),
					"INSERT INTO sessions(worktree, name) VALUES ('main', ?)", "interrupted"+strings.Repeat(" ", 4000)); err != nil {
					return err
				}
			}
			return nil
		})
}

// WAL switches the store at path to WAL mode and commits a session named
// "in the WAL" that only the WAL file holds: the store is left as a
// writer killed before checkpointing leaves it (without its -shm file).
func WAL(path string) error {
	return capture(path, "-wal", []string{"PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0",
		"INSERT INTO sessions(worktree, name) VALUES ('main', 'in the WAL')"}, nil)
}

// capture runs stmts and then more on one connection to path, copies the
// file and the one beside it named by sidecar as they are then, ends the
// connection, and puts the copies in place.
func capture(path, sidecar string, stmts []string, more func(*sql.Conn) error) (err error) {
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=cache_size(2)")
	if err != nil {
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return err
	}
	for _, q := range stmts {
		if _, err = conn.ExecContext(ctx, q); err != nil {
			break
		}
	}
	if err == nil && more != nil {
		err = more(conn)
	}
	var data, side []byte
	if err == nil {
		data, err = os.ReadFile(path)
	}
	if err == nil {
		side, err = os.ReadFile(path + sidecar)
	}
	_, _ = conn.ExecContext(ctx, "ROLLBACK") // fails harmlessly outside a transaction
	conn.Close()
	db.Close()
	if err != nil {
		return fmt.Errorf("interrupt %s: %w", path, err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	return os.WriteFile(path+sidecar, side, 0o644)
}
