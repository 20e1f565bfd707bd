package store

import (
	"context"
	"database/sql"
	"sync"
	"time"
)

// A Store's file: the read pool, the write pool opened by the first write,
// the copy read while the file's last write is interrupted or it is in WAL
// mode, and what the Store knows of the file. The write path is write.go.

// attachCopy opens the read pool on a rolled-back copy of the store's file
// (see copyInterrupted). f.mu must be held.
func (f *file) attachCopy(ctx context.Context) (*sql.DB, *schemaInfo, error) {
	c, err := copyInterrupted(f.path)
	if err != nil {
		return nil, nil, err
	}
	db, err := openPool(c.path, false, f.opts.busyTimeout) // read-write: it rolls the copy back
	if err != nil {
		c.remove()
		return nil, nil, err
	}
	info, err := validate(ctx, db, c.path, true)
	if err != nil {
		_ = db.Close()
		c.remove()
		return nil, nil, err
	}
	f.snapshot = c
	return db, info, nil
}

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

type options struct {
	busyTimeout time.Duration
	firstWrite  func()
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
	verifyMu sync.Mutex // guards verified, damage, checks, mark and marked
	verified bool       // quick_check passed (see verify)
	checks   int        // how many times verify ran quick_check
	damage   error      // what quick_check found, if it failed
	mark     verifiedMark
	marked   bool   // mark is the file as checked, or as this Store's commits since left it (see verified.go)
	seen     fileID // the file when last looked at (see followFile); guarded by mu
	seenOK   bool
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

// dropIdle closes the idle connections of the read pools. s.mu must be
// held.
func (f *file) dropIdle() {
	if f.db != nil {
		f.db.SetMaxIdleConns(0) // closes the idle ones
		f.db.SetMaxIdleConns(maxOpenConns)
	}
	if f.aux != nil {
		f.aux.SetMaxIdleConns(0)
		f.aux.SetMaxIdleConns(1)
	}
}

// A store file can be replaced under an open Store: a user restores a
// backup, or copies a store from another machine over the path (cp writes
// into the same inode). SQLite notices only when the header's change
// counter differs; two stores with the same counter (small ones often
// have) make it keep the old file's cached pages and schema, and read
// pages of the new file as if they were the old one's. The Store therefore
// looks at the file (see fileID) before each read: when it changed in a
// way this Store did not make, the idle connections, and their caches, are
// closed, and the next read starts afresh. The counts Sessions().List keeps
// prove their rows on their own (see listcache's contentProof).

// followFile closes the idle connections of the read and write pools when
// the file changed since the Store last looked: before every read (reader)
// and every write (writer), so that no write goes into a replaced file
// through another file's cached pages. f.mu must be held.
func (f *file) followFile() {
	id, ok := fileIDOf(f.path)
	if !ok || (f.seenOK && id == f.seen) {
		return
	}
	if f.seenOK {
		f.dropIdle()
		if f.wdb != nil {
			f.wdb.SetMaxIdleConns(0) // closes its connection when idle
			f.wdb.SetMaxIdleConns(1)
		}
	}
	f.seen, f.seenOK = id, true
}

// wrote records the file as this Store's own write left it, so that the
// next read keeps its connections. Called right after a commit, with
// writeMu held.
func (f *file) wrote() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen, f.seenOK = fileIDOf(f.path)
}
