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

	"github.com/lazuli-app/lazuli/codec"
)

// hotJournalCopy returns a copy of a store taken in the middle of a write
// whose changed pages had already spilled into the file: a store and its
// hot journal, as a process killed there leaves them.
func hotJournalCopy(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, codec.UserMessage("kept"))
	path := s.Path()
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=cache_size(2)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"PRAGMA journal_mode = DELETE", "BEGIN IMMEDIATE"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 200; i++ { // more pages than the cache holds: they spill into the file
		if _, err := conn.ExecContext(ctx, "INSERT INTO sessions(name) VALUES (?)", strings.Repeat("x", 4000)); err != nil {
			t.Fatal(err)
		}
	}
	dst := filepath.Join(t.TempDir(), "sessions.azs")
	for _, suffix := range []string{"", "-journal"} {
		data, err := os.ReadFile(path + suffix)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst+suffix, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestCheckFileInterruptedWrite: a store whose last write was interrupted
// checks as the rollback will leave it, and the file is not touched.
func TestCheckFileInterruptedWrite(t *testing.T) {
	path := hotJournalCopy(t)
	before, _ := os.ReadFile(path)
	journal, _ := os.ReadFile(path + "-journal")
	rep, err := CheckFile(context.Background(), path)
	if err != nil {
		t.Fatalf("CheckFile() = %v", err)
	}
	if !rep.OK() || rep.Sessions != 1 || rep.Events != 1 || rep.Path != path || !hasFinding(rep, "interrupted_write", SeverityInfo) {
		t.Errorf("CheckFile() = %+v", rep)
	}
	after, _ := os.ReadFile(path)
	afterJournal, _ := os.ReadFile(path + "-journal")
	if !bytes.Equal(before, after) || !bytes.Equal(journal, afterJournal) {
		t.Error("checking rolled the store back in place")
	}
}

// TestOpenReadOnlyInterruptedWrite: a store whose last write was
// interrupted reads as the rollback will leave it, through a copy; the
// file and its journal are not touched and the copy goes with Close.
func TestOpenReadOnlyInterruptedWrite(t *testing.T) {
	ctx := context.Background()
	path := hotJournalCopy(t)
	before, _ := os.ReadFile(path)
	journal, _ := os.ReadFile(path + "-journal")
	s, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatalf("OpenReadOnly() = %v", err)
	}
	sessions, err := s.Sessions().List(ctx, "")
	if err != nil || len(sessions) != 1 || sessions[0].EventCount != 1 {
		t.Fatalf("ListSessions() = %+v, %v", sessions, err)
	}
	events, err := s.Events().All(ctx, sessions[0].ID)
	if err != nil || len(events) != 1 || events[0].Event.Content != "kept" {
		t.Fatalf("LoadEvents() = %+v, %v", events, err)
	}
	if _, err := s.Sessions().Create(ctx, "main", ""); !errors.Is(err, ErrReadOnly) {
		t.Errorf("CreateSession() = %v, want ErrReadOnly", err)
	}
	dir := s.snapshot.dir
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the copy in %s outlived Close: %v", dir, err)
	}
	after, _ := os.ReadFile(path)
	afterJournal, _ := os.ReadFile(path + "-journal")
	if !bytes.Equal(before, after) || !bytes.Equal(journal, afterJournal) {
		t.Error("reading rolled the store back in place")
	}
}
