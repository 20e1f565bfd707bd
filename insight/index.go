// Package insight keeps the insight index of a store: per session and turn,
// the token usage and cost, the files the agent read and changed, the pull
// requests, issues, commits, branches and URLs it touched, and its tool
// calls. The index is derived (like search's full-text index it lives in
// Lazuli's cache folder, never in or beside the store) and answers the
// `lazuli stats|files|refs|sql` commands and the Insights window.
//
// It never imports Fyne.
package insight

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/lazuli-app/lazuli/store"
)

// ErrUnavailable reports that the index cannot be used: the cache folder
// cannot be created or written.
var ErrUnavailable = errors.New("insight index unavailable")

// indexFormat changes whenever the tables or what is derived into them
// change; an index of another format is rebuilt.
const indexFormat = "2" // 2: commits have their web address

// Schema is the index's tables. Documented in README.md (lazuli sql);
// sessions, turns, usage, files, refs and tools are also the names of the
// views `lazuli sql` offers, with a store column added.
const Schema = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value);
CREATE TABLE sessions(
  id INTEGER PRIMARY KEY, created TEXT NOT NULL, worktree TEXT NOT NULL, name TEXT NOT NULL,
  day TEXT NOT NULL, events INTEGER NOT NULL DEFAULT 0, turns INTEGER NOT NULL DEFAULT 0);
CREATE TABLE turns(
  session INTEGER NOT NULL, turn INTEGER NOT NULL, first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL,
  first_event INTEGER NOT NULL, prompt TEXT NOT NULL, tool_calls INTEGER NOT NULL DEFAULT 0,
  tool_errors INTEGER NOT NULL DEFAULT 0, success INTEGER, duration_ms INTEGER,
  PRIMARY KEY(session, turn));
CREATE TABLE usage(
  session INTEGER NOT NULL, turn INTEGER NOT NULL, after_seq INTEGER NOT NULL, day TEXT NOT NULL,
  at TEXT NOT NULL, source TEXT NOT NULL, model TEXT NOT NULL, backend TEXT NOT NULL,
  input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cache_read_tokens INTEGER NOT NULL,
  cache_write_tokens INTEGER NOT NULL, reasoning_tokens INTEGER NOT NULL,
  cost_usd REAL NOT NULL, cost_estimated INTEGER NOT NULL);
CREATE INDEX usage_session ON usage(session);
CREATE INDEX usage_day ON usage(day);
CREATE TABLE files(
  session INTEGER NOT NULL, path TEXT NOT NULL, action TEXT NOT NULL, count INTEGER NOT NULL,
  first_seq INTEGER NOT NULL, last_seq INTEGER NOT NULL, first_event INTEGER NOT NULL, last_event INTEGER NOT NULL,
  PRIMARY KEY(session, path, action));
CREATE TABLE refs(
  session INTEGER NOT NULL, kind TEXT NOT NULL, value TEXT NOT NULL, url TEXT NOT NULL,
  first_seq INTEGER NOT NULL, first_event INTEGER NOT NULL,
  PRIMARY KEY(session, kind, value));
CREATE TABLE tools(
  session INTEGER NOT NULL, name TEXT NOT NULL, calls INTEGER NOT NULL, errors INTEGER NOT NULL,
  PRIMARY KEY(session, name));
`

// Index is the insight index of one store, in Lazuli's cache folder (see
// IndexPath). Update brings it up to date incrementally; every transaction
// moves the index's high-water mark with the rows it adds, so a process
// killed at any point leaves an index the next Update continues.
type Index struct {
	st    *store.Store
	path  string
	batch int        // events per transaction (scanBatch; tests use fewer)
	mu    sync.Mutex // serialises Update and Rebuild
	db    *sql.DB    // one connection, BEGIN IMMEDIATE
}

// IndexPath returns where the insight index of the store at storePath
// lives: insight/<store.CacheKey>.db in Lazuli's cache folder, beside the
// search package's index/ folder.
func IndexPath(storePath string) (string, error) {
	dir, err := store.CacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "insight", store.CacheKey(storePath)+".db"), nil
}

// Open opens (creating it when needed) the insight index of st. A damaged
// file, or one of another format or store, is started over.
func Open(ctx context.Context, st *store.Store) (*Index, error) {
	path, err := IndexPath(st.Path())
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	x := &Index{st: st, path: path, batch: scanBatch}
	if err := x.open(ctx); err != nil {
		if !isDamaged(err) {
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		if err := x.recreate(ctx); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
	}
	return x, nil
}

// Path returns the index file's path.
func (x *Index) Path() string { return x.path }

// Store returns the store the index covers.
func (x *Index) Store() *store.Store { return x.st }

// Close closes the index file (not the store).
func (x *Index) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.db == nil {
		return nil
	}
	err := x.db.Close()
	x.db = nil
	return err
}

func (x *Index) open(ctx context.Context) error {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: x.path, RawQuery: q.Encode()}).String())
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	if err := prepare(ctx, db, x.st.Path()); err != nil {
		_ = db.Close() // the preparation error is the one to report
		return err
	}
	if err := os.Chmod(x.path, 0o600); err != nil {
		_ = db.Close() // the chmod error is the one to report
		return err
	}
	x.db = db
	return nil
}

func (x *Index) recreate(ctx context.Context) error {
	if x.db != nil {
		_ = x.db.Close() // the file is being replaced
		x.db = nil
	}
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		if err := os.Remove(x.path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove damaged insight index: %w", err)
		}
	}
	return x.open(ctx)
}

// prepare creates the tables of a new file and starts over a file of
// another format or store.
func prepare(ctx context.Context, db *sql.DB, storePath string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'meta'").Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		format, _ := getMeta(ctx, tx, "format")
		path, _ := getMeta(ctx, tx, "store")
		if format == indexFormat && path == storePath {
			return tx.Commit()
		}
	}
	if err := reset(ctx, tx, storePath); err != nil {
		return err
	}
	return tx.Commit()
}

// reset drops every table and creates empty ones.
func reset(ctx context.Context, tx *sql.Tx, storePath string) error {
	for _, t := range []string{"meta", "sessions", "turns", "usage", "files", "refs", "tools"} {
		if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS "+t); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, Schema); err != nil {
		return err
	}
	for k, v := range map[string]string{"format": indexFormat, "store": storePath, "hi": "0"} {
		if err := setMeta(ctx, tx, k, v); err != nil {
			return err
		}
	}
	return nil
}

type querier interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

func getMeta(ctx context.Context, q querier, key string) (string, error) {
	var v sql.NullString
	err := q.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", key).Scan(&v)
	return v.String, err
}

func getMetaInt(ctx context.Context, q querier, key string) int64 {
	v, _ := getMeta(ctx, q, key)
	n, _ := strconv.ParseInt(v, 10, 64) // written by setMeta; a bad value reads as 0
	return n
}

func setMeta(ctx context.Context, tx *sql.Tx, key string, value any) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value)
	return err
}

// isDamaged reports an error that means the file is not a usable database.
func isDamaged(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB, sqlite3.SQLITE_CANTOPEN:
		return true
	}
	return false
}

// UpdateStats says what an Update did.
type UpdateStats struct {
	Events  int64 // events read from the store
	Usage   int   // usage rows indexed
	Purged  int   // deleted sessions whose rows were removed
	Rebuilt bool  // the index was started over
	Elapsed time.Duration
}
