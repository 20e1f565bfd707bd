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
	"sync/atomic"
	"syscall"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store/listcache"
)

// DefaultBusyTimeout is how long an operation waits for a lock held by
// another connection (AZUREAL, another Lazuli window) before it fails with
// ErrBusy: a write, for a wait in which the store did not change (it
// waits again while other writers commit; see beginWrite); a read,
// readerWait times as long.
const DefaultBusyTimeout = 5 * time.Second

// readerWait is how many busy timeouts a read waits for the store's lock.
// A read waits only while writers commit (in rollback-journal mode they
// let readers in while they prepare their transactions), but writers
// queued behind each other (see beginWrite) commit one after another, and
// SQLite's busy handler, which only sleeps and retries, can miss the gaps
// between them; a reader that says "busy" while writers make progress is
// a failure the user sees for nothing.
const readerWait = 4

// maxOpenConns bounds the connection pool: each connection has its own page
// cache, and writes are serialised anyway, so a few readers are enough.
const maxOpenConns = 4

// Option configures Open and OpenReadOnly.
type Option func(*options)

type options struct {
	busyTimeout time.Duration
	firstWrite  func()
}

// WithBusyTimeout sets how long operations wait for another connection's
// lock before failing with ErrBusy (see DefaultBusyTimeout). The default
// is DefaultBusyTimeout.
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

// eventRows turns event rows into events and back: the zstd codec with its
// pools of decoders and encoders (a load decodes on several goroutines,
// an append compresses on several), the decoded rows of recently loaded
// sessions, and whether writes keep full texts.
type eventRows struct {
	codec    *codec.Codec
	decoders codec.DecoderPool // zstd decoders for the goroutines of a load
	encoders encoderPool       // zstd encoders for parallel compression
	events   eventCache        // decoded rows of recently loaded sessions
	dropFull atomic.Bool       // FullText().SetKeep(false): writes keep no full text
}

// file is a Store's connections to its file: the read pool, the write
// pool opened by the first write, the copy read while the file's last
// write is interrupted or it is in WAL mode, and what the Store knows of
// the file (its schema, whether quick_check passed, its identity when last
// looked at). Its methods are the only code that opens, replaces or closes
// the pools; the rest of the package reads through reader and writes
// through writeTx.
type file struct {
	path     string
	readOnly bool
	opts     options

	mu sync.Mutex // guards db, wdb, aux, snapshot, retired, schema and closed
	// db is the pool for reading: read-only connections (mode=ro, and the
	// authorizer of openPool), so that no read rolls back an interrupted
	// write's journal or checkpoints a WAL file: a store is only changed by
	// a write. nil while the file does not exist.
	db  *sql.DB
	wdb *sql.DB // the pool for writing: one read-write connection, opened by the first write
	aux *sql.DB // helper connection for parallel reads; see helper
	// snapshot is the copy db reads while the file's last write was
	// interrupted or the file is in WAL mode (see attach); nil otherwise.
	snapshot *interruptedCopy
	// retired are read pools replaced while a reader may still use them
	// (see reader), closed by Close, with their copies.
	retired       []*sql.DB
	retiredCopies []*interruptedCopy
	schema        *schemaInfo // what the file held when last inspected
	closed        bool

	writeMu  sync.Mutex // serialises this Store's write transactions
	busyHook func()     // tests: called when a write found the store busy, before it looks for progress
	verifyMu sync.Mutex // guards verified and damage
	verified bool       // quick_check passed (see verify)
	damage   error      // what quick_check found, if it failed
	seen     fileID     // the file when last looked at (see followFile); guarded by mu
	seenOK   bool
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
// appeared since Open. db is nil when there is no store file yet. A pool
// that no longer reads the store as it is (see current) is replaced.
func (f *file) reader(ctx context.Context) (*sql.DB, *schemaInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, nil, errClosed
	}
	if f.db != nil && !f.current(ctx) {
		f.retire()
	}
	if f.db == nil {
		if err := f.attach(ctx); err != nil {
			return nil, nil, err
		}
	}
	f.followFile()
	return f.db, f.schema, nil
}

