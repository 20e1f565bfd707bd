package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/store/listcache"
)

// Environment of the helper process (see helperMain).
const (
	helperEnv     = "LAZULI_STORE_TEST_HELPER"
	helperPathEnv = "LAZULI_STORE_TEST_PATH"
)

// Exit codes of the helper process.
const (
	helperWrote = 0
	helperBusy  = 3
)

// helperMain runs in a child process: it tries one write to the store at
// $LAZULI_STORE_TEST_PATH without waiting for locks, and exits helperWrote
// or helperBusy.
func helperMain() int {
	db, err := sql.Open("sqlite", "file:"+os.Getenv(helperPathEnv)+"?_pragma=busy_timeout(0)")
	if err != nil {
		return 1
	}
	defer db.Close()
	_, err = db.Exec("INSERT INTO sessions(worktree) VALUES ('helper')")
	switch {
	case err == nil:
		return helperWrote
	case sqliteCode(err) == 5: // SQLITE_BUSY
		return helperBusy
	}
	os.Stderr.WriteString(err.Error() + "\n")
	return 1
}

// writeFromOtherProcess runs helperMain on path and returns its exit code.
func writeFromOtherProcess(t *testing.T, path string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", helperPathEnv+"="+path)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("helper: %v", err)
	}
	if code := cmd.ProcessState.ExitCode(); code == helperWrote || code == helperBusy {
		return code
	}
	t.Fatalf("helper failed: %s", out)
	return -1
}

// TestOpenKeepsOtherConnectionsLocks checks that opening, listing and
// checking a store never drops the locks that another Store of this process
// holds on the same file. POSIX locks belong to the process and a close of
// any descriptor of the file drops them all, so reading the header with
// os.Open and Close would let another process write in the middle of a
// read transaction.
func TestOpenKeepsOtherConnectionsLocks(t *testing.T) {
	ctx := context.Background()
	path := newStoreFile(t)
	a := mustOpenPath(t, path)
	db, _, err := a.reader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow("SELECT COUNT(*) FROM events").Scan(&n); err != nil { // takes the shared lock
		t.Fatal(err)
	}
	if got := writeFromOtherProcess(t, path); got != helperBusy {
		t.Fatalf("another process wrote during a read transaction (exit %d)", got)
	}
	for name, use := range map[string]func() error{
		"Open": func() error {
			_, err := mustOpenPath(t, path).Sessions().List(ctx, "")
			return err
		},
		"OpenReadOnly": func() error {
			s, err := OpenReadOnly(ctx, path)
			if err != nil {
				return err
			}
			defer s.Close()
			_, err = s.Sessions().List(ctx, "")
			return err
		},
		"CheckFile": func() error { _, err := CheckFile(ctx, path); return err },
	} {
		if err := use(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := writeFromOtherProcess(t, path); got != helperBusy {
			t.Fatalf("after %s of the same file, another process could write during a read transaction: the lock was dropped", name)
		}
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := writeFromOtherProcess(t, path); got != helperWrote {
		t.Fatalf("the helper could not write once the transaction ended (exit %d)", got)
	}
}

// TestOpenTruncatedAtTheEnd cuts the last pages off a store, where no
// schema page is: the header's page count says the file is short.
func TestOpenTruncatedAtTheEnd(t *testing.T) {
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, newBenchGen(4).events(300)...)
	s.Close()
	data, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	pageSize := int(binary.BigEndian.Uint16(data[16:]))
	writeFile(t, s.Path(), data[:len(data)-2*pageSize])
	for _, open := range []func(context.Context, string, ...Option) (*Store, error){Open, OpenReadOnly} {
		_, err := open(context.Background(), s.Path())
		var fe *FormatError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "damaged") {
			t.Errorf("open of a truncated store: error = %v, want a *FormatError about damage", err)
		}
	}
}

// TestCheckLength checks the header's size check on its own: SQLite
// itself also refuses most truncated files, before it runs.
func TestCheckLength(t *testing.T) {
	header := func(pageSize uint16, pages, counter, validFor uint32, size int64) dbHeader {
		var h dbHeader
		copy(h.b[:], sqliteHeader)
		binary.BigEndian.PutUint16(h.b[16:], pageSize)
		h.b[18], h.b[19] = 1, 1
		binary.BigEndian.PutUint32(h.b[24:], counter)
		binary.BigEndian.PutUint32(h.b[28:], pages)
		binary.BigEndian.PutUint32(h.b[92:], validFor)
		h.size = size
		return h
	}
	path := t.TempDir() + "/x.azs"
	tests := []struct {
		name    string
		h       dbHeader
		damaged bool
	}{
		{"Whole", header(4096, 10, 7, 7, 40960), false},
		{"Longer", header(4096, 10, 7, 7, 50000), false},
		{"Short", header(4096, 10, 7, 7, 40959), true},
		{"Page64K", header(1, 2, 7, 7, 65536), true},
		{"StaleSize", header(4096, 10, 7, 6, 4096), false}, // SQLite then goes by the file's size
		{"BadPageSize", header(1000, 10, 7, 7, 4096), false},
	}
	for _, tt := range tests {
		err := tt.h.checkLength(path)
		var fe *FormatError
		if got := errors.As(err, &fe); got != tt.damaged || (err != nil && !got) {
			t.Errorf("%s: checkLength() = %v, want damaged %v", tt.name, err, tt.damaged)
		}
	}
}

// TestFileStamp checks that every write transaction changes the stamp the
// list cache relies on, and that reading does not.
func TestFileStamp(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	stamp := func() listcache.Stamp {
		t.Helper()
		db, _, err := s.reader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var h dbHeader
		if err := headerPage(ctx, db, &h.b); err != nil {
			t.Fatal(err)
		}
		return listcache.StampOf(&h.b)
	}
	before := stamp()
	if !before.Trusted {
		t.Fatalf("stamp of a rollback-journal store = %+v, want trusted", before)
	}
	mustLoad(t, s, sess.ID)
	if _, err := s.Sessions().List(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if got := stamp(); !got.Same(before) {
		t.Fatalf("reading changed the stamp: %+v → %+v", before, got)
	}
	if err := s.Sessions().Rename(ctx, sess.ID, "renamed"); err != nil {
		t.Fatal(err)
	}
	if got := stamp(); got.Same(before) {
		t.Fatalf("a write left the stamp as it was: %+v", got)
	}
}

// TestCheckHeader checks that checkHeader (CheckFile's first step) reports
// files that are not SQLite, and leaves a damaged SQLite file to the full
// check.
func TestCheckHeader(t *testing.T) {
	data, err := os.ReadFile(newStoreFile(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests := []struct {
		name  string
		data  []byte
		isNot bool // reported as not SQLite
	}{
		{"Store", data, false},
		{"Truncated", data[:len(data)/2], false},
		{"Text", []byte("just some notes\n"), true},
		{"Zeros", make([]byte, 4096), true},
		{"MagicOnly", []byte("SQLite format 3\x00"), true},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name+".azs")
		writeFile(t, path, tt.data)
		err := checkHeader(path)
		var fe *FormatError
		if got := errors.As(err, &fe); got != tt.isNot || (err != nil && !got) {
			t.Errorf("checkHeader(%s) = %v, want a *FormatError %v", tt.name, err, tt.isNot)
		}
	}
}
