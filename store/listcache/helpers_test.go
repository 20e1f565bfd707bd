package listcache

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	_ "modernc.org/sqlite" // the driver the store uses
)

// schema is the part of AZUREAL's schema (store/schema.go) the counts read.
var schema = []string{
	`CREATE TABLE sessions (
    id       INTEGER PRIMARY KEY,
    name     TEXT NOT NULL DEFAULT '',
    worktree TEXT NOT NULL DEFAULT '',
    created  TEXT NOT NULL DEFAULT (datetime('now'))
)`,
	`CREATE TABLE events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    data       TEXT NOT NULL,
    char_len   INTEGER NOT NULL DEFAULT 0,
    UNIQUE(session_id, seq)
)`,
	`CREATE INDEX idx_events_session ON events(session_id, seq)`,
	`CREATE TABLE compactions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    after_seq  INTEGER NOT NULL,
    summary    TEXT NOT NULL,
    created    TEXT NOT NULL DEFAULT (datetime('now'))
)`,
}

// mustDB opens the SQLite file at path (created with the schema when new)
// in rollback-journal mode, as AZUREAL and the store write it. Foreign
// keys are off: a test deletes a session and leaves its rows.
func mustDB(tb testing.TB, path string) *sql.DB {
	tb.Helper()
	_, statErr := os.Stat(path)
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(DELETE)")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	if statErr != nil {
		mustExec(tb, db, schema...)
	}
	return db
}

func mustExec(tb testing.TB, db *sql.DB, stmts ...string) {
	tb.Helper()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
}

// fill adds sessions with events (random kinds and lengths) and
// compactions, as fillListStore does through the store. Every session
// has the created text "2025-01-01 00:00:NN", so that two files filled
// alike have the same session keys.
func fill(tb testing.TB, db *sql.DB, seed uint64, sessions int) {
	tb.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	kinds := []string{"UserMessage", "AssistantText", "ToolCall", "ToolResult", "Complete"}
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	var first int64
	if err := tx.QueryRow("SELECT COALESCE(MAX(id), 0) FROM sessions").Scan(&first); err != nil {
		tb.Fatal(err)
	}
	for i := range int64(sessions) {
		id := first + 1 + i
		if _, err := tx.Exec("INSERT INTO sessions(id, worktree, created) VALUES (?, ?, ?)",
			id, []string{"main", "feature"}[id%2], fmt.Sprintf("2025-01-01 00:00:%02d", id%60)); err != nil {
			tb.Fatal(err)
		}
		if i%4 != 3 {
			for seq := range int64(1 + r.IntN(40)) {
				n := r.IntN(300)
				if _, err := tx.Exec("INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (?, ?, ?, ?, ?)",
					id, seq+1, kinds[r.IntN(len(kinds))], fmt.Sprintf(`{"n":%d,"r":%d}`, n, r.Uint64()), n); err != nil {
					tb.Fatal(err)
				}
			}
		}
		if i%3 == 0 {
			if _, err := tx.Exec("INSERT INTO compactions(session_id, after_seq, summary) VALUES (?, ?, 'summary')",
				id, 1+r.IntN(20)); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
}

// testFile is a File whose ID the test decides: a file "with the same
// size, inode and mtime" is one whose ID says so.
type testFile struct{ id FileID }

func (f testFile) Header(ctx context.Context, q Querier) ([100]byte, error) {
	var b [100]byte
	var page []byte
	if err := q.QueryRowContext(ctx, "SELECT data FROM sqlite_dbpage WHERE pgno = 1").Scan(&page); err != nil {
		return b, err
	}
	copy(b[:], page)
	return b, nil
}

func (f testFile) ID() (FileID, bool) { return f.id, true }

// snapshot runs c.Snapshot in a read transaction of db, with no helper
// pool, and fails the test on an error.
func snapshot(tb testing.TB, c *Cache, db *sql.DB) map[int64]Agg {
	tb.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	aggs, err := c.Snapshot(ctx, tx, true, nil)
	if err != nil {
		tb.Fatalf("Snapshot() = %v", err)
	}
	return aggs
}

// freshCounts counts db afresh, with a cache that keeps nothing on disk.
func freshCounts(tb testing.TB, db *sql.DB) map[int64]Agg {
	tb.Helper()
	return snapshot(tb, New(testFile{}, ""), db)
}

// cacheFileIn returns a cache file path in a new folder.
func cacheFileIn(tb testing.TB) string {
	return filepath.Join(tb.TempDir(), "list", "store.list")
}

// stampOf returns the Stamp of db's file.
func stampOf(tb testing.TB, db *sql.DB) Stamp {
	tb.Helper()
	h, err := testFile{}.Header(context.Background(), db)
	if err != nil {
		tb.Fatal(err)
	}
	return StampOf(&h)
}
