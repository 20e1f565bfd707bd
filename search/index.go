package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/indexdb"
	"github.com/lazuli-app/lazuli/store"
)

// ErrUnavailable reports that a store's index cannot be used: the cache
// folder cannot be created or written, say. Search still works without it
// (see Scan).
var ErrUnavailable = errors.New("search index unavailable")

// indexFormat changes whenever the index's tables or the text indexed per
// event change; an index of another format is rebuilt.
const indexFormat = "5" // 5: Lazuli's own lists instead of FTS5 (see postings.go)

// indexSchema creates the index's tables.
//
// The lists (postings.go) hold, for each 4-gram of the text of an event
// lower-cased by fold (the function queries and the check of each hit use
// too, so all three agree on what case means), the events that hold it.
// They keep no positions: they only say which rows hold every 4-gram of a
// term, and the caller checks each candidate. The text stays in the store
// and is read back for the hits.
//
// Their ids are the store's events.id, and minus compactions.id for
// compaction summaries. docs maps each of them to its session, for
// purging deleted sessions, and gives a compaction the events.id it sits
// after (ord), for ordering. sessions holds the created time of each
// session the index has rows of, to recognise a deleted session whose id
// AZUREAL gave to a new one.
const indexSchema = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value);
CREATE TABLE sessions(id INTEGER PRIMARY KEY, created TEXT NOT NULL);
CREATE TABLE docs(id INTEGER PRIMARY KEY, session INTEGER NOT NULL, ord INTEGER);
` + postingsSchema

// Index is the full-text index of one store, kept in Lazuli's cache folder
// (see IndexPath), never in or beside the store. It is an SQLite file of the lists of the 4-grams of each event's text,
// built and brought up to date by Update from the store's append-only
// events table, and never needed for correctness: a missing, damaged or
// outdated index is rebuilt, and Search checks every hit against the store.
//
// An Index is safe for concurrent use: searches run while Update writes
// (the file is in WAL mode), and several processes may update the same
// index; each of their transactions moves the marks it was written for.
type Index struct {
	st     *store.Store
	path   string
	now    func() time.Time // the clock of Options.Budget; nil is time.Now (tests set it)
	window int              // events per backfill window

	mu sync.Mutex // serialises Update and Rebuild

	dbMu sync.RWMutex // guards w, r and ident; searches hold it for reading
	w    *sql.DB      // the writer: one connection, BEGIN IMMEDIATE
	r    *sql.DB      // readers, query_only
	id   os.FileInfo  // the file the pools opened, to notice it was replaced
	// damaged reports that Open found the file damaged and started it
	// over; the next Update says so (Stats.Damaged). Guarded by mu.
	damaged bool
}

// IndexPath returns where the index of the store at storePath lives:
// index/<store.CacheKey>.db in Lazuli's cache folder (store.CacheDir), never
// in or beside the store. The search package owns that folder; it does not
// create it.
func IndexPath(storePath string) (string, error) {
	return indexdb.Path(store.CacheDir, "index", store.CacheKey(storePath))
}

// Open opens (creating it when needed) the index of st. An index file that
// is damaged, of another format or of another store is started over. The
// error wraps ErrUnavailable when the cache folder or the file cannot be
// created or opened.
func Open(ctx context.Context, st *store.Store) (*Index, error) {
	path, err := indexdb.MakeDir(IndexPath(st.Path()))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	x := &Index{st: st, path: path, window: backfillWindow}
	x.dbMu.Lock()
	defer x.dbMu.Unlock()
	sealed := indexdb.Sealed(path)
	err = x.openLocked(ctx)
	if err == nil && !sealed {
		err = checkOf(x).quickCheck(ctx)
	}
	if err == nil && !sealed {
		err = checkOf(x).verifySample(ctx)
	}
	if err != nil {
		if !isDamage(err) {
			_ = x.closeLocked() // the open error is the one to report
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		if err := x.recreateLocked(ctx); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		x.damaged = true
	}
	return x, nil
}

// Path returns the index file's path.
func (x *Index) Path() string { return x.path }

// Close closes the index file and, when no other process has it open,
// seals it (indexdb.Seal), so that the next Open trusts it without reading
// a sample back. It does not close the store.
func (x *Index) Close() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.dbMu.Lock()
	defer x.dbMu.Unlock()
	if err := x.closeLocked(); err != nil {
		return err
	}
	_ = indexdb.Seal(x.path) // best effort: without a seal, the next Open checks the file
	return nil
}

func (x *Index) closeLocked() error {
	var errs []error
	for _, db := range []*sql.DB{x.r, x.w} {
		if db != nil {
			errs = append(errs, db.Close())
		}
	}
	x.r, x.w, x.id = nil, nil, nil
	return errors.Join(errs...)
}

// openLocked opens the pools on the file and prepares its tables. x.dbMu
// must be held for writing.
func (x *Index) openLocked(ctx context.Context) error {
	w, err := indexdb.Open(ctx, x.path, func(ctx context.Context, w *sql.DB) error {
		damaged, err := prepare(ctx, w, x.st.Path())
		if err == nil {
			x.damaged = x.damaged || damaged
		}
		return err
	})
	if err != nil {
		return err
	}
	r, err := sql.Open("sqlite", indexdb.DSN(x.path, false))
	if err != nil {
		_ = w.Close() // the open error is the one to report
		return err
	}
	r.SetMaxOpenConns(2)
	fi, err := os.Stat(x.path)
	if err != nil {
		_ = w.Close() // the stat error is the one to report
		_ = r.Close()
		return err
	}
	x.w, x.r, x.id = w, r, fi
	return nil
}

// recreateLocked deletes the index file and makes a new one. x.dbMu must
// be held for writing.
func (x *Index) recreateLocked(ctx context.Context) error {
	if err := x.closeLocked(); err != nil && !indexdb.IsDamaged(err) {
		return err
	}
	if err := indexdb.Remove(x.path); err != nil {
		return err
	}
	return x.openLocked(ctx)
}

// reopenIfReplaced reopens the pools when another process deleted the
// file (a damaged index it started over).
func (x *Index) reopenIfReplaced(ctx context.Context) error {
	fi, err := os.Stat(x.path)
	x.dbMu.Lock()
	defer x.dbMu.Unlock()
	if err == nil && x.id != nil && os.SameFile(fi, x.id) {
		return nil
	}
	if err := x.closeLocked(); err != nil && !indexdb.IsDamaged(err) {
		return err
	}
	return x.openLocked(ctx)
}

// prepare creates the tables of a new file and starts over a file of
// another format or another store, in one transaction. A file of this
// format that lacks one of its tables (its file deleted while a build was
// writing its log, say) is damaged: it is started over too, and prepare
// reports it.
func prepare(ctx context.Context, w *sql.DB, storePath string) (damaged bool, err error) {
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	var format, path string
	var tables int
	if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'meta'").Scan(&tables); err != nil {
		return false, err
	}
	if tables > 0 {
		format, _ = indexdb.GetMeta(ctx, tx, "format")
		path, _ = indexdb.GetMeta(ctx, tx, "store")
		if format == indexFormat && path == storePath {
			missing, err := missingTable(ctx, tx)
			if err != nil {
				return false, err
			}
			if missing == "" {
				return false, tx.Commit()
			}
			damaged = true
		}
	}
	if err := resetTables(ctx, tx, storePath); err != nil {
		return false, err
	}
	return damaged, tx.Commit()
}

// resetTables drops whatever the file holds and creates empty tables.
func resetTables(ctx context.Context, tx *sql.Tx, storePath string) error {
	if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS fts"); err != nil { // format 4's, and its shadow tables
		return err
	}
	rows, err := tx.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'")
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS "`+strings.ReplaceAll(n, `"`, `""`)+`"`); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, indexSchema); err != nil {
		return err
	}
	for k, v := range map[string]any{"format": indexFormat, "store": storePath} {
		if err := indexdb.SetMeta(ctx, tx, k, v); err != nil {
			return err
		}
	}
	return nil
}
