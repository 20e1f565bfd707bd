package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	sqlite3 "modernc.org/sqlite/lib"
)

// errNoStore reports a write that needs an existing store (for example
// appending to a session) while the file does not exist; callers turn it
// into ErrNotFound without creating anything.
var errNoStore = errors.New("store file does not exist")

// writeTx runs fn in one BEGIN IMMEDIATE transaction: the write lock is
// taken before fn reads anything, so values it computes (the next seq) are
// safe from other writers. With create set, a missing file is created
// first; otherwise a missing file yields errNoStore.
func (s *Store) writeTx(ctx context.Context, create bool, fn func(tx *sql.Tx) error) error {
	db, err := s.writer(ctx, create)
	if err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	tx, err := s.beginWrite(ctx, db)
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if reason, err := foreignWriteBlocker(ctx, tx); err != nil || reason != "" {
		if err == nil { // another program added it since the Store looked
			err = fmt.Errorf("%w: %w", ErrReadOnly, &FormatError{Path: s.path, Reason: reason})
		}
		return classify(err)
	}
	if err := fn(tx); err != nil {
		return classify(err)
	}
	if err := tx.Commit(); err != nil {
		return classify(err)
	}
	s.wrote()
	return nil
}

// beginWrite begins an immediate transaction on db, a write pool or one of
// its connections (_txlock in the DSN).
// When another writer holds the lock past the busy timeout, it tries again
// as long as the store changed while it waited: the other writer, or a
// queue of them, is making progress, and SQLite's busy handler, which
// only sleeps and retries, may just have lost every race for the lock. It
// gives up with SQLite's busy error after a wait in which nothing changed.
func (s *Store) beginWrite(ctx context.Context, db interface {
	BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error)
}) (*sql.Tx, error) {
	for {
		before := progressMark(s.path)
		tx, err := db.BeginTx(ctx, nil)
		if err == nil || sqliteCode(err) != sqlite3.SQLITE_BUSY || ctx.Err() != nil {
			return tx, err
		}
		if s.busyHook != nil {
			s.busyHook()
		}
		if progressMark(s.path) == before {
			return nil, err
		}
	}
}

// progressMark is what changes when a writer commits to the store at path:
// the file's size and modification time, and its journal's, which a
// commit in rollback-journal mode creates and deletes. It only stats the
// files (see readHeader on why the file is never opened).
func progressMark(path string) [2]fileInfo {
	file, _ := statInfo(path)
	journal, _ := statInfo(path + "-journal")
	return [2]fileInfo{file, journal}
}

// writer returns the pool for writing, creating the file (with create) and
// running the schema script and migration on the first write.
func (s *Store) writer(ctx context.Context, create bool) (*sql.DB, error) {
	if s.readOnly {
		return nil, fmt.Errorf("%w: opened read-only", ErrReadOnly)
	}
	if err := s.verify(ctx); err != nil {
		return nil, err
	}
	wdb, first, err := s.attachWriter(ctx, create)
	if first && s.opts.firstWrite != nil {
		s.opts.firstWrite()
	}
	return wdb, err
}

// attachWriter returns the pool for writing, opening it (first) when this
// is the Store's first write.
func (s *Store) attachWriter(ctx context.Context, create bool) (wdb *sql.DB, first bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false, errClosed
	}
	if s.wdb == nil {
		if err := s.attachForWrite(ctx, create); err != nil {
			return nil, false, err
		}
		first = true
	}
	s.followFile()
	return s.wdb, first, nil
}

// verify runs PRAGMA quick_check on the file once per Store, before its
// first write: Lazuli never writes to a file it could not validate. Open
// checks only the header and the schema, because quick_check reads the
// whole file (about half a second for 270 MB) and many Stores only read.
// It runs on a pooled connection without holding s.mu, so reads go on
// meanwhile. A damaged file stays damaged: the verdict is kept; errors
// such as a busy file are not, and the next write tries again. A file that
// does not exist yet needs no check: the write creates it.
func (s *Store) verify(ctx context.Context) error {
	s.verifyMu.Lock()
	defer s.verifyMu.Unlock()
	if s.verified || s.damage != nil {
		return s.damage
	}
	db, _, err := s.reader(ctx)
	if err != nil || db == nil {
		return err
	}
	err = quickCheck(ctx, db, s.path)
	var fe *FormatError
	switch {
	case errors.As(err, &fe):
		s.damage = err
	case err == nil:
		s.verified = true
	}
	return err
}

