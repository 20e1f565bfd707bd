package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store/listcache"
)

// Option configures Open and OpenReadOnly.
type Option func(*options)

// WithBusyTimeout sets how long operations wait for another connection's
// lock before failing with ErrBusy (see DefaultBusyTimeout). The default
// is DefaultBusyTimeout.
//
// Test support: Lazuli opens stores with DefaultBusyTimeout; tests
// shorten it to see ErrBusy quickly.
func WithBusyTimeout(d time.Duration) Option {
	return func(o *options) { o.busyTimeout = d }
}

// WithFirstWrite calls fn once, when the Store's first write has opened
// its file for writing (creating it when missing), before that write
// runs: the moment the user's folder first holds a store Lazuli writes.
// fn runs on the writing goroutine, without the Store's lock, and must not
// use the Store.
func WithFirstWrite(fn func()) Option {
	return func(o *options) { o.firstWrite = fn }
}

// Store is one worktree's session store file. It is safe for concurrent use
// by multiple goroutines. The file is opened lazily for writing: nothing is
// created or modified until the first write.
type Store struct {
	file                       // the file's read and write pools (see file)
	eventRows                  // event rows decoded and encoded, and recent loads kept (see eventRows)
	list      *listcache.Cache // per-session counts for ListSessions
	unread    unreadLog        // rows loads left out as unreadable (see Unreadable)
}

// Open opens the store at path for reading and, lazily, writing. A missing
// file (or an empty, 0-byte one, which SQLite treats as an empty database)
// is not an error: Exists reports false, reads return nothing, and the first
// Sessions().Create creates the parent directory and the file, and initialises
// an empty one. Opening and reading never modify an existing file: reads go
// through read-only connections, so the journal of an interrupted write is
// not rolled back (a rolled-back copy is read instead, as by OpenReadOnly)
// and a store in WAL mode (which AZUREAL's format never uses, but another
// program may have left) is read through a copy with its WAL file, so that
// no -shm or -wal file is created or changed; the first write rolls back,
// or checkpoints and leaves WAL mode, and runs the schema script and
// AZUREAL's migration.
//
// A file that is not a usable store (not SQLite, shorter than its header
// says, or missing the sessions or events table) yields a *FormatError.
// Open reads the header and the schema only; SQLite's full quick_check,
// which reads the whole file, runs before the first write (see verify). A store whose
// schema_version is newer than 3, or a legacy v1 file, opens for reading
// but refuses writes with ErrReadOnly.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	s, err := newStore(path, false, opts)
	if err != nil {
		return nil, err
	}
	if _, _, err := s.reader(ctx); err != nil {
		_ = s.Close() // the open error is the one to report
		return nil, openError(path, err)
	}
	return s, nil
}

// openError wraps an error of Open; a FormatError already names the file.
func openError(path string, err error) error {
	var fe *FormatError
	if errors.As(err, &fe) {
		return fmt.Errorf("open store: %w", err)
	}
	return fmt.Errorf("open store %s: %w", path, err)
}

// OpenReadOnly opens an existing store file only to look at it. The
// connection is opened with mode=ro and query_only, and an authorizer
// denies every statement that could write, so no method can change the
// file; every write method returns ErrReadOnly. A missing file is an error.
func OpenReadOnly(ctx context.Context, path string, opts ...Option) (*Store, error) {
	s, err := newStore(path, true, opts)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(s.path); err != nil {
		_ = s.Close() // the open error is the one to report
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if _, _, err := s.reader(ctx); err != nil {
		_ = s.Close() // the open error is the one to report
		return nil, openError(path, err)
	}
	return s, nil
}

func newStore(path string, readOnly bool, opts []Option) (*Store, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// A FIFO would block the open; a folder gets its FormatError later.
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		if err := checkMode(abs, fi); err != nil {
			return nil, fmt.Errorf("open store: %w", err)
		}
	}
	o := options{busyTimeout: DefaultBusyTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	c, err := codec.New()
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	s := &Store{file: file{path: abs, readOnly: readOnly, opts: o}, eventRows: eventRows{codec: c}}
	s.list = listcache.New(storeFile(abs), listCacheFile(abs))
	return s, nil
}

// Close closes the database connections. Calls after Close fail.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.list.Close() // waits for a cache file write under way
	s.codec.Close()
	s.decoders.Close()
	s.encoders.close()
	if s.aux != nil {
		_ = s.aux.Close() // read-only: nothing to lose
	}
	for _, db := range s.retired {
		_ = db.Close() // read-only: nothing to lose
	}
	for _, c := range s.retiredCopies {
		c.remove()
	}
	var err error
	if s.wdb != nil {
		err = s.wdb.Close()
	}
	if s.db != nil {
		err = errors.Join(err, s.db.Close())
	}
	s.snapshot.remove() // after the pool that reads it
	if err != nil {
		return fmt.Errorf("close store %s: %w", s.path, err)
	}
	return nil
}

// Path returns the absolute path of the store file.
func (s *Store) Path() string { return s.path }

// ReadPath returns the file this Store's reads go to: the store's own
// file or, while its last write is interrupted or it is in WAL mode, the
// copy read instead (see Open), which stays until Close. A connection of
// another package that must read the store as the Store does, changing no
// file beside it, opens this path read-only (mode=ro). It is "" while
// there is no store file.
func (s *Store) ReadPath(ctx context.Context) (string, error) {
	if _, _, err := s.reader(ctx); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.db == nil:
		return "", nil
	case s.snapshot != nil:
		return s.snapshot.path, nil
	}
	return s.path, nil
}

// ReadOnly reports whether the store was opened with OpenReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Exists reports whether the store file exists and holds a database. It is
// false for a missing or 0-byte file until the first write creates it.
func (s *Store) Exists() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != nil || s.wdb != nil {
		return true
	}
	present, _ := fileHasData(s.path) // a stat error means "no store here"
	return present
}

// Unreadable returns the rows that loads of this Store have left out
// since it was opened because they could not be read (see Unreadable),
// each once, by session and seq; past the first 1,000, more says how
// many others there were. A command says so once, at its end.
func (s *Store) Unreadable() (rows []Unreadable, more int) {
	s.unread.mu.Lock()
	defer s.unread.mu.Unlock()
	rows = slices.Clone(s.unread.rows)
	slices.SortFunc(rows, func(a, b Unreadable) int {
		if c := cmpInt(a.Session, b.Session); c != 0 {
			return c
		}
		return cmpInt(a.Seq, b.Seq)
	})
	return rows, s.unread.extra
}
