package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// nativeBatch is a batch for a new session of native transcript id.
func nativeBatch(id string, events ...codec.Event) NativeBatch {
	return NativeBatch{
		Key: NativeKey{Agent: "claude", ID: id}, Path: "/h/.claude/projects/p/" + id + ".jsonl",
		Bytes: 100, Lines: 2, Checksum: "v1:a", Events: events,
		Worktree: "main", Name: "fix the build", Created: "2025-06-01 10:00:00",
	}
}

// mustImportNative runs Native().Import or fails the test.
func mustImportNative(tb testing.TB, s *Store, batches ...NativeBatch) []NativeResult {
	tb.Helper()
	res, err := s.Native().Import(context.Background(), batches)
	if err != nil {
		tb.Fatalf("Native().Import() = %v", err)
	}
	return res
}

// mustNativeImports reads the record or fails the test.
func mustNativeImports(tb testing.TB, s *Store) map[NativeKey]NativeImport {
	tb.Helper()
	recs, err := s.Native().Imports(context.Background())
	if err != nil {
		tb.Fatalf("Native().Imports() = %v", err)
	}
	return recs
}

func TestImportNativeNewAndAppend(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	res := mustImportNative(t, s, nativeBatch("a", codec.UserMessage("fix the build"), codec.AssistantText("done")))
	if len(res) != 1 || !res[0].Created || res[0].Events != 2 || res[0].SessionID != 1 {
		t.Fatalf("Native().Import() = %+v", res)
	}
	sess, err := s.Sessions().Get(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sess.Name != "fix the build" || sess.Worktree != "main" || sess.Created != "2025-06-01 10:00:00" {
		t.Errorf("session = %+v", sess)
	}
	recs := mustNativeImports(t, s)
	rec, ok := recs[NativeKey{"claude", "a"}]
	if !ok || rec.SessionID != 1 || rec.Bytes != 100 || rec.Lines != 2 || rec.SessionCreated != sess.Created ||
		len(rec.Imported) != len(TimeFormat) {
		t.Fatalf("record = %+v (%v)", rec, ok)
	}

	next := nativeBatch("a", codec.UserMessage("and the tests"))
	next.Prev, next.Bytes, next.Checksum = &rec, 150, "v1:b"
	res = mustImportNative(t, s, next)
	if res[0].Created || res[0].SessionID != 1 || res[0].Events != 1 {
		t.Fatalf("append = %+v", res)
	}
	evs := mustLoad(t, s, 1)
	if len(evs) != 3 || evs[2].Seq != 3 || evs[2].Event.Content != "and the tests" {
		t.Errorf("events after the append = %+v", evs)
	}
	if got := mustNativeImports(t, s)[NativeKey{"claude", "a"}]; got.Bytes != 150 || got.Checksum != "v1:b" {
		t.Errorf("record after the append = %+v", got)
	}

	t.Run("ErrNativeConflict", func(t *testing.T) {
		stale := next // continues the record before the append: someone else moved it
		if _, err := s.Native().Import(ctx, []NativeBatch{stale}); !errors.Is(err, ErrNativeConflict) {
			t.Errorf("a stale Prev: error = %v, want ErrNativeConflict", err)
		}
		if _, err := s.Native().Import(ctx, []NativeBatch{nativeBatch("a", codec.UserMessage("x"))}); !errors.Is(err, ErrNativeConflict) {
			t.Errorf("a new session for a recorded key: error = %v, want ErrNativeConflict", err)
		}
		if n := len(mustLoad(t, s, 1)); n != 3 {
			t.Errorf("a conflict stored events: %d", n)
		}
	})
	t.Run("Reimport", func(t *testing.T) {
		cur := mustNativeImports(t, s)[NativeKey{"claude", "a"}]
		b := nativeBatch("a", codec.UserMessage("rewritten"))
		b.Prev, b.Reimport = &cur, true
		res := mustImportNative(t, s, b)
		if !res[0].Created || res[0].SessionID != 2 {
			t.Fatalf("reimport = %+v", res)
		}
		if got := mustNativeImports(t, s)[NativeKey{"claude", "a"}]; got.SessionID != 2 {
			t.Errorf("record after reimport points at S%d, want S2", got.SessionID)
		}
		if n := len(mustLoad(t, s, 1)); n != 3 {
			t.Errorf("the old session has %d events after reimport, want 3", n)
		}
	})
}

// TestImportNativeIsAtomic: one bad event in the last batch leaves nothing
// of any batch, not even the record table, as a process killed before the
// commit would.
func TestImportNativeIsAtomic(t *testing.T) {
	s := mustOpen(t)
	mustCreateSession(t, s, "main", "")
	good := nativeBatch("a", codec.UserMessage("one"), codec.AssistantText("two"))
	sub := nativeBatch("a/agent-1", codec.UserMessage("sub"), codec.Event{Kind: "Bogus"})
	sub.ParentID = "a"
	if _, err := s.Native().Import(context.Background(), []NativeBatch{good, sub}); err == nil {
		t.Fatal("a bad event did not fail the import")
	}
	list, err := s.Sessions().List(context.Background(), "")
	if err != nil || len(list) != 1 {
		t.Errorf("after a failed import: %d sessions (%v), want the 1 from before", len(list), err)
	}
	if got := rawQueryString(t, s.Path(), "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE '%native%'"); got != "0" {
		t.Errorf("a failed import left %s native objects", got)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Native().Import(ctx, []NativeBatch{good}); err == nil {
		t.Error("a cancelled import succeeded")
	}
	if len(mustNativeImports(t, s)) != 0 {
		t.Error("a cancelled import left a record")
	}
}

// TestNativeTableSchema: reading creates nothing; an import adds exactly
// one table and its index to AZUREAL's schema; Check reports it as
// information; deleting a session deletes its record.
func TestNativeTableSchema(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	mustCreateSession(t, s, "main", "")
	const q = "SELECT group_concat(type || ' ' || name, ',') FROM (SELECT * FROM sqlite_master ORDER BY name)"
	before := rawQueryString(t, s.Path(), q)
	data, _ := os.ReadFile(s.Path())
	if recs := mustNativeImports(t, s); len(recs) != 0 {
		t.Errorf("a new store has records %v", recs)
	}
	if after, _ := os.ReadFile(s.Path()); !bytes.Equal(data, after) {
		t.Error("Native().Imports changed the file")
	}
	mustImportNative(t, s, nativeBatch("a", codec.UserMessage("x")))
	after := rawQueryString(t, s.Path(), q)
	added := strings.Split(after, ",")
	added = slices.DeleteFunc(added, func(o string) bool { return slices.Contains(strings.Split(before, ","), o) })
	want := []string{"index idx_lazuli_native_imports_session", "table lazuli_native_imports", "index sqlite_autoindex_lazuli_native_imports_1"}
	if !slices.Equal(added, want) || len(strings.Split(after, ",")) != len(strings.Split(before, ","))+len(want) {
		t.Errorf("an import added %q to the schema (%s), want %q", added, after, want)
	}
	rep, err := s.Check(ctx)
	if err != nil || !rep.OK() {
		t.Fatalf("Check() = %+v, %v", rep, err)
	}
	if !hasFinding(rep, "native_imports", SeverityInfo) {
		t.Errorf("Check does not mention the record: %+v", rep.Findings)
	}
	if err := s.Sessions().Delete(ctx, 2); err != nil {
		t.Fatal(err)
	}
	if got := rawQueryString(t, s.Path(), "SELECT COUNT(*) FROM lazuli_native_imports"); got != "0" {
		t.Errorf("deleting the session left %s record rows", got)
	}
}

func hasFinding(r Report, code string, sev Severity) bool {
	for _, f := range r.Findings {
		if f.Code == code && f.Severity == sev {
			return true
		}
	}
	return false
}

// TestNativeRecordOfReusedID: a session deleted by a program with foreign
// keys off leaves its record; when a new session reuses the id, the record
// is ignored (the native session counts as new) and Check warns.
func TestNativeRecordOfReusedID(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	mustImportNative(t, s, nativeBatch("a", codec.UserMessage("x")))
	s.Close()
	rawExec(t, s.Path(), "PRAGMA foreign_keys = OFF", "DELETE FROM events", "DELETE FROM sessions")
	s = mustOpenPath(t, s.Path())
	if sess := mustCreateSession(t, s, "main", "unrelated"); sess.ID != 1 {
		t.Fatalf("the new session is S%d, want the reused S1", sess.ID)
	}
	if recs := mustNativeImports(t, s); len(recs) != 0 {
		t.Errorf("a record of a deleted session counts: %+v", recs)
	}
	rep, err := s.Check(ctx)
	if err != nil || !rep.OK() || !hasFinding(rep, "native_imports_stale", SeverityWarning) {
		t.Errorf("Check() = %+v, %v; want OK with a warning", rep.Findings, err)
	}
	res := mustImportNative(t, s, nativeBatch("a", codec.UserMessage("again")))
	if !res[0].Created || res[0].SessionID != 2 {
		t.Errorf("import over a stale record = %+v, want a new S2", res)
	}
	if evs := mustLoad(t, s, 1); len(evs) != 0 {
		t.Errorf("the unrelated session got %d events", len(evs))
	}
}

// TestNativeRecordStaysHome: Merge and Transfer().Export copy sessions, not
// the record, whose paths name files on this machine.
func TestNativeRecordStaysHome(t *testing.T) {
	ctx := context.Background()
	src := mustOpen(t)
	mustImportNative(t, src, nativeBatch("a", codec.UserMessage("x")))
	dst := mustOpen(t)
	if _, err := dst.Transfer().Merge(ctx, src); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.azs")
	if err := src.Transfer().Export(ctx, []int64{1}, out); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{dst.Path(), out} {
		if got := rawQueryString(t, path, "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE '%native%'"); got != "0" {
			t.Errorf("%s has %s native objects", filepath.Base(path), got)
		}
	}
}

func TestNativeImportsReadOnly(t *testing.T) {
	s := mustOpen(t)
	mustImportNative(t, s, nativeBatch("a", codec.UserMessage("x")))
	s.Close()
	data, _ := os.ReadFile(s.Path())
	ro, err := OpenReadOnly(context.Background(), s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if recs := mustNativeImports(t, ro); len(recs) != 1 {
		t.Errorf("read-only Native().Imports = %v", recs)
	}
	if _, err := ro.Native().Import(context.Background(), []NativeBatch{nativeBatch("b", codec.UserMessage("y"))}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Native().Import on a read-only store: %v, want ErrReadOnly", err)
	}
	if after, _ := os.ReadFile(s.Path()); !bytes.Equal(data, after) {
		t.Error("the read-only store changed")
	}
	missing := mustOpenPath(t, filepath.Join(t.TempDir(), ".azureal", "sessions.azs"))
	if recs := mustNativeImports(t, missing); len(recs) != 0 {
		t.Errorf("a missing store has records %v", recs)
	}
}

// TestNativeTableUnderAZUREAL plays AZUREAL's side on a store with the
// record: its connection setup, schema script and migration (spec §1.2–1.4),
// its session list query (§1.6) and its delete with VACUUM. All work, and
// the deleted session's record goes with it.
func TestNativeTableUnderAZUREAL(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	mustImportNative(t, s, nativeBatch("a", codec.UserMessage("one")), nativeBatch("b", codec.UserMessage("two")))
	path := s.Path()
	s.Close()
	db, conn := openAsAZUREAL(t, path)
	var n int
	err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT s.id, s.name, s.worktree, s.created, s.completed,
		s.duration_ms, s.cost_usd, COUNT(e.id), SUM(CASE WHEN e.kind IN ('UserMessage','AssistantText') THEN 1 ELSE 0 END)
		FROM sessions s LEFT JOIN events e ON e.session_id = s.id GROUP BY s.id
		ORDER BY COALESCE(MAX(e.id), 0) DESC, s.id DESC)`).Scan(&n)
	if err != nil || n != 2 {
		t.Fatalf("AZUREAL's list query: %d sessions, %v", n, err)
	}
	for _, q := range []string{"DELETE FROM sessions WHERE id = 1", "VACUUM"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close()
	db.Close()
	s = mustOpenPath(t, path)
	recs := mustNativeImports(t, s)
	if _, ok := recs[NativeKey{"claude", "b"}]; len(recs) != 1 || !ok {
		t.Errorf("records after AZUREAL deleted S1: %+v", recs)
	}
	if rep, err := s.Check(ctx); err != nil || !rep.OK() {
		t.Errorf("Check() = %+v, %v", rep.Findings, err)
	}
}

// TestNativeImportStat: a batch's file stat is recorded and read back; a
// record table written before the stat columns existed reads as unknown
// stats (Size -1) and gets the columns on the next import that writes.
func TestNativeImportStat(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	b := nativeBatch("a", codec.UserMessage("x"))
	b.Stat = FileStat{Size: 120, ModTime: 1_700_000_000_123_456_789, Inode: 1<<63 + 5}
	mustImportNative(t, s, b)
	rec := mustNativeImports(t, s)[b.Key]
	if rec.Stat != b.Stat {
		t.Errorf("stat read back %+v, want %+v", rec.Stat, b.Stat)
	}
	s.Close()
	rawExec(t, s.Path(), "ALTER TABLE lazuli_native_imports DROP COLUMN file_size",
		"ALTER TABLE lazuli_native_imports DROP COLUMN file_mtime", "ALTER TABLE lazuli_native_imports DROP COLUMN file_inode")
	s2, err := Open(ctx, s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	rec = mustNativeImports(t, s2)[b.Key]
	if rec.Stat.Size != -1 || rec.Bytes != 100 {
		t.Errorf("an old record reads as %+v, want an unknown stat", rec)
	}
	c := nativeBatch("c", codec.UserMessage("y"))
	c.Stat = FileStat{Size: 7, ModTime: 8, Inode: 9}
	mustImportNative(t, s2, c)
	recs := mustNativeImports(t, s2)
	if recs[c.Key].Stat != c.Stat || recs[b.Key].Stat.Size != -1 {
		t.Errorf("after the upgrade: %+v and %+v", recs[c.Key].Stat, recs[b.Key].Stat)
	}
	rep, err := s2.Check(ctx)
	if err != nil || !rep.OK() {
		t.Fatalf("Check() = %+v, %v", rep, err)
	}
}

// openAsAZUREAL opens path as AZUREAL does: its connection setup, then its
// schema script and migration (spec §1.2–1.4) on one connection.
func openAsAZUREAL(t *testing.T, path string) (*sql.DB, *sql.Conn) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	stmts := append([]string{"PRAGMA journal_mode = DELETE", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON"},
		schemaStatements...)
	stmts = append(stmts, `UPDATE meta SET value = '3' WHERE key = 'schema_version'`)
	for _, q := range stmts {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db, conn
}

// TestImportNativeRows: the rows Native().Import returns are the events as
// Scan().Events and FullText().Attach read them back (ids, seqs, kinds, lengths,
// payloads, full text), across batches of one transaction and after
// another session's rows, so a search index can take them instead of
// reading the store again.
func TestImportNativeRows(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	other := mustCreateSession(t, s, "main", "other")
	if _, err := s.Events().Append(ctx, other.ID, []codec.Event{codec.UserMessage("before"), codec.AssistantText("ok")}); err != nil {
		t.Fatal(err)
	}
	var many []codec.Event
	for i := range 70 { // more than one multi-row INSERT, and its one-row tail
		many = append(many, codec.AssistantText("reply "+itoaTest(i)))
	}
	a := nativeBatch("a", append(fullEvents(), Thinking("not an event row"))...)
	res := mustImportNative(t, s, a, nativeBatch("b", many...))
	var got []ScannedEvent
	for _, r := range res {
		if r.SessionCreated != "2025-06-01 10:00:00" {
			t.Errorf("SessionCreated = %q", r.SessionCreated)
		}
		got = append(got, r.Rows...)
	}
	var want []ScannedEvent
	err := s.Scan().Events(ctx, ScanOptions{After: 2}, func(b []ScannedEvent) error {
		if err := s.FullText().Attach(ctx, b); err != nil {
			return err
		}
		want = append(want, b...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(want) != len(fullEvents())+70 {
		t.Fatalf("%d rows returned, %d stored (want %d)", len(got), len(want), len(fullEvents())+70)
	}
	for i := range want {
		g, w := got[i], want[i]
		gj, err1 := codec.EncodeEventJSON(g.Event)
		wj, err2 := codec.EncodeEventJSON(w.Event)
		if g.ID != w.ID || g.SessionID != w.SessionID || g.Seq != w.Seq || g.Kind != w.Kind || g.CharLen != w.CharLen ||
			g.Full != w.Full || err1 != nil || err2 != nil || !bytes.Equal(gj, wj) {
			t.Fatalf("row %d returned %+v\nstored %+v", i, g, w)
		}
	}
	if got[2].Full == "" {
		t.Error("the shortened Bash result came back without its full text")
	}
}

// TestNativeResume checks what a record keeps for going on: the Resume of
// the batch that wrote it; kept by a batch that only brings a new stat;
// replaced (or dropped) by one that read further; never handed out for a
// record that no longer ends where the caller thinks; and nothing on a
// table from before the column, until an import adds it.
func TestNativeResume(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	resume := func(rec NativeImport) string {
		t.Helper()
		b, err := s.Native().Resume(ctx, rec.NativeKey, rec.Bytes, rec.Checksum)
		if err != nil {
			t.Fatalf("Native().Resume(%s) = %v", rec.NativeKey, err)
		}
		return string(b)
	}
	b := nativeBatch("a", codec.UserMessage("x"))
	b.Resume = []byte("r1")
	mustImportNative(t, s, b)
	rec := mustNativeImports(t, s)[b.Key]
	if got := resume(rec); got != "r1" {
		t.Errorf("Resume() = %q, want r1", got)
	}
	if got, err := s.Native().Resume(ctx, b.Key, rec.Bytes+1, rec.Checksum); err != nil || got != nil {
		t.Errorf("Resume(other end) = %q, %v; want nothing", got, err)
	}
	if got, err := s.Native().Resume(ctx, b.Key, rec.Bytes, "v1:other"); err != nil || got != nil {
		t.Errorf("Resume(other checksum) = %q, %v; want nothing", got, err)
	}
	steps := []struct {
		name   string
		bytes  int64
		resume string
		want   string
	}{
		{"NewStat", 100, "", "r1"},
		{"ReadFurther", 150, "r2", "r2"},
		{"ReadFurtherWithout", 200, "", ""},
	}
	for _, st := range steps {
		next := NativeBatch{Key: b.Key, Path: b.Path, Bytes: st.bytes, Lines: 3, Checksum: "v1:" + st.name,
			Stat: FileStat{Size: st.bytes + 7}, Resume: []byte(st.resume), Prev: &rec}
		if st.bytes == rec.Bytes {
			next.Checksum = rec.Checksum
		} else {
			next.Events = []codec.Event{codec.AssistantText(st.name)}
		}
		mustImportNative(t, s, next)
		rec = mustNativeImports(t, s)[b.Key]
		if got := resume(rec); got != st.want {
			t.Errorf("%s: Resume() = %q, want %q", st.name, got, st.want)
		}
	}
	s.Close()
	rawExec(t, s.Path(), "ALTER TABLE lazuli_native_imports DROP COLUMN resume")
	s = mustOpenPath(t, s.Path())
	if got := resume(rec); got != "" {
		t.Errorf("Resume() without the column = %q", got)
	}
	c := nativeBatch("c", codec.UserMessage("y"))
	c.Resume = []byte("r3")
	mustImportNative(t, s, c)
	if got := resume(mustNativeImports(t, s)[c.Key]); got != "r3" {
		t.Errorf("Resume() after the column was added again = %q, want r3", got)
	}
}

// A batch encoded ahead (NativeService.Encode, on an import's readers)
// stores exactly what Import would have encoded itself: the same rows,
// full texts and thinking, and the same Rows back. After a transaction
// that failed, the same encoded batch is stored whole, its Rows once.
func TestImportNativeEncodedAhead(t *testing.T) {
	ctx := context.Background()
	var many []codec.Event
	for i := range 70 {
		many = append(many, codec.AssistantText("reply "+itoaTest(i)+strings.Repeat(" and more", i*3)))
	}
	batches := func() []NativeBatch {
		return []NativeBatch{nativeBatch("a", append(fullEvents(), Thinking("not an event row"))...), nativeBatch("b", many...)}
	}
	plain, ahead := mustOpen(t), mustOpen(t)
	want := mustImportNative(t, plain, batches()...)
	bs := batches()
	for i := range bs {
		if err := ahead.Native().Encode(&bs[i]); err != nil || bs[i].encoded == nil {
			t.Fatalf("Encode: %v", err)
		}
	}
	got := mustImportNative(t, ahead, bs...)
	for i := range want {
		if len(got[i].Rows) != len(want[i].Rows) || len(got[i].Rows) == 0 {
			t.Fatalf("batch %d: %d rows back, want %d", i, len(got[i].Rows), len(want[i].Rows))
		}
		if g, w := rawRows(t, ahead, got[i].SessionID), rawRows(t, plain, want[i].SessionID); !slices.Equal(g, w) {
			t.Errorf("batch %d stored\n%v\nwant\n%v", i, g, w)
		}
		gf, err1 := ahead.FullText().Of(ctx, got[i].SessionID)
		wf, err2 := plain.FullText().Of(ctx, want[i].SessionID)
		if err1 != nil || err2 != nil || len(gf) != len(wf) {
			t.Errorf("batch %d: full texts %d, want %d (%v, %v)", i, len(gf), len(wf), err1, err2)
		}
		for seq, f := range wf {
			if gf[seq] != f {
				t.Errorf("batch %d seq %d: full text %+v, want %+v", i, seq, gf[seq], f)
			}
		}
		gt, err1 := ahead.Thinking().Of(ctx, got[i].SessionID)
		wt, err2 := plain.Thinking().Of(ctx, want[i].SessionID)
		if err1 != nil || err2 != nil || !slices.Equal(gt, wt) {
			t.Errorf("batch %d: thinking %v, want %v (%v, %v)", i, gt, wt, err1, err2)
		}
	}

	// A transaction that stores c and then fails on a conflict keeps nothing.
	other := mustOpen(t)
	mustImportNative(t, other, nativeBatch("taken", codec.UserMessage("x")))
	c := nativeBatch("c", many...)
	if err := other.Native().Encode(&c); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Native().Import(ctx, []NativeBatch{c, nativeBatch("taken", codec.UserMessage("y"))}); !errors.Is(err, ErrNativeConflict) {
		t.Fatalf("import over a record: %v", err)
	}
	res := mustImportNative(t, other, c)
	if len(res[0].Rows) != len(many) || len(rawRows(t, other, res[0].SessionID)) != len(many) {
		t.Errorf("after a failed transaction: %d rows back, %d stored; want %d", len(res[0].Rows), len(rawRows(t, other, res[0].SessionID)), len(many))
	}
}

// WithoutRows stores the same and returns no rows.
func TestImportNativeWithoutRows(t *testing.T) {
	s := mustOpen(t)
	res, err := s.Native().WithoutRows().Import(context.Background(), []NativeBatch{nativeBatch("a", fullEvents()...)})
	if err != nil || len(res) != 1 || res[0].Rows != nil || res[0].Events != len(fullEvents()) {
		t.Fatalf("Import = %+v, %v", res, err)
	}
	if got := len(rawRows(t, s, res[0].SessionID)); got != len(fullEvents()) {
		t.Errorf("%d rows stored, want %d", got, len(fullEvents()))
	}
	if res := mustImportNative(t, s, nativeBatch("b", fullEvents()...)); len(res[0].Rows) != len(fullEvents()) {
		t.Errorf("Native() without WithoutRows: %d rows back", len(res[0].Rows))
	}
}
