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

	"github.com/lazuli-app/lazuli/store/listcache"
)

// errNoStore reports a write that needs an existing store (for example
// appending to a session) while the file does not exist; callers turn it
// into ErrNotFound without creating anything.
var errNoStore = errors.New("store file does not exist")

// writeTx runs fn in one BEGIN IMMEDIATE transaction: the write lock is
// taken before fn reads anything, so values it computes (the next seq) are
// safe from other writers. With create set, a missing file is created
// first; otherwise a missing file yields errNoStore.
func (f *file) writeTx(ctx context.Context, create bool, fn func(tx *sql.Tx) error) error {
	db, err := f.writer(ctx, create)
	if err != nil {
		return err
	}
	f.writeMu.Lock()
	defer f.writeMu.Unlock()
	tx, err := f.beginWrite(ctx, db)
	if err != nil {
		return classify(err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	if reason, err := foreignWriteBlocker(ctx, tx); err != nil || reason != "" {
		if err == nil { // another program added it since the Store looked
			err = fmt.Errorf("%w: %w", ErrReadOnly, &FormatError{Path: f.path, Reason: reason})
		}
		return classify(err)
	}
	if err := fn(tx); err != nil {
		return classify(err)
	}
	counter, counterOK := f.markCounter(ctx, tx)
	if err := tx.Commit(); err != nil {
		return classify(err)
	}
	f.wrote()
	if rdb, _, err := f.reader(ctx); err == nil && rdb != nil {
		f.carryMark(ctx, rdb, counter, counterOK)
	}
	return nil
}

// beginWrite begins an immediate transaction on db, a write pool or one of
// its connections (_txlock in the DSN).
// When another writer holds the lock past the busy timeout, it tries again
// as long as the store changed while it waited: the other writer, or a
// queue of them, is making progress, and SQLite's busy handler, which
// only sleeps and retries, may just have lost every race for the lock. It
// gives up with SQLite's busy error after a wait in which nothing changed.
func (f *file) beginWrite(ctx context.Context, db interface {
	BeginTx(context.Context, *sql.TxOptions) (*sql.Tx, error)
}) (*sql.Tx, error) {
	for {
		before := progressMark(f.path)
		tx, err := db.BeginTx(ctx, nil)
		if err == nil || sqliteCode(err) != sqlite3.SQLITE_BUSY || ctx.Err() != nil {
			return tx, err
		}
		if f.busyHook != nil {
			f.busyHook()
		}
		if progressMark(f.path) == before {
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
func (f *file) writer(ctx context.Context, create bool) (*sql.DB, error) {
	if f.readOnly {
		return nil, fmt.Errorf("%w: opened read-only", ErrReadOnly)
	}
	if err := f.verify(ctx); err != nil {
		return nil, err
	}
	wdb, first, err := f.attachWriter(ctx, create)
	if first && f.opts.firstWrite != nil {
		f.opts.firstWrite()
	}
	return wdb, err
}

// attachWriter returns the pool for writing, opening it (first) when this
// is the Store's first write.
func (f *file) attachWriter(ctx context.Context, create bool) (wdb *sql.DB, first bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, false, errClosed
	}
	if f.wdb == nil {
		if err := f.attachForWrite(ctx, create); err != nil {
			return nil, false, err
		}
		first = true
	}
	f.followFile()
	return f.wdb, first, nil
}

// verify runs PRAGMA quick_check on the file once per Store, before its
// first write: Lazuli never writes to a file it could not validate. A file
// that an earlier check (of any process) found healthy, unchanged since
// but for this program's own commits, is not checked again (see
// verified.go). Open
// checks only the header and the schema, because quick_check reads the
// whole file (about half a second for 270 MB) and many Stores only read.
// It runs on a pooled connection without holding s.mu, so reads go on
// meanwhile. A damaged file stays damaged: the verdict is kept; errors
// such as a busy file are not, and the next write tries again. A file that
// does not exist yet needs no check: the write creates it.
func (f *file) verify(ctx context.Context) error {
	f.verifyMu.Lock()
	defer f.verifyMu.Unlock()
	if f.verified || f.damage != nil {
		return f.damage
	}
	db, _, err := f.reader(ctx)
	if err != nil || db == nil {
		return err
	}
	cur, markable, healthy := markedHealthy(ctx, db, f.path)
	if healthy { // checked before, by this process or another, and unchanged since
		f.verified, f.mark, f.marked = true, cur, true
		return nil
	}
	f.checks++
	err = quickCheck(ctx, db, f.path)
	var fe *FormatError
	switch {
	case errors.As(err, &fe):
		f.damage = err
	case err == nil:
		f.verified = true
		if markable { // read before the check: a commit since makes it stale, never wrong
			f.mark, f.marked = cur, true
			saveMark(f.path, cur)
		}
	}
	return err
}

// attachForWrite opens the write pool on the file, creating the file when
// create is set and it is missing, and readies it for writing (see
// prepareWrite). Its first read rolls back the journal of an interrupted
// write, as any writer's would; the read pool then moves from a rolled-back
// copy to the file itself. A file this call created is removed again (with
// the directory, if that was created too) when it cannot be initialised, so
// a failed first write leaves nothing behind. f.mu must be held.
func (f *file) attachForWrite(ctx context.Context, create bool) (err error) {
	present, err := fileHasData(f.path)
	if err != nil {
		return err
	}
	if !present && !create {
		return errNoStore
	}
	if !present {
		var undo func()
		if undo, err = createFile(f.path); err != nil {
			return fmt.Errorf("create store %s: %w", f.path, err)
		}
		defer func() {
			if err != nil {
				undo()
			}
		}()
	}
	f.dropIdle() // a WAL file leaves WAL mode only when no other connection has it open
	wdb, err := openPool(f.path, false, f.opts.busyTimeout)
	if err != nil {
		return err
	}
	wdb.SetMaxOpenConns(1) // writes are serialised (writeMu)
	wdb.SetMaxIdleConns(1)
	info, err := validate(ctx, wdb, f.path, present)
	if err == nil {
		err = f.prepareWrite(ctx, wdb, info)
	}
	if err == nil && (f.db == nil || f.snapshot != nil) {
		if f.db != nil {
			f.retire()
		}
		err = f.attach(ctx)
	}
	if err != nil {
		_ = wdb.Close() // the error above is the one to report
		return err
	}
	f.wdb = wdb
	return nil
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
// migration in one immediate transaction. f.mu must be held.
func (f *file) prepareWrite(ctx context.Context, wdb *sql.DB, info *schemaInfo) error {
	if reason := info.writeBlocker(); reason != "" {
		return fmt.Errorf("%w: %w", ErrReadOnly, &FormatError{Path: f.path, Reason: reason})
	}
	conn, err := wdb.Conn(ctx)
	if err != nil {
		return classify(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "PRAGMA journal_mode = DELETE"); err != nil {
		return fmt.Errorf("set journal mode: %w", classify(err))
	}
	tx, err := f.beginWrite(ctx, conn)
	if err != nil {
		return fmt.Errorf("prepare store for writing: %w", classify(err))
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	info, err = migrate(ctx, tx, f.path)
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return fmt.Errorf("prepare store for writing: %w", classify(err))
	}
	f.schema = info
	return nil
}

// markCounter reads, inside a write transaction before its commit, the
// change counter the file has as the transaction found it: equal to the
// mark's, no other program committed since the mark. ok is false when
// this Store keeps no mark.
func (f *file) markCounter(ctx context.Context, tx *sql.Tx) (counter uint32, ok bool) {
	f.verifyMu.Lock()
	marked := f.marked
	f.verifyMu.Unlock()
	if !marked {
		return 0, false
	}
	var h [100]byte
	if headerPage(ctx, tx, &h) != nil {
		return 0, false
	}
	return listcache.StampOf(&h).Counter, true
}

// carryMark moves the mark forward after a commit of this Store, when the
// file was the marked one as the transaction began (before, from
// markCounter) and is now that file plus this commit alone: its counter
// went up by one, or nothing changed. Otherwise the mark stays behind and
// the next Store checks the file again. Called with writeMu held, right
// after the commit.
func (f *file) carryMark(ctx context.Context, db *sql.DB, before uint32, beforeOK bool) {
	f.verifyMu.Lock()
	defer f.verifyMu.Unlock()
	if !f.marked {
		return
	}
	cur, ok := currentMark(ctx, db, f.path)
	switch {
	case !beforeOK || before != f.mark.Stamp.Counter || !ok:
		f.marked = false
	case cur == f.mark:
		// the commit changed nothing
	case cur.Stamp.Counter == before+1:
		f.mark = cur
		saveMark(f.path, cur)
	default:
		f.marked = false
	}
}
