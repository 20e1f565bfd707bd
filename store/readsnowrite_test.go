package store

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/interrupted"
)

// walCopy returns a store in WAL mode whose last commit is only in its
// WAL file, not checkpointed into the store: as a third-party writer
// killed before its last connection closed leaves them.
func walCopy(t *testing.T) string {
	t.Helper()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, codec.UserMessage("kept"))
	s.Close()
	if err := interrupted.WAL(s.Path()); err != nil {
		t.Fatal(err)
	}
	return s.Path()
}

// readAll runs every read method of s, with more arguments than
// readEverything; it fails the test on an error and returns the sessions
// listed.
func readAll(t *testing.T, s *Store) []Session {
	t.Helper()
	ctx := context.Background()
	sessions, err := s.Sessions().List(ctx, "")
	if err != nil {
		t.Fatalf("ListSessions: %v", err)
	}
	if _, _, err := s.Sessions().ListQuick(ctx, ""); err != nil {
		t.Fatalf("ListSessionsQuick: %v", err)
	}
	for _, sess := range sessions {
		id := sess.ID
		for name, read := range map[string]func() error{
			"GetSession":           func() error { _, err := s.Sessions().Get(ctx, id); return err },
			"Load":                 func() error { _, err := s.Events().Load(ctx, id, 0, 0); return err },
			"LoadRange":            func() error { _, err := s.Events().Load(ctx, id, 2, 3); return err },
			"BuildContext":         func() error { _, err := s.Compactions().Context(ctx, id); return err },
			"Compactions":          func() error { _, err := s.Compactions().Of(ctx, id); return err },
			"CharsSinceCompaction": func() error { _, err := s.Compactions().CharsSince(ctx, id); return err },
			"TailStart":            func() error { _, _, err := s.Events().TailStart(ctx, id, 0, 10); return err },
			"LastOfKind":           func() error { _, _, err := s.Events().LastOfKind(ctx, id, codec.KindUserMessage); return err },
		} {
			if err := read(); err != nil {
				t.Fatalf("%s(%d): %v", name, id, err)
			}
		}
	}
	for name, read := range map[string]func() error{
		"Dump":             func() error { _, err := s.Dump(ctx); return err },
		"Scan().Events":    func() error { return s.Scan().Events(ctx, ScanOptions{}, func([]ScannedEvent) error { return nil }) },
		"Scan().Sessions":  func() error { _, err := s.Scan().Sessions(ctx); return err },
		"SessionNames":     func() error { _, err := s.Sessions().Names(ctx); return err },
		"IDBounds":         func() error { _, err := s.Scan().IDBounds(ctx); return err },
		"Native().Imports": func() error { _, err := s.Native().Imports(ctx); return err },
		"Check":            func() error { _, err := s.Check(ctx); return err },
		"EventIDBelow":     func() error { _, _, err := s.Scan().EventIDBelow(ctx, 1<<40, 5); return err },
		"ScanCompaction":   func() error { return s.Scan().Compactions(ctx, 0, func([]Compaction) error { return nil }) },
	} {
		if err := read(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return sessions
}

// TestReadsLeaveInterruptedStoreAlone: reading a store whose last write was
// interrupted (a hot rollback journal beside it) or whose last commits are
// only in its WAL file changes nothing, with Open as with OpenReadOnly:
// the file keeps its bytes and modification time, the journal or WAL file
// stays, and the reads see what was committed. The first write then rolls
// back (or checkpoints) as any writer would, and later reads see it.
func TestReadsLeaveInterruptedStoreAlone(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name, sidecar string
		fixture       func(*testing.T) string
		sessions      int // committed
	}{
		{"HotJournal", "-journal", hotJournalCopy, 1},
		{"WAL", "-wal", walCopy, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.fixture(t)
			before, side := readFileState(t, path), readFileState(t, path+tt.sidecar)
			for name, open := range map[string]func(context.Context, string, ...Option) (*Store, error){
				"Open": Open, "OpenReadOnly": OpenReadOnly,
			} {
				s, err := open(ctx, path)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				sessions := readAll(t, s)
				if len(sessions) != tt.sessions || sessions[0].EventCount != 1 {
					t.Errorf("%s: listed %+v, want %d sessions, the first with 1 event", name, sessions, tt.sessions)
				}
				if evs := mustLoad(t, s, sessions[0].ID); len(evs) != 1 || evs[0].Event.Content != "kept" {
					t.Errorf("%s: loaded %+v", name, evs)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				after, afterSide := readFileState(t, path), readFileState(t, path+tt.sidecar)
				if !bytes.Equal(before.data, after.data) || !before.mtime.Equal(after.mtime) {
					t.Fatalf("%s: reading changed the store (mtime %v → %v)", name, before.mtime, after.mtime)
				}
				if !bytes.Equal(side.data, afterSide.data) {
					t.Fatalf("%s: reading changed %s", name, tt.sidecar)
				}
			}
			s := mustOpenPath(t, path)
			readAll(t, s)
			mustCreateSession(t, s, "main", "written")
			if fileExists(path + tt.sidecar) {
				t.Errorf("%s is still there after a write", tt.sidecar)
			}
			if got := readAll(t, s); len(got) != tt.sessions+1 {
				t.Errorf("after a write: %d sessions, want %d", len(got), tt.sessions+1)
			}
		})
	}
}

// TestReadFollowsInterruptionAfterOpen: a write interrupted after the
// store was opened (a process killed in the middle of one) does not make
// the next read fail or roll it back: it reads a rolled-back copy, and
// once another program has rolled the journal back, the file again.
func TestReadFollowsInterruptionAfterOpen(t *testing.T) {
	ctx := context.Background()
	hot := hotJournalCopy(t)
	s := mustOpen(t)
	a := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, a.ID, codec.UserMessage("one"), codec.UserMessage("two"))
	if got := readAll(t, s); len(got) != 1 {
		t.Fatalf("listed %d sessions", len(got))
	}
	// The file of another store, interrupted, in place of this one.
	for _, suffix := range []string{"-journal", ""} {
		data, err := os.ReadFile(hot + suffix)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, s.Path()+suffix, data)
	}
	before := readFileState(t, s.Path())
	reader := mustOpenPath(t, s.Path())
	for _, st := range []*Store{s, reader} {
		sessions := readAll(t, st)
		if len(sessions) != 1 || sessions[0].EventCount != 1 {
			t.Fatalf("after the interruption: %+v", sessions)
		}
		if evs := mustLoad(t, st, sessions[0].ID); len(evs) != 1 || evs[0].Event.Content != "kept" {
			t.Fatalf("after the interruption: loaded %+v", evs)
		}
	}
	if after := readFileState(t, s.Path()); !bytes.Equal(before.data, after.data) || !fileExists(s.Path()+"-journal") {
		t.Fatal("reading rolled the interrupted write back")
	}
	rawExec(t, s.Path(), "INSERT INTO sessions(worktree, name) VALUES ('main', 'other program')")
	if fileExists(s.Path() + "-journal") {
		t.Fatal("the other program's write left the journal")
	}
	if got, err := reader.Sessions().List(ctx, ""); err != nil || len(got) != 2 {
		t.Fatalf("after the other program's write: %+v, %v", got, err)
	}
}

