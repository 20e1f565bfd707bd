package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
)

func TestOpenMissingFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, ".azureal", "sessions.azs")
	s := mustOpenPath(t, path)
	if s.Exists() || s.ReadOnly() || s.Path() != path {
		t.Fatalf("Exists() = %v, ReadOnly() = %v, Path() = %q", s.Exists(), s.ReadOnly(), s.Path())
	}
	if list, err := s.Sessions().List(ctx, ""); err != nil || len(list) != 0 {
		t.Errorf("ListSessions() = %v, %v, want none", list, err)
	}
	if evs, err := s.Events().All(ctx, 1); err != nil || len(evs) != 0 {
		t.Errorf("LoadEvents() = %v, %v, want none", evs, err)
	}
	if _, err := s.Sessions().Get(ctx, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetSession() error = %v, want ErrNotFound", err)
	}
	if p, err := s.Compactions().Context(ctx, 1); p != nil || err != nil {
		t.Errorf("BuildContext() = %v, %v, want nil", p, err)
	}
	if d, err := s.Dump(ctx); err != nil || d.SchemaVersion != nil || len(d.Sessions) != 0 {
		t.Errorf("Dump() = %+v, %v, want empty", d, err)
	}
	writes := map[string]func() error{
		"AppendEvents":      func() error { _, err := s.Events().Append(ctx, 1, []codec.Event{codec.UserMessage("x")}); return err },
		"RenameSession":     func() error { return s.Sessions().Rename(ctx, 1, "x") },
		"DeleteSession":     func() error { return s.Sessions().Delete(ctx, 1) },
		"SetLastClaudeUUID": func() error { return s.Sessions().SetLastClaudeUUID(ctx, 1, "u") },
		"StoreCompaction":   func() error { _, err := s.Compactions().Add(ctx, 1, 1, "s"); return err },
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s on a missing store: error = %v, want ErrNotFound", name, err)
		}
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reads and failed writes created %s (stat error %v)", filepath.Dir(path), err)
	}
	sess := mustCreateSession(t, s, "main", "")
	if !s.Exists() || sess.ID != 1 {
		t.Fatalf("after CreateSession: Exists() = %v, id = %d", s.Exists(), sess.ID)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("CreateSession did not create the file: %v", err)
	}
}

// fileState is what must not change when a store is only read.
type fileState struct {
	data  []byte
	mtime time.Time
}

func readFileState(t *testing.T, path string) fileState {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileState{data, st.ModTime()}
}

