package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/lazuli-app/lazuli/store/listcache"
	"modernc.org/sqlite"
)

// readOnlyDriver is the driver name of connections that an authorizer keeps
// from writing. It is registered once per process.
const readOnlyDriver = "sqlite-lazuli-readonly"

var registerReadOnly sync.Once

// sqliteHeader starts every SQLite 3 database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// dsn builds the connection string. Per-connection settings go in _pragma
// parameters so every pooled connection gets them. journal_mode is left
// out: setting it is a write when the file is in another mode, so it is set
// once, right before the first write (see prepareWrite).
func dsn(path string, readOnly bool, busy time.Duration) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(busy.Milliseconds(), 10)+")")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	if readOnly {
		q.Set("mode", "ro")
		q.Add("_pragma", "query_only(1)")
	} else {
		q.Set("mode", "rw") // never create: the first write creates the file itself
		q.Set("_txlock", "immediate")
	}
	return FileURI(path, q)
}

// openPool opens a connection pool on path. Connections are made lazily.
func openPool(path string, readOnly bool, busy time.Duration) (*sql.DB, error) {
	name := "sqlite"
	if readOnly {
		name = readOnlyDriverName()
	}
	return openPoolDSN(name, dsn(path, readOnly, busy))
}

// openPoolDSN opens a connection pool of the named driver on dsn.
func openPoolDSN(driver, dsn string) (*sql.DB, error) {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxOpenConns)
	return db, nil
}

// readOnlyDriverName registers the driver of read-only connections (once)
// and returns its name.
func readOnlyDriverName() string {
	registerReadOnly.Do(func() {
		d := &sqlite.Driver{}
		d.RegisterConnectionHook(installReadOnlyAuthorizer)
		sql.Register(readOnlyDriver, d)
	})
	return readOnlyDriver
}

// installReadOnlyAuthorizer denies every action except reading, so that no
// statement (not even PRAGMA query_only=0 or CREATE TEMP TABLE) can write.
func installReadOnlyAuthorizer(c sqlite.ExecQuerierContext, _ string) error {
	ar, ok := c.(sqlite.AuthorizerRegisterer)
	if !ok {
		return errors.New("sqlite connection cannot register an authorizer")
	}
	return ar.RegisterAuthorizer(readOnlyPolicy)
}

// readOnlyPragmas are the PRAGMAs a read-only connection may run: queries
// that report on the file and change nothing.
var readOnlyPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "index_list": true, "index_info": true,
	"quick_check": true, "integrity_check": true, "foreign_key_check": true,
	"page_count": true, "page_size": true, "freelist_count": true, "data_version": true,
}

// readOnlySettings are the PRAGMAs a read-only connection may run without
// an argument: they report a setting.
var readOnlySettings = map[string]bool{
	"journal_mode": true, "user_version": true, "foreign_keys": true, "synchronous": true,
	"busy_timeout": true, "query_only": true,
}

func readOnlyPolicy(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthFunction, sqlite.AuthRecursive, sqlite.AuthTransaction:
		return sqlite.AuthorizerOK
	case sqlite.AuthPragma:
		if readOnlyPragmas[arg1] || (arg2 == "" && readOnlySettings[arg1]) {
			return sqlite.AuthorizerOK
		}
	}
	return sqlite.AuthorizerDeny
}

// checkHeader reports a file that does not start with SQLite's header with
// a *FormatError; anything else (damage, a busy file) is left to the
// caller's next step to report. Like readHeader it reads through SQLite
// (see probeHeader), never opening the file itself.
func checkHeader(path string) error {
	_, err := probeHeader(path)
	if errors.Is(err, errNotSQLite) || sqliteCode(err) == 26 { // SQLITE_NOTADB
		return &FormatError{Path: path, Reason: "the file is not an SQLite database"}
	}
	return nil // the caller's own open reports anything else
}

// probeHeader reads the database header of the file at path through an
// immutable SQLite connection: one that takes no lock and opens no file
// beside it (no -wal, no -shm: it reads the file alone, even in WAL mode),
// so that looking at a store's header changes nothing. It is still
// SQLite's unix VFS that opens the file, which keeps this process's locks
// on it when it closes (see readHeader).
func probeHeader(path string) ([100]byte, error) {
	var b [100]byte
	q := url.Values{"mode": {"ro"}, "immutable": {"1"}}
	db, err := openPoolDSN(readOnlyDriverName(), FileURI(path, q))
	if err != nil {
		return b, err
	}
	defer db.Close()
	err = headerPage(context.Background(), db, &b)
	return b, err
}

