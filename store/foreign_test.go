package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// foreignStore writes two sessions with events, then runs stmts on the
// file with a plain connection, and returns its path.
func foreignStore(t *testing.T, stmts ...string) string {
	t.Helper()
	s := mustOpen(t)
	for range 2 {
		sess := mustCreateSession(t, s, "main", "")
		mustAppend(t, s, sess.ID, codec.UserMessage("hello"), codec.AssistantText("hi"))
	}
	path := s.Path()
	s.Close()
	execRaw(t, path, stmts...)
	return path
}

func execRaw(t *testing.T, path string, stmts ...string) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range stmts {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// checkSeverities maps each finding's code to its severity.
func checkSeverities(t *testing.T, path string) (map[string]Severity, Report) {
	t.Helper()
	rep, err := CheckFile(context.Background(), path)
	if err != nil {
		t.Fatalf("CheckFile = %v", err)
	}
	codes := map[string]Severity{}
	for _, f := range rep.Findings {
		codes[f.Code] = f.Severity
	}
	return codes, rep
}

const evilTrigger = "CREATE TRIGGER evil AFTER INSERT ON sessions BEGIN DELETE FROM events; END"

// TestForeignTriggerBlocksWrites reproduces issue 15 item 4: a trigger
// that deletes every event when a session is inserted. check reports it as
// damage; reading works; every write is refused with ErrReadOnly and
// leaves the file byte-identical.
func TestForeignTriggerBlocksWrites(t *testing.T) {
	ctx := context.Background()
	path := foreignStore(t, evilTrigger)
	if codes, rep := checkSeverities(t, path); rep.OK() || codes["foreign_trigger"] != SeverityError {
		t.Errorf("CheckFile: OK %v, findings %v; want a foreign_trigger error", rep.OK(), codes)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := mustOpenPath(t, path)
	if list, err := s.Sessions().List(ctx, ""); err != nil || len(list) != 2 {
		t.Fatalf("ListSessions = %d, %v; reading must work", len(list), err)
	}
	var fe *FormatError
	if _, err := s.Sessions().Create(ctx, "main", "x"); !errors.Is(err, ErrReadOnly) || !errors.As(err, &fe) {
		t.Errorf("CreateSession = %v, want ErrReadOnly with a FormatError", err)
	}
	if _, err := s.Events().Append(ctx, 1, []codec.Event{codec.UserMessage("more")}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("AppendEvents = %v, want ErrReadOnly", err)
	}
	s.Close()
	if after, err := os.ReadFile(path); err != nil || !bytes.Equal(before, after) {
		t.Errorf("the file changed (%v)", err)
	}
}

// TestTriggerAddedWhileOpen: a Store that has written once refuses the
// next write after another program added a trigger, and nothing is lost.
func TestTriggerAddedWhileOpen(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, codec.UserMessage("hello"))
	execRaw(t, s.Path(), evilTrigger)
	if _, err := s.Sessions().Create(ctx, "main", ""); !errors.Is(err, ErrReadOnly) {
		t.Errorf("CreateSession after the trigger = %v, want ErrReadOnly", err)
	}
	if evs, err := s.Events().All(ctx, sess.ID); err != nil || len(evs) != 1 {
		t.Errorf("LoadEvents = %d events, %v; want the 1 event kept", len(evs), err)
	}
}

// TestTableReplacedByView: a store whose events (or sessions) is a view,
// or a virtual table, is not read as a store and never written; check
// reports it without reading its rows.
func TestTableReplacedByView(t *testing.T) {
	ctx := context.Background()
	for name, stmts := range map[string][]string{
		"events view":   {"ALTER TABLE events RENAME TO events_real", "CREATE VIEW events AS SELECT * FROM events_real"},
		"sessions view": {"ALTER TABLE sessions RENAME TO s2", "CREATE VIEW sessions AS SELECT * FROM s2"},
		"meta virtual":  {"DROP TABLE meta", "CREATE VIRTUAL TABLE meta USING fts5(key, value)"},
	} {
		t.Run(name, func(t *testing.T) {
			path := foreignStore(t, stmts...)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			codes, rep := checkSeverities(t, path)
			if rep.OK() || codes["table_replaced"] != SeverityError || rep.Events != 0 {
				t.Errorf("CheckFile: OK %v, %d events read, findings %v; want table_replaced and no rows read", rep.OK(), rep.Events, codes)
			}
			var fe *FormatError
			for _, open := range []func(context.Context, string, ...Option) (*Store, error){Open, OpenReadOnly} {
				if s, err := open(ctx, path); !errors.As(err, &fe) {
					if s != nil {
						s.Close()
					}
					t.Errorf("open = %v, want a FormatError", err)
				}
			}
			if after, err := os.ReadFile(path); err != nil || !bytes.Equal(before, after) {
				t.Errorf("the file changed (%v)", err)
			}
		})
	}
}

// TestForeignObjectsReported: other tables, views and indexes are warned
// about and do not stop writes; Lazuli's own native-import table and
// SQLite's internal tables are not foreign.
func TestForeignObjectsReported(t *testing.T) {
	path := foreignStore(t, "CREATE INDEX extra ON events(kind)", "CREATE TABLE notes(x)", "CREATE VIEW v AS SELECT 1",
		nativeSchema[0], nativeSchema[1], "ANALYZE")
	codes, rep := checkSeverities(t, path)
	want := map[string]Severity{"foreign_index": SeverityWarning, "foreign_table": SeverityWarning, "foreign_view": SeverityWarning}
	for code, sev := range want {
		if codes[code] != sev {
			t.Errorf("finding %s = %q, want %q", code, codes[code], sev)
		}
	}
	for _, f := range rep.Findings {
		if f.Code == "foreign_table" && f.Message != "table notes is not part of AZUREAL's schema" {
			t.Errorf("unexpected foreign table finding: %s", f.Message)
		}
	}
	if !rep.OK() {
		t.Errorf("CheckFile not OK: %+v", rep.Findings)
	}
	s := mustOpenPath(t, path)
	if _, err := s.Sessions().Create(context.Background(), "main", "ok"); err != nil {
		t.Errorf("CreateSession with harmless foreign objects = %v", err)
	}
}
