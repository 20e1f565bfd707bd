package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// fullEvents are a Bash result and a Write call that compaction shortens,
// a short Read result it keeps as it is, and a Bash result it only trims
// the final newline of (nothing worth keeping).
func fullEvents() []codec.Event {
	var out []string
	for i := range 12 {
		out = append(out, "line "+itoaTest(i)+" handleSubmitFullOnly")
	}
	path := "/w/a.go"
	write, _ := json.Marshal(map[string]string{"file_path": path, "content": "package a\n\nfunc writeOnlyWord() {}\n"})
	return []codec.Event{
		codec.UserMessage("run it"),
		codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"make"}`)),
		codec.ToolResult("t1", "Bash", nil, strings.Join(out, "\n"), false),
		codec.ToolCall("t2", "Write", &path, write),
		codec.ToolResult("t3", "Read", &path, "short", false),
		codec.ToolResult("t4", "Bash", nil, "one\ntwo\n", false),
	}
}

func itoaTest(i int) string { return string(rune('a'+i%26)) + strings.Repeat("x", i) }

// rawEvents returns every event row as kind|char_len|data.
func rawEventRows(t *testing.T, path string) string {
	t.Helper()
	return rawQueryString(t, path, "SELECT group_concat(kind || '|' || char_len || '|' || hex(data), ',') FROM (SELECT * FROM events ORDER BY id)")
}

// TestFullText: the full text of what compaction shortens is kept beside
// the event, while the event rows are byte for byte what they are without
// it (so char_len, the meter, the context and AZUREAL see no change);
// FullText().SetKeep(false) keeps none and creates no table.
func TestFullText(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "a")
	if _, err := s.Events().Append(ctx, sess.ID, fullEvents()); err != nil {
		t.Fatal(err)
	}
	full, err := s.FullText().Of(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != 2 || !strings.Contains(full[3].Text, "line a handleSubmitFullOnly") || full[3].Field != FullContent ||
		full[4].Field != FullWriteContent || !strings.Contains(full[4].Text, "writeOnlyWord") {
		t.Fatalf("full texts %+v", full)
	}
	evs, err := s.Events().All(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(evs[2].Event.Content, "line a ") || strings.Contains(string(evs[3].Event.Input), "writeOnlyWord") {
		t.Errorf("the stored events are not shortened: %q, %s", evs[2].Event.Content, evs[3].Event.Input)
	}
	if f, ok, err := s.FullText().At(ctx, sess.ID, 3); err != nil || !ok || f.Text != full[3].Text {
		t.Errorf("FullText().At = %+v, %v, %v", f, ok, err)
	}

	off := mustOpen(t)
	off.FullText().SetKeep(false)
	o := mustCreateSession(t, off, "main", "a")
	if _, err := off.Events().Append(ctx, o.ID, fullEvents()); err != nil {
		t.Fatal(err)
	}
	if got := rawQueryString(t, off.Path(), "SELECT COUNT(*) FROM sqlite_master WHERE name = 'lazuli_full_text'"); got != "0" {
		t.Errorf("with full text off the table was created")
	}
	if a, b := rawEventRows(t, s.Path()), rawEventRows(t, off.Path()); a != b {
		t.Errorf("keeping full text changed the event rows:\n%s\n%s", a, b)
	}
	rep, err := s.Check(ctx)
	if err != nil || !rep.OK() || rep.FullText == nil || rep.FullText.Rows != 2 || rep.FullText.Bytes == 0 {
		t.Fatalf("Check() = %+v %+v, %v", rep.FullText, rep.Findings, err)
	}
	if !hasFinding(rep, "full_text", SeverityInfo) {
		t.Errorf("Check does not report the table: %+v", rep.Findings)
	}
	for _, f := range rep.Findings {
		if f.Severity != SeverityInfo {
			t.Errorf("Check warns about the table: %+v", f)
		}
	}

	t.Run("Transfer", func(t *testing.T) {
		dst := mustOpen(t)
		if _, err := dst.Transfer().Merge(ctx, s); err != nil {
			t.Fatal(err)
		}
		if got, err := dst.FullText().Of(ctx, 1); err != nil || len(got) != 2 || got[3].Text != full[3].Text {
			t.Errorf("merged: %d full texts, %v", len(got), err)
		}
		out := filepath.Join(t.TempDir(), "x.azs")
		if err := s.Transfer().Export(ctx, []int64{sess.ID}, out); err != nil {
			t.Fatal(err)
		}
		exp := mustOpenPath(t, out)
		if got, err := exp.FullText().Of(ctx, 1); err != nil || len(got) != 2 || got[4].Text != full[4].Text {
			t.Errorf("exported: %d full texts, %v", len(got), err)
		}
	})
}

// TestFullTextUnderAZUREAL: AZUREAL's delete (foreign keys on) takes a
// session's full text with it; a delete with foreign keys off leaves rows
// that are ignored (a reused id does not see them), reported by Check as
// a warning, and cleared by the next write of full text under that id.
func TestFullTextUnderAZUREAL(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	for _, name := range []string{"a", "b"} {
		sess := mustCreateSession(t, s, "main", name)
		if _, err := s.Events().Append(ctx, sess.ID, fullEvents()); err != nil {
			t.Fatal(err)
		}
	}
	path := s.Path()
	s.Close()
	rawExec(t, path, "PRAGMA foreign_keys = ON", "DELETE FROM sessions WHERE id = 1", "VACUUM",
		"PRAGMA foreign_keys = OFF", "DELETE FROM events WHERE session_id = 2", "DELETE FROM sessions WHERE id = 2",
		"INSERT INTO sessions(id, name, worktree, created) VALUES (2, 'reused', 'main', '2001-01-01 00:00:00')")
	if got := rawQueryString(t, path, "SELECT group_concat(session_id) FROM lazuli_full_text"); got != "2,2" {
		t.Errorf("rows left: %q, want only session 2's (deleted with foreign keys off)", got)
	}
	s = mustOpenPath(t, path)
	if got, err := s.FullText().Of(ctx, 2); err != nil || len(got) != 0 {
		t.Errorf("the reused id sees %d full texts, %v", len(got), err)
	}
	rep, err := s.Check(ctx)
	if err != nil || !rep.OK() || !hasFinding(rep, "full_text_orphans", SeverityWarning) {
		t.Errorf("Check() = %+v, %v", rep.Findings, err)
	}
	if _, err := s.Events().Append(ctx, 2, fullEvents()); err != nil {
		t.Fatal(err)
	}
	if got, err := s.FullText().Of(ctx, 2); err != nil || len(got) != 2 {
		t.Errorf("after a write into the reused id: %d full texts, %v", len(got), err)
	}
	if rep, err := s.Check(ctx); err != nil || !rep.OK() || hasFinding(rep, "full_text_orphans", SeverityWarning) {
		t.Errorf("Check() after = %+v, %v", rep.Findings, err)
	}
}