// readEverything runs every read method on s.
func readEverything(t *testing.T, s *Store) {
	t.Helper()
	ctx := context.Background()
	list, err := s.Sessions().List(ctx, "")
	if err != nil {
		t.Fatalf("ListSessions() = %v", err)
	}
	for _, sess := range list {
		mustLoad(t, s, sess.ID)
		if _, err := s.Compactions().Context(ctx, sess.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Sessions().Get(ctx, sess.ID); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Dump(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Check(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestOpenLeavesFixturesUnchanged(t *testing.T) {
	files := append(fixtureStores(t, "azs"), fixtureStores(t, "reference")...)
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, src := range files {
		t.Run(filepath.Base(src), func(t *testing.T) {
			t.Parallel()
			path := copyToWorktree(t, src)
			if err := os.Chtimes(path, old, old); err != nil {
				t.Fatal(err)
			}
			before := readFileState(t, path)
			for _, open := range []func(context.Context, string, ...Option) (*Store, error){Open, OpenReadOnly} {
				s, err := open(context.Background(), path)
				if err != nil {
					t.Fatalf("open: %v", err)
				}
				readEverything(t, s)
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
			after := readFileState(t, path)
			if !bytes.Equal(before.data, after.data) || !before.mtime.Equal(after.mtime) {
				t.Errorf("reading changed the file (mtime %v → %v)", before.mtime, after.mtime)
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("reading left files behind: %v", entries)
			}
		})
	}
}

func TestReadingLegacyV2KeepsItV2(t *testing.T) {
	path := copyToWorktree(t, filepath.Join(fixtureDir(t, "azs"), "iv_legacy_v2.azs"))
	s := mustOpenPath(t, path)
	readEverything(t, s)
	if got := rawQueryString(t, path, "SELECT value FROM meta WHERE key = 'schema_version'"); got != "2" {
		t.Errorf("schema_version after reading = %q, want 2", got)
	}
	mustCreateSession(t, s, "main", "")
	if got := rawQueryString(t, path, "SELECT value FROM meta WHERE key = 'schema_version'"); got != "3" {
		t.Errorf("schema_version after the first write = %q, want 3", got)
	}
	cols := rawQueryString(t, path, "SELECT group_concat(name, ',') FROM pragma_table_info('sessions')")
	if cols != "id,name,worktree,created,completed,duration_ms,cost_usd,last_claude_uuid" {
		t.Errorf("sessions columns after migration = %s", cols)
	}
}

// rawQueryString runs a one-value query on path with a separate connection.
func rawQueryString(t *testing.T, path, query string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v sql.NullString
	if err := db.QueryRow(query).Scan(&v); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return v.String
}

// rawExec runs statements on path with a separate read-write connection.
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background()) // one connection: PRAGMAs hold for the statements after them
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range stmts {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// newStoreFile writes a store with one session and one event at a temp
// path, closes it and returns the path.
func newStoreFile(t *testing.T) string {
	t.Helper()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, codec.UserMessage("hello"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return s.Path()
}

func TestOpenBadFiles(t *testing.T) {
	tests := []struct {
		name   string
		make   func(t *testing.T, path string)
		reason string // "" means Open succeeds
	}{
		{"TextFile", func(t *testing.T, path string) { writeFile(t, path, []byte("just some notes\n")) }, "not an SQLite database"},
		{"Truncated", func(t *testing.T, path string) {
			data, _ := os.ReadFile(newStoreFile(t))
			writeFile(t, path, data[:len(data)/2])
		}, "damaged"},
		{"OtherApp", func(t *testing.T, path string) {
			rawExec(t, path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)", "INSERT INTO notes(body) VALUES ('x')")
		}, "no sessions table"},
		{"MissingColumn", func(t *testing.T, path string) {
			rawExec(t, path, "CREATE TABLE sessions (id INTEGER PRIMARY KEY, name TEXT, worktree TEXT, created TEXT)",
				"CREATE TABLE events (id INTEGER PRIMARY KEY, session_id INTEGER, seq INTEGER, data BLOB)")
		}, "events has no column kind"},
		{"Directory", func(t *testing.T, path string) { os.MkdirAll(path, 0o755) }, "is a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sessions.azs")
			tt.make(t, path)
			_, err := Open(context.Background(), path)
			var fe *FormatError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), tt.reason) || fe.Path != path {
				t.Fatalf("Open() error = %v, want a *FormatError about %q", err, tt.reason)
			}
			if _, err := OpenReadOnly(context.Background(), path); !errors.As(err, &fe) {
				t.Errorf("OpenReadOnly() error = %v, want a *FormatError", err)
			}
		})
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOpenEmptyFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ".azureal", "sessions.azs")
	os.MkdirAll(filepath.Dir(path), 0o755)
	writeFile(t, path, nil)
	s := mustOpenPath(t, path)
	if list, err := s.Sessions().List(ctx, ""); err != nil || len(list) != 0 || s.Exists() {
		t.Fatalf("ListSessions() = %v, %v; Exists() = %v; want an empty, not yet created store", list, err, s.Exists())
	}
	if st, _ := os.Stat(path); st.Size() != 0 {
		t.Fatalf("reading wrote %d bytes to the empty file", st.Size())
	}
	mustCreateSession(t, s, "main", "first")
	if got := rawQueryString(t, path, "SELECT name FROM sessions"); got != "first" {
		t.Errorf("session name = %q", got)
	}
}

func TestNewerSchemaIsReadOnly(t *testing.T) {
	ctx := context.Background()
	path := newStoreFile(t)
	rawExec(t, path, "UPDATE meta SET value = '4' WHERE key = 'schema_version'")
	before := readFileState(t, path)
	s := mustOpenPath(t, path)
	if evs := mustLoad(t, s, 1); len(evs) != 1 {
		t.Fatalf("LoadEvents() = %d events, want 1", len(evs))
	}
	_, err := s.Sessions().Create(ctx, "main", "")
	var fe *FormatError
	if !errors.Is(err, ErrReadOnly) || !errors.As(err, &fe) || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("CreateSession() error = %v, want ErrReadOnly and a *FormatError about the newer schema", err)
	}
	if _, err := s.Events().Append(ctx, 1, []codec.Event{codec.UserMessage("x")}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("AppendEvents() error = %v, want ErrReadOnly", err)
	}
	if after := readFileState(t, path); !bytes.Equal(before.data, after.data) {
		t.Error("a refused write changed the file")
	}
	if d, _ := s.Dump(ctx); d.SchemaVersion == nil || *d.SchemaVersion != "4" {
		t.Errorf("Dump().SchemaVersion = %v, want 4", d.SchemaVersion)
	}
}

func TestLegacyV1ReadsLeniently(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sessions.azs")
	rawExec(t, path,
		"CREATE TABLE sessions (id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT '', worktree TEXT NOT NULL DEFAULT '', created TEXT NOT NULL DEFAULT (datetime('now')))",
		schemaStatements[1], schemaStatements[3], schemaStatements[5],
		"INSERT INTO meta VALUES ('schema_version', '1')",
		"INSERT INTO sessions(worktree) VALUES ('main')",
		`INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (1, 1, 'UserMessage', '{"UserMessage":{"content":"v1 text"}}', 7)`)
	s := mustOpenPath(t, path)
	list, err := s.Sessions().List(ctx, "")
	if err != nil || len(list) != 1 || list[0].Completed != nil || list[0].LastClaudeUUID != "" || list[0].EventCount != 1 {
		t.Fatalf("ListSessions() = %+v, %v", list, err)
	}
	if evs := mustLoad(t, s, 1); len(evs) != 1 || evs[0].Event.Content != "v1 text" {
		t.Fatalf("LoadEvents() = %+v, want the plain-JSON event", evs)
	}
	if _, err := s.Sessions().Create(ctx, "main", ""); !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "v1") {
		t.Errorf("CreateSession() error = %v, want ErrReadOnly for a v1 store", err)
	}
}

func TestFirstWriteFailureLeavesNothing(t *testing.T) {
	ctx := context.Background()
	t.Run("ParentIsAFile", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "worktree"), []byte("x"))
		s := mustOpenPath(t, filepath.Join(dir, "worktree", ".azureal", "sessions.azs"))
		if _, err := s.Sessions().Create(ctx, "main", ""); err == nil || !strings.Contains(err.Error(), "create store") {
			t.Fatalf("CreateSession() error = %v, want a create store error", err)
		}
	})
	t.Run("ReadOnlyDirectory", func(t *testing.T) {
		if os.Geteuid() == 0 {
			t.Skip("root ignores directory permissions")
		}
		dir := t.TempDir()
		os.Chmod(dir, 0o555)
		defer os.Chmod(dir, 0o755)
		s := mustOpenPath(t, filepath.Join(dir, ".azureal", "sessions.azs"))
		if _, err := s.Sessions().Create(ctx, "main", ""); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Fatalf("CreateSession() error = %v, want permission denied", err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 0 {
			t.Errorf("left behind: %v", entries)
		}
	})
	t.Run("JournalBlocked", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, ".azureal", "sessions.azs")
		os.MkdirAll(path+"-journal", 0o755) // SQLite cannot create its journal
		s := mustOpenPath(t, path)
		if _, err := s.Sessions().Create(ctx, "main", ""); err == nil {
			t.Fatal("CreateSession() succeeded without a journal")
		}
		if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a failed first write left %s behind", path)
		}
	})
}

