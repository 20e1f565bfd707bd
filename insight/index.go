// Package insight keeps the insight index of a store: per session and turn,
// the token usage and cost, the files the agent read and changed, the pull
// requests, issues, commits, branches and URLs it touched, and its tool
// calls. The index is derived (like search's full-text index it lives in
// Lazuli's cache folder, never in or beside the store) and answers the
// `lazuli stats|files|refs|sql` commands and the Insights window.
//
// An Index keeps its file: Open, Update, Rebuild, Close. What it answers
// is asked of its rooms, one small type a domain over the Index
// (rooms.go): x.Usage() the token sums, x.Sessions() the sessions and
// their turns, x.Files() the files read and changed, x.Refs() the refs
// mentioned, x.Tools() the tool calls. RunSQL is the read-only SQL
// surface over indexes and their stores.
//
// It never imports Fyne.
package insight

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/indexdb"
	"github.com/lazuli-app/lazuli/store"
)

// ErrUnavailable reports that the index cannot be used: the cache folder
// cannot be created or written.
var ErrUnavailable = errors.New("insight index unavailable")

// indexFormat changes whenever the tables or what is derived into them
// change; an index of another format is rebuilt.
const indexFormat = "3" // 2: commits have their web address; files by last event; 3: URLs end before emphasis and typographic quotes

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
CREATE INDEX files_recent ON files(last_event);
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
	return indexdb.Path(store.CacheDir, "insight", store.CacheKey(storePath))
}

// Open opens (creating it when needed) the insight index of st. A damaged
// file, or one of another format or store, is started over.
func Open(ctx context.Context, st *store.Store) (*Index, error) {
	path, err := indexdb.MakeDir(IndexPath(st.Path()))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	x := &Index{st: st, path: path, batch: scanBatch}
	unlock, err := lockUpdates(ctx, path) // opening may start the file over (lock.go)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	defer unlock()
	if err := x.open(ctx); err != nil {
		if !indexdb.IsDamaged(err) {
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
	db, err := indexdb.Open(ctx, x.path, func(ctx context.Context, db *sql.DB) error {
		return prepare(ctx, db, x.st.Path())
	})
	if err != nil {
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
	if err := indexdb.Remove(x.path); err != nil {
		return err
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
		format, _ := indexdb.GetMeta(ctx, tx, "format")
		path, _ := indexdb.GetMeta(ctx, tx, "store")
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
		if err := indexdb.SetMeta(ctx, tx, k, v); err != nil {
			return err
		}
	}
	return nil
}

// getMetaInt reads an integer of the meta table; 0 when it has none.
func getMetaInt(ctx context.Context, q indexdb.RowQuerier, key string) int64 {
	v, _ := indexdb.GetMeta(ctx, q, key)
	n, _ := strconv.ParseInt(v, 10, 64) // written by SetMeta; a bad value reads as 0
	return n
}

// UpdateStats says what an Update did.
type UpdateStats struct {
	Events  int64 // events read from the store
	Usage   int   // usage rows indexed
	Purged  int   // deleted sessions whose rows were removed
	Rebuilt bool  // the index was started over
	// Unchanged: the store had the version the index last caught up with,
	// so nothing was read.
	Unchanged bool
	Elapsed   time.Duration
}
