package store

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

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
	return (&url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}).String()
}

// openPool opens a connection pool on path. Connections are made lazily.
func openPool(path string, readOnly bool, busy time.Duration) (*sql.DB, error) {
	name := "sqlite"
	if readOnly {
		registerReadOnly.Do(func() {
			d := &sqlite.Driver{}
			d.RegisterConnectionHook(installReadOnlyAuthorizer)
			sql.Register(readOnlyDriver, d)
		})
		name = readOnlyDriver
	}
	db, err := sql.Open(name, dsn(path, readOnly, busy))
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	db.SetMaxOpenConns(maxOpenConns)
	db.SetMaxIdleConns(maxOpenConns)
	return db, nil
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

func readOnlyPolicy(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthFunction, sqlite.AuthRecursive, sqlite.AuthTransaction:
		return sqlite.AuthorizerOK
	case sqlite.AuthPragma:
		if readOnlyPragmas[arg1] || (arg2 == "" && (arg1 == "journal_mode" || arg1 == "user_version")) {
			return sqlite.AuthorizerOK
		}
	}
	return sqlite.AuthorizerDeny
}

// checkHeader reports a file that does not start with SQLite's header.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil || !bytes.Equal(head, sqliteHeader) {
		return &FormatError{Path: path, Reason: "the file is not an SQLite database"}
	}
	return nil
}