// inWAL reports whether reading the store at path through SQLite, even
// read-only, would create or change a file beside it: a WAL file is there
// (SQLite then opens it, and creates or writes the -shm index), or the
// header says WAL mode (SQLite then creates both). Such a store is read
// through a copy (see copyInterrupted).
func inWAL(path string) bool {
	if fileExists(path + "-wal") {
		return true
	}
	b, err := probeHeader(path)
	return err == nil && (b[18] == 2 || b[19] == 2)
}

// dbHeader is the 100-byte header at the start of an SQLite database file
// (https://sqlite.org/fileformat.html#the_database_header), and the size
// of the file.
type dbHeader struct {
	b    [100]byte
	size int64
}

// readHeader reads path's header through SQLite (the sqlite_dbpage table),
// in q's read transaction when q is one, and stats the file for its size.
// It reports a file that is not an SQLite database with a *FormatError.
//
// The file is never opened directly: closing any descriptor of a file
// drops every POSIX lock this process holds on it, SQLite's included (its
// unix VFS only guards its own descriptors), so a plain os.Open and Close
// while another Store of this process reads or writes the file would leave
// that Store's transaction unprotected against other processes.
func readHeader(ctx context.Context, q querier, path string) (dbHeader, error) {
	var h dbHeader
	err := headerPage(ctx, q, &h.b)
	if errors.Is(err, errNotSQLite) {
		return h, &FormatError{Path: path, Reason: "the file is not an SQLite database"}
	}
	if err != nil {
		return h, formatOrErr(path, err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return h, err
	}
	h.size = st.Size()
	return h, nil
}

// errNotSQLite reports a first page without SQLite's magic string.
var errNotSQLite = errors.New("no SQLite header")

// headerPage reads the database header into b through SQLite.
func headerPage(ctx context.Context, q querier, b *[100]byte) error {
	var page []byte
	err := q.QueryRowContext(ctx, "SELECT data FROM sqlite_dbpage WHERE pgno = 1").Scan(&page)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && (len(page) < len(b) || !bytes.HasPrefix(page, sqliteHeader))) {
		return errNotSQLite
	}
	if err != nil {
		return err
	}
	copy(b[:], page)
	return nil
}

// checkLength reports a file that is shorter than its header says: a
// truncated copy, for example. It is the part of PRAGMA quick_check that
// Open can afford; the full check runs before the first write (see
// Store.verify). The size recorded in the header is valid only when its
// change counter matches; and in WAL mode, or with a journal next to the
// file, the file alone is not the database, so SQLite has the last word.
func (h dbHeader) checkLength(path string) error {
	be := binary.BigEndian
	pageSize := int64(be.Uint16(h.b[16:]))
	if pageSize == 1 {
		pageSize = 65536
	}
	pages := int64(be.Uint32(h.b[28:]))
	valid := pages > 0 && be.Uint32(h.b[24:]) == be.Uint32(h.b[92:])
	if !valid || pageSize < 512 || pageSize&(pageSize-1) != 0 || h.b[18] == 2 ||
		fileExists(path+"-journal") || fileExists(path+"-wal") {
		return nil
	}
	if h.size < pages*pageSize {
		return &FormatError{Path: path, Reason: fmt.Sprintf(
			"the file is damaged (it has %d bytes, but its header says %d pages of %d bytes)", h.size, pages, pageSize)}
	}
	return nil
}

// querier is what *sql.DB, *sql.Conn and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// maxOpenConns bounds the connection pool: each connection has its own page
// cache, and writes are serialised anyway, so a few readers are enough.
const maxOpenConns = 4

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

// fileID is what the file system says about a store file (see fileIDOf):
// the list cache records it, and a Store follows a replaced file by it
// (see followFile).
type fileID = listcache.FileID

// formatOrErr turns SQLite's "not a database" and "corrupt" errors into a
// FormatError and classifies the rest (busy, read-only).
func formatOrErr(path string, err error) error {
	switch sqliteCode(err) {
	case 26: // SQLITE_NOTADB
		return &FormatError{Path: path, Reason: "the file is not an SQLite database"}
	case 11: // SQLITE_CORRUPT
		return &FormatError{Path: path, Reason: "the file is damaged (" + err.Error() + ")"}
	}
	return classify(err)
}
