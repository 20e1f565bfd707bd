// Package indexdb is what Lazuli's derived SQLite indexes in the cache
// folder (search's full-text index, insight's index) share: how their file
// is opened, told damaged and removed, their meta table of keys and
// values, one write transaction, which of their sessions the store no
// longer has, and the mark that tells another file copied over the store.
//
// It imports none of Lazuli's packages (and never Fyne), so any package
// that keeps an index may use it.
package indexdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// DSN is the connection string of the index file at path: the writer's
// (WAL, BEGIN IMMEDIATE, a bounded log; use one connection) or a reader's
// (query_only).
func DSN(path string, writer bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if writer {
		q.Add("_pragma", "journal_mode(WAL)")
		q.Add("_pragma", "journal_size_limit(67108864)")
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
		q.Add("_pragma", "cache_size(-8000)")
	}
	return fileURI(path, q)
}

// OpenWriter opens the writer's pool on path: one connection.
func OpenWriter(path string) (*sql.DB, error) {
	db, err := sql.Open("sqlite", DSN(path, true))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return db, nil
}

// Path returns where a derived index of a store lives: key.db (key is
// the store's store.CacheKey) in folder of Lazuli's cache folder, which
// cacheDir returns (store.CacheDir: indexdb imports none of ours). It
// creates nothing.
func Path(cacheDir func() (string, error), folder, key string) (string, error) {
	dir, err := cacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, folder, key+".db"), nil
}

// MakeDir creates the folder of the index file at path (0700: the cache
// folder's files are private) and returns path. An error given is returned
// as it is, so that MakeDir(IndexPath(p)) is one step.
func MakeDir(path string, err error) (string, error) {
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	return path, nil
}

// Open opens the index file at path as every derived index does: the
// writer's pool (OpenWriter), prepare run on it (creating the tables of a
// new file, or starting over a file of another format or store), and the
// file kept private (0600). On an error the pool is closed and the error
// is the one of the step that failed.
func Open(ctx context.Context, path string, prepare func(context.Context, *sql.DB) error) (*sql.DB, error) {
	db, err := OpenWriter(path)
	if err != nil {
		return nil, err
	}
	if err := prepare(ctx, db); err != nil {
		_ = db.Close() // the preparation error is the one to report
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = db.Close() // the chmod error is the one to report
		return nil, err
	}
	return db, nil
}

// Remove deletes the index file at path, its log files and its seal;
// missing ones are no error.
func Remove(path string) error {
	for _, suffix := range []string{sealSuffix, "", "-wal", "-shm", "-journal"} {
		if err := os.Remove(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("remove damaged index: %w", err)
		}
	}
	return nil
}

// IsDamaged reports an error that means the file is not a usable
// database: corrupt, not a database, or not openable.
func IsDamaged(err error) bool {
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

// RowQuerier is a *sql.DB, *sql.Conn or *sql.Tx.
type RowQuerier interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}

// Querier is a *sql.DB, *sql.Conn or *sql.Tx.
type Querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// GetMeta reads key of the meta(key, value) table; "" when it is NULL.
func GetMeta(ctx context.Context, q RowQuerier, key string) (string, error) {
	var v sql.NullString
	err := q.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", key).Scan(&v)
	return v.String, err
}

// SetMeta writes key of the meta(key, value) table.
func SetMeta(ctx context.Context, tx *sql.Tx, key string, value any) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value)
	return err
}

// WriteTx runs fn in a transaction of db and commits it when fn succeeds.
func WriteTx(ctx context.Context, db *sql.DB, fn func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil) // immediate: _txlock in the writer's DSN
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// StaleSessions returns the ids of the index's sessions(id, created) rows
// whose session the store no longer has, or whose id now names another
// session (AZUREAL reuses the ids of deleted sessions): created reports
// the store's created text of a session id, and whether it has one.
func StaleSessions(ctx context.Context, q Querier, created func(id int64) (string, bool)) ([]int64, error) {
	rows, err := q.QueryContext(ctx, "SELECT id, created FROM sessions")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var gone []int64
	for rows.Next() {
		var id int64
		var c string
		if err := rows.Scan(&id, &c); err != nil {
			return nil, err
		}
		if now, ok := created(id); !ok || now != c {
			gone = append(gone, id)
		}
	}
	return gone, rows.Err()
}

// InList returns "(?, ?, …)" for ids and the ids as arguments.
func InList(ids []int64) (string, []any) {
	args := make([]any, len(ids))
	b := []byte{'('}
	for i, id := range ids {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '?')
		args[i] = id
	}
	return string(append(b, ')')), args
}

// Mark is the event at an index's high-water mark, kept to recognise
// another file copied over the store at its path (the same session ids,
// other contents): its session, seq and kind, its session's created text,
// and a hash of its contents (RowHash).
type Mark struct {
	Session, Seq        int64
	Kind, Created, Hash string
}

// RowHash identifies an event's contents for a Mark: 16 hex digits of the
// SHA-256 of its JSON encoding js. An undecodable row has none (nil): its
// kind and position still identify it.
func RowHash(js []byte) string {
	sum := sha256.Sum256(js)
	return hex.EncodeToString(sum[:8])
}

// SameFile reports whether the store is still the file an index marked m
// in: now is the event the store has at the mark's id (nil when it has
// none), and created reports the store's created text of m's session and
// whether the store has that session. Event ids only grow, so the row at
// the mark must still be there, unchanged, unless its session was deleted.
func (m Mark) SameFile(now *Mark, created string, ok bool) bool {
	if now != nil {
		return now.Session == m.Session && now.Seq == m.Seq && now.Kind == m.Kind && now.Hash == m.Hash
	}
	return !ok || created != m.Created // gone with its session, or not this file
}

// fileURI is the SQLite URI of the database file at path, as
// store.FileURI makes it (this package imports none of ours): forward
// slashes and a leading one, so a Windows drive stays in the path
// (file:///C:/…) instead of becoming the URI's authority.
func fileURI(path string, query url.Values) string {
	slashed := filepath.ToSlash(path)
	if !strings.HasPrefix(slashed, "/") {
		slashed = "/" + slashed
	}
	return (&url.URL{Scheme: "file", Path: slashed, RawQuery: query.Encode()}).String()
}