// walFixture returns a store in WAL mode, left as another program leaves
// it, whose session named "in the WAL" only the WAL file holds (except
// for "clean", where a checkpoint put it in the file): "no index" is a
// WAL file without its -shm index, "index" has both (a program killed
// while it had the store open), "clean" has neither (a program that closed
// the store in WAL mode), and "live" is a connection of this process still
// holding them open, with nothing checkpointed.
func walFixture(t *testing.T, kind string) string {
	t.Helper()
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, codec.UserMessage("kept"))
	path := s.Path()
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0",
		"INSERT INTO sessions(worktree, name) VALUES ('main', 'in the WAL')"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if kind == "live" {
		t.Cleanup(func() { conn.Close(); db.Close() })
		return path
	}
	saved := map[string][]byte{}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if saved[suffix], err = os.ReadFile(path + suffix); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close()
	db.Close() // the last connection: checkpoints, removes -wal and -shm
	if kind == "clean" {
		return path
	}
	keep := map[string][]string{"no index": {"", "-wal"}, "index": {"", "-wal", "-shm"}}[kind]
	for _, suffix := range keep {
		writeFile(t, path+suffix, saved[suffix])
	}
	return path
}

// folderState is every file in a folder: its bytes and modification time.
func folderState(t *testing.T, dir string) map[string]fileState {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]fileState{}
	for _, e := range entries {
		out[e.Name()] = readFileState(t, filepath.Join(dir, e.Name()))
	}
	return out
}