func TestLockedStoreIsBusy(t *testing.T) {
	ctx := context.Background()
	path := newStoreFile(t)
	s := mustOpenPath(t, path, WithBusyTimeout(150*time.Millisecond))
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")
	ops := map[string]func() error{
		"ListSessions": func() error { _, err := s.Sessions().List(ctx, ""); return err },
		"LoadEvents":   func() error { _, err := s.Events().All(ctx, 1); return err },
		"AppendEvents": func() error { _, err := s.Events().Append(ctx, 1, []codec.Event{codec.UserMessage("x")}); return err },
	}
	for name, op := range ops {
		start := time.Now()
		err := op()
		if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), "store is busy") {
			t.Errorf("%s() error = %v, want ErrBusy", name, err)
		}
		if waited := time.Since(start); waited < 100*time.Millisecond {
			t.Errorf("%s() gave up after %v, before the busy timeout", name, waited)
		}
	}
	if _, err := Open(ctx, path, WithBusyTimeout(50*time.Millisecond)); !errors.Is(err, ErrBusy) {
		t.Errorf("Open() of a locked store: error = %v, want ErrBusy", err)
	}
}

func TestOpenReadOnly(t *testing.T) {
	ctx := context.Background()
	path := newStoreFile(t)
	s, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.ReadOnly() || len(mustLoad(t, s, 1)) != 1 {
		t.Fatal("read-only store does not read")
	}
	writes := map[string]func() error{
		"CreateSession":   func() error { _, err := s.Sessions().Create(ctx, "main", ""); return err },
		"AppendEvents":    func() error { _, err := s.Events().Append(ctx, 1, []codec.Event{codec.UserMessage("x")}); return err },
		"RenameSession":   func() error { return s.Sessions().Rename(ctx, 1, "x") },
		"DeleteSession":   func() error { return s.Sessions().Delete(ctx, 1) },
		"StoreCompaction": func() error { _, err := s.Compactions().Add(ctx, 1, 1, "x"); return err },
	}
	for name, write := range writes {
		if err := write(); !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s() error = %v, want ErrReadOnly", name, err)
		}
	}
	db, _, _ := s.reader(ctx)
	for _, q := range []string{"PRAGMA query_only = 0", "INSERT INTO sessions(worktree) VALUES ('x')",
		"CREATE TEMP TABLE t (x)", "ATTACH DATABASE ':memory:' AS m", "PRAGMA writable_schema = 1"} {
		if _, err := db.ExecContext(ctx, q); err == nil {
			t.Errorf("%s succeeded on a read-only connection", q)
		}
	}
	if _, err := OpenReadOnly(ctx, filepath.Join(t.TempDir(), "missing.azs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenReadOnly(missing) error = %v, want ErrNotExist", err)
	}
}

func TestConnectionSettings(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t, WithBusyTimeout(1234*time.Millisecond))
	mustCreateSession(t, s, "main", "")
	db, _, _ := s.reader(ctx)
	var conns []*sql.Conn
	for range maxOpenConns {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	w, err := s.wdb.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i, c := range append(conns, w) {
		readOnly, busy := "1", "4936" // readers wait readerWait busy timeouts
		if c == w {
			readOnly, busy = "0", "1234"
		}
		for pragma, want := range map[string]string{"journal_mode": "delete", "foreign_keys": "1",
			"synchronous": "1", "busy_timeout": busy, "query_only": readOnly} {
			var got string
			if err := c.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil || got != want {
				t.Errorf("conn %d: PRAGMA %s = %q, %v, want %q", i, pragma, got, err, want)
			}
		}
	}
	if _, err := os.Stat(s.Path() + "-wal"); err == nil {
		t.Error("a WAL file exists")
	}
}
