package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// DefaultBusyTimeout is how long an operation waits for a lock held by
// another connection (AZUREAL, another Lazuli window) before it fails with
// ErrBusy.
const DefaultBusyTimeout = 5 * time.Second

// maxOpenConns bounds the connection pool: each connection has its own page
// cache, and writes are serialised anyway, so a few readers are enough.
const maxOpenConns = 4

// Option configures Open and OpenReadOnly.
type Option func(*options)

type options struct {
	busyTimeout time.Duration
}

// WithBusyTimeout sets how long operations wait for another connection's
// lock before failing with ErrBusy. The default is DefaultBusyTimeout.
func WithBusyTimeout(d time.Duration) Option {
	return func(o *options) { o.busyTimeout = d }
}

// Store is one worktree's session store file. It is safe for concurrent use
// by multiple goroutines. The file is opened lazily for writing: nothing is
// created or modified until the first write.
type Store struct {
	path     string
	readOnly bool
	opts     options
	codec    *codec

	mu     sync.Mutex  // guards db, schema, ready and closed
	db     *sql.DB     // nil while the file does not exist
	schema *schemaInfo // what the file held when last inspected
	ready  bool        // the schema script and migration ran
	closed bool

	writeMu  sync.Mutex  // serialises this Store's write transactions
	list     listCache   // per-session counts for ListSessions
	events   eventCache  // decoded rows of recently loaded sessions
	encoders encoderPool // zstd encoders for parallel compression
}

// Open opens the store at path for reading and, lazily, writing. A missing
// file (or an empty, 0-byte one, which SQLite treats as an empty database)
// is not an error: Exists reports false, reads return nothing, and the first
// CreateSession creates the parent directory and the file, and initialises
// an empty one. Opening never modifies an existing file: the schema script
// and AZUREAL's migration run right before the first write.
//
// A file that is not a usable store (not SQLite, damaged, or missing the
// sessions or events table) yields a *FormatError. A store whose
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
	o := options{busyTimeout: DefaultBusyTimeout}
	for _, opt := range opts {
		opt(&o)
	}
	c, err := newCodec()
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return &Store{path: abs, readOnly: readOnly, opts: o, codec: c}, nil
}

// Close closes the database connections. Calls after Close fail.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	s.codec.close()
	s.encoders.close()
	if s.db == nil {
		return nil
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close store %s: %w", s.path, err)
	}
	return nil
}

// Path returns the absolute path of the store file.
func (s *Store) Path() string { return s.path }

// ReadOnly reports whether the store was opened with OpenReadOnly.
func (s *Store) ReadOnly() bool { return s.readOnly }

// Exists reports whether the store file exists and holds a database. It is
// false for a missing or 0-byte file until the first write creates it.
func (s *Store) Exists() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != nil {
		return true
	}
	present, _ := fileHasData(s.path) // a stat error means "no store here"
	return present
}

// fileHasData reports whether path is a regular file with at least one byte.
func fileHasData(path string) (bool, error) {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return false, nil
	case err != nil:
		return false, err
	case st.IsDir():
		return false, &FormatError{Path: path, Reason: "it is a directory"}
	}
	return st.Size() > 0, nil
}

// fileExists reports whether something exists at path.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// reader returns the connection pool for reading, attaching the file if it
// appeared since Open. db is nil when there is no store file yet.
func (s *Store) reader(ctx context.Context) (*sql.DB, *schemaInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, nil, errClosed
	}
	if s.db == nil {
		if err := s.attach(ctx, false); err != nil {
			return nil, nil, err
		}
	}
	return s.db, s.schema, nil
}

// attach opens the pool on an existing file and validates it. With empty
// set it also attaches a missing-data (0-byte) file, for the first write.
// s.mu must be held.
func (s *Store) attach(ctx context.Context, empty bool) error {
	present, err := fileHasData(s.path)
	if err != nil || (!present && !empty) {
		return err
	}
	if present {
		if err := checkHeader(s.path); err != nil {
			return err
		}
	}
	db, err := openPool(s.path, s.readOnly, s.opts.busyTimeout)
	if err != nil {
		return err
	}
	info, err := inspect(ctx, db, s.path, present)
	if err != nil {
		_ = db.Close() // the validation error is the one to report
		return err
	}
	s.db, s.schema = db, info
	return nil
}