// sameFolder fails the test when a file of the folder was added, removed
// or changed since before.
func sameFolder(t *testing.T, what string, before, after map[string]fileState) {
	t.Helper()
	for name, b := range before {
		a, ok := after[name]
		switch {
		case !ok:
			t.Errorf("%s removed %s", what, name)
		case !bytes.Equal(a.data, b.data) || !a.mtime.Equal(b.mtime):
			t.Errorf("%s changed %s", what, name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			t.Errorf("%s created %s", what, name)
		}
	}
}

// TestReadsLeaveWALStoreAlone: a store in WAL mode, as another program
// leaves it (a WAL file with or without its -shm index, neither, or that
// program still holding them open), is read without a byte of any file in
// its folder changing, nor a file appearing (SQLite creates or writes the
// -shm index, and an empty -wal file, for any connection that reads it,
// a read-only one included): with Open, OpenReadOnly and CheckFile. The
// reads see what was committed, the WAL included. Lazuli's first write
// then leaves WAL mode.
func TestReadsLeaveWALStoreAlone(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"no index", "index", "clean", "live"} {
		t.Run(kind, func(t *testing.T) {
			path := walFixture(t, kind)
			dir := filepath.Dir(path)
			before := folderState(t, dir)
			for name, open := range map[string]func(context.Context, string, ...Option) (*Store, error){
				"Open": Open, "OpenReadOnly": OpenReadOnly,
			} {
				s, err := open(ctx, path)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if sessions := readAll(t, s); len(sessions) != 2 {
					t.Errorf("%s: listed %+v, want 2 sessions", name, sessions)
				}
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				sameFolder(t, name, before, folderState(t, dir))
			}
			r, err := CheckFile(ctx, path)
			if err != nil || !r.OK() || r.Sessions != 2 || !hasFinding(r, "wal_mode", SeverityInfo) {
				t.Errorf("CheckFile(%q) = %+v, %v; want OK, 2 sessions, wal_mode", path, r, err)
			}
			sameFolder(t, "CheckFile", before, folderState(t, dir))
			if kind == "live" {
				return // the other program still has it open
			}
			s := mustOpenPath(t, path)
			mustCreateSession(t, s, "main", "written")
			for _, suffix := range []string{"-wal", "-shm"} {
				if fileExists(path + suffix) {
					t.Errorf("%s is still there after a write", suffix)
				}
			}
			if got := readAll(t, s); len(got) != 3 {
				t.Errorf("after a write: %d sessions, want 3", len(got))
			}
		})
	}
}

// TestReadFollowsWALAfterOpen: a store that another program switches to
// WAL mode after it was opened (and read) is then read through a copy too:
// its folder stays as that program leaves it, and the reads see its commit.
func TestReadFollowsWALAfterOpen(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	a := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, a.ID, codec.UserMessage("one"))
	if got := readAll(t, s); len(got) != 1 {
		t.Fatalf("listed %d sessions", len(got))
	}
	db, err := sql.Open("sqlite", "file:"+s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0",
		"INSERT INTO sessions(worktree, name) VALUES ('main', 'in the WAL')"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Dir(s.Path())
	before := folderState(t, dir)
	if got := readAll(t, s); len(got) != 2 {
		t.Errorf("after the switch to WAL: %d sessions, want 2", len(got))
	}
	sameFolder(t, "reading", before, folderState(t, dir))
}