// attachForWrite opens the write pool on the file, creating the file when
// create is set and it is missing, and readies it for writing (see
// prepareWrite). Its first read rolls back the journal of an interrupted
// write, as any writer's would; the read pool then moves from a rolled-back
// copy to the file itself. A file this call created is removed again (with
// the directory, if that was created too) when it cannot be initialised, so
// a failed first write leaves nothing behind. s.mu must be held.
func (s *Store) attachForWrite(ctx context.Context, create bool) (err error) {
	present, err := fileHasData(s.path)
	if err != nil {
		return err
	}
	if !present && !create {
		return errNoStore
	}
	if !present {
		var undo func()
		if undo, err = createFile(s.path); err != nil {
			return fmt.Errorf("create store %s: %w", s.path, err)
		}
		defer func() {
			if err != nil {
				undo()
			}
		}()
	}
	s.dropIdle() // a WAL file leaves WAL mode only when no other connection has it open
	wdb, err := openPool(s.path, false, s.opts.busyTimeout)
	if err != nil {
		return err
	}
	wdb.SetMaxOpenConns(1) // writes are serialised (writeMu)
	wdb.SetMaxIdleConns(1)
	info, err := validate(ctx, wdb, s.path, present)
	if err == nil {
		err = s.prepareWrite(ctx, wdb, info)
	}
	if err == nil && (s.db == nil || s.snapshot != nil) {
		if s.db != nil {
			s.retire()
		}
		err = s.attach(ctx)
	}
	if err != nil {
		_ = wdb.Close() // the error above is the one to report
		return err
	}
	s.wdb = wdb
	return nil
}

// dropIdle closes the idle connections of the read pools. s.mu must be
// held.
func (s *Store) dropIdle() {
	if s.db != nil {
		s.db.SetMaxIdleConns(0) // closes the idle ones
		s.db.SetMaxIdleConns(maxOpenConns)
	}
	if s.aux != nil {
		s.aux.SetMaxIdleConns(0)
		s.aux.SetMaxIdleConns(1)
	}
}

// createFile creates path (and its directory) empty, returning a function
// that removes what it created.
func createFile(path string) (undo func(), err error) {
	dir := filepath.Dir(path)
	_, statErr := os.Stat(dir)
	madeDir := errors.Is(statErr, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	made := err == nil
	if errors.Is(err, fs.ErrExist) {
		err = nil // an empty file, or another process created it just now
	}
	if err != nil {
		if madeDir {
			_ = os.Remove(dir) // best effort: the directory we just made is empty
		}
		return nil, err
	}
	if made {
		_ = f.Close() // empty and never written: nothing to flush
	}
	return func() {
		if made {
			_ = os.Remove(path) // best effort cleanup of our own empty file
			_ = os.Remove(path + "-journal")
		}
		if madeDir {
			_ = os.Remove(dir)
		}
	}, nil
}

// prepareWrite readies the file for writing through wdb, the write pool,
// given info, what the file holds: it switches the file to rollback-journal
// mode (a no-op for AZUREAL's files) and runs the schema script and
// migration in one immediate transaction. s.mu must be held.
func (s *Store) prepareWrite(ctx context.Context, wdb *sql.DB, info *schemaInfo) error {
	if reason := info.writeBlocker(); reason != "" {
		return fmt.Errorf("%w: %w", ErrReadOnly, &FormatError{Path: s.path, Reason: reason})
	}
	conn, err := wdb.Conn(ctx)
	if err != nil {
		return classify(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA journal_mode = DELETE"); err != nil {
		return fmt.Errorf("set journal mode: %w", classify(err))
	}
	tx, err := s.beginWrite(ctx, conn)
	if err != nil {
		return fmt.Errorf("prepare store for writing: %w", classify(err))
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	info, err = migrate(ctx, tx, s.path)
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return fmt.Errorf("prepare store for writing: %w", classify(err))
	}
	s.schema = info
	return nil
}