// current reports whether the read pool still reads the store as it is.
// A rolled-back copy is current while the file and its journal are as they
// were copied; the file itself is, unless a write was interrupted since it
// was attached (a process killed in the middle of one), which a probe on
// the pool tells apart from another connection's write under way: SQLite
// refuses a read-only connection a store with a hot journal. s.mu must be
// held.
func (f *file) current(ctx context.Context) bool {
	if f.snapshot != nil {
		return f.snapshot.matches(f.path)
	}
	if fileExists(f.path + "-wal") {
		return false // another program's WAL: read a copy (see attach)
	}
	if id, ok := fileIDOf(f.path); ok && (!f.seenOK || id != f.seen) && inWAL(f.path) {
		return false // changed into WAL mode since it was last read
	}
	if !fileExists(f.path + "-journal") {
		return true
	}
	var n int
	err := f.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master").Scan(&n)
	return !needsCopy(err)
}

// retire sets the read pool aside: a reader may still be using it. Its
// idle connections are closed, the pool itself and its copy by Close.
// f.mu must be held.
func (f *file) retire() {
	f.db.SetMaxIdleConns(0)
	f.retired = append(f.retired, f.db)
	if f.snapshot != nil {
		f.retiredCopies = append(f.retiredCopies, f.snapshot)
	}
	if f.aux != nil {
		f.aux.SetMaxIdleConns(0)
		f.retired = append(f.retired, f.aux)
	}
	f.db, f.aux, f.snapshot = nil, nil, nil
}

// attach opens the read pool on an existing file and validates it; a
// missing or 0-byte file is left unattached. f.mu must be held.
func (f *file) attach(ctx context.Context) error {
	present, err := fileHasData(f.path)
	if err != nil || !present {
		return err
	}
	if inWAL(f.path) {
		// Even a read-only connection would create or write the -shm
		// index (and an empty -wal file): read a copy with its WAL.
		db, info, err := f.attachCopy(ctx)
		if err != nil {
			return err
		}
		f.db, f.schema = db, info
		return nil
	}
	db, err := openPool(f.path, true, f.opts.busyTimeout*readerWait)
	if err != nil {
		return err
	}
	info, err := validate(ctx, db, f.path, true)
	if err != nil && needsCopy(err) {
		// The last write was interrupted and only a writer may roll it
		// back: read a rolled-back copy and leave the file as it is.
		_ = db.Close()
		db, info, err = f.attachCopy(ctx)
	}
	if err != nil {
		if db != nil {
			_ = db.Close() // the validation error is the one to report
		}
		return err
	}
	f.db, f.schema = db, info
	return nil
}

// validate checks an attached file in one read transaction: its header
// (when the file has data; see readHeader and checkLength) and its schema.
func validate(ctx context.Context, db *sql.DB, path string, present bool) (*schemaInfo, error) {
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, formatOrErr(path, err) // BEGIN already reads the header
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	if present {
		h, err := readHeader(ctx, tx, path)
		if err == nil {
			err = h.checkLength(path)
		}
		if err != nil {
			return nil, err
		}
	}
	return inspect(ctx, tx, path)
}

// helper returns a pool of one read-only connection that splits a large
// read (the first count of Sessions().List) with a connection of the main
// pool, or nil when the file is not attached or the pool cannot be opened.
// It is a pool of its own so that a reader holding a main connection never
// waits for a second main connection (which other such readers might hold).
// Its busy timeout is zero: a writer about to commit blocks new readers
// until the main connection's transaction ends, so waiting would only
// stall both; the caller does the work itself instead.
func (f *file) helper() *sql.DB {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed || f.db == nil || f.snapshot != nil { // a copy is read on one pool
		return nil
	}
	if f.aux == nil {
		aux, err := openPool(f.path, true, 0)
		if err != nil {
			return nil // the caller works alone
		}
		aux.SetMaxOpenConns(1)
		aux.SetMaxIdleConns(1)
		f.aux = aux
	}
	return f.aux
}
