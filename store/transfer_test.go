package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// rawRows returns a session's (seq, kind, data, char_len) rows as stored.
func rawRows(tb testing.TB, s *Store, id int64) [][4]any {
	tb.Helper()
	db, _, err := s.reader(context.Background())
	if err != nil {
		tb.Fatal(err)
	}
	rows, err := db.Query("SELECT seq, kind, data, char_len FROM events WHERE session_id = ? ORDER BY seq", id)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var out [][4]any
	for rows.Next() {
		var seq, charLen int64
		var kind string
		var data []byte
		if err := rows.Scan(&seq, &kind, &data, &charLen); err != nil {
			tb.Fatal(err)
		}
		out = append(out, [4]any{seq, kind, string(data), charLen})
	}
	return out
}

func sampleStore(tb testing.TB) (*Store, Session) {
	tb.Helper()
	src := mustOpen(tb)
	sess, _, err := src.Sessions().CreateWithEvents(context.Background(), "feature/x", "sample", []codec.Event{
		codec.Init("/w", "opus"), codec.UserMessage("hello"), codec.AssistantText("hi <b>"),
		codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"ls"}`)),
		codec.ToolResult("t1", "Bash", nil, "a\nb", false), codec.Complete(true, 1500, 0.25),
	})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := src.Compactions().Add(context.Background(), sess.ID, 2, "summary"); err != nil {
		tb.Fatal(err)
	}
	if sess, err = src.Sessions().Get(context.Background(), sess.ID); err != nil {
		tb.Fatal(err)
	}
	return src, sess
}

func TestCreateSessionWithEvents(t *testing.T) {
	st, sess := sampleStore(t)
	if sess.Name != "sample" || sess.Worktree != "feature/x" || sess.EventCount != 6 || sess.Completed == nil || !*sess.Completed {
		t.Errorf("session = %+v", sess)
	}
	if got := mustLoad(t, st, sess.ID); len(got) != 6 || got[1].Event.Content != "hello" {
		t.Errorf("loaded %d events", len(got))
	}
}

func TestCreateSessionWithEventsIsAtomic(t *testing.T) {
	st := mustOpen(t)
	bad := codec.Event{Kind: "Bogus"}
	if _, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", "", []codec.Event{codec.UserMessage("a"), bad}); err == nil {
		t.Fatal("import with an unencodable event succeeded")
	}
	if got, err := st.Sessions().List(context.Background(), ""); err != nil || len(got) != 0 {
		t.Errorf("a failed import left sessions behind: %v, %v", got, err)
	}
}

func TestMergePreservesEverythingAndSkipsDuplicates(t *testing.T) {
	ctx := context.Background()
	src, sess := sampleStore(t)
	if err := src.Sessions().SetLastClaudeUUID(ctx, sess.ID, "uuid-on-other-machine"); err != nil {
		t.Fatal(err)
	}
	dst := mustOpen(t)
	mustCreateSession(t, dst, "main", "already here")
	rep, err := dst.Transfer().Merge(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Merged) != 1 || len(rep.Skipped) != 0 || rep.Merged[0].To != 2 {
		t.Fatalf("report = %+v", rep)
	}
	got, err := dst.Sessions().Get(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := sess
	want.ID, want.LastClaudeUUID, want.LastEventID = 2, "", got.LastEventID
	if got.Created != sess.Created || got.CharsSinceCompaction != sess.CharsSinceCompaction {
		t.Errorf("merged session = %+v, want %+v", got, want)
	}
	got.LastEventID = want.LastEventID
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged session = %+v\nwant %+v", got, want)
	}
	if !reflect.DeepEqual(rawRows(t, dst, 2), rawRows(t, src, sess.ID)) {
		t.Error("merged event rows differ from the source's byte for byte")
	}
	comps, _ := dst.Compactions().Of(ctx, 2)
	if len(comps) != 1 || comps[0].AfterSeq != 2 || comps[0].Summary != "summary" {
		t.Errorf("merged compactions = %+v", comps)
	}
	// A second merge finds the exact duplicate and adds nothing.
	rep, err = dst.Transfer().Merge(ctx, src)
	if err != nil || len(rep.Merged) != 0 || len(rep.Skipped) != 1 || rep.Skipped[0].To != 2 {
		t.Fatalf("second merge = %+v, %v", rep, err)
	}
	if list, _ := dst.Sessions().List(ctx, ""); len(list) != 2 {
		t.Errorf("after re-merge: %d sessions, want 2", len(list))
	}
	// A changed copy is no longer a duplicate.
	mustAppend(t, src, sess.ID, codec.UserMessage("more"))
	if dups, err := dst.Transfer().Duplicates(ctx, src); err != nil || len(dups) != 0 {
		t.Errorf("Duplicates after a change = %v, %v", dups, err)
	}
}

func TestMergeReadOnlySourceIsUntouched(t *testing.T) {
	ctx := context.Background()
	src, _ := sampleStore(t)
	path := src.Path()
	src.Close()
	before, _ := os.ReadFile(path)
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	dst := mustOpen(t)
	if _, err := dst.Transfer().Merge(ctx, ro); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("merging changed the source file")
	}
	if _, err := ro.Transfer().Merge(ctx, dst); err == nil {
		t.Error("merge into a read-only store succeeded")
	}
}

func TestExportSessions(t *testing.T) {
	ctx := context.Background()
	src, sess := sampleStore(t)
	mustCreateSession(t, src, "main", "not exported")
	out := filepath.Join(t.TempDir(), "one.azs")
	if err := src.Transfer().Export(ctx, []int64{sess.ID}, out); err != nil {
		t.Fatal(err)
	}
	exp := mustOpenPath(t, out)
	list, err := exp.Sessions().List(ctx, "")
	if err != nil || len(list) != 1 || list[0].Name != "sample" {
		t.Fatalf("exported store lists %+v, %v", list, err)
	}
	if !reflect.DeepEqual(rawRows(t, exp, list[0].ID), rawRows(t, src, sess.ID)) {
		t.Error("exported rows differ from the source's")
	}
	rep, err := CheckFile(ctx, out)
	if err != nil || !rep.OK() || rep.SchemaVersion != "3" {
		t.Errorf("exported store check: %+v, %v", rep, err)
	}
	db, err := sql.Open("sqlite", out)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "delete" {
		t.Errorf("journal_mode = %q, %v", mode, err)
	}
	// A missing session fails and leaves no file.
	bad := filepath.Join(t.TempDir(), "bad.azs")
	if err := src.Transfer().Export(ctx, []int64{99}, bad); err == nil {
		t.Error("export of a missing session succeeded")
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("failed export left %s behind", bad)
	}
	if entries, _ := os.ReadDir(filepath.Dir(bad)); len(entries) != 0 {
		t.Errorf("failed export left temporary files: %v", entries)
	}
}
