package listcache

import (
	"context"
	"database/sql"
	"path/filepath"
	"reflect"
	"testing"
)

// sessionOf runs c.Session in a read transaction of db.
func sessionOf(tb testing.TB, c *Cache, db *sql.DB, id int64) (Agg, bool) {
	tb.Helper()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		tb.Fatal(err)
	}
	defer tx.Rollback()
	a, ok, err := c.Session(ctx, tx, true, id)
	if err != nil {
		tb.Fatalf("Session(%d) = %v", id, err)
	}
	return a, ok
}

// TestUnchangedFileSkipsRefresh: counts known to add up with the file are
// used without a refresh while the file's stamp and facts stay the same,
// and refreshed as soon as either moves. The test's file keeps the same
// facts throughout, so only the header's change counter tells a write.
func TestUnchangedFileSkipsRefresh(t *testing.T) {
	db := mustDB(t, filepath.Join(t.TempDir(), "s.azs"))
	fill(t, db, 3, 12)
	f := &testFile{id: FileID{Dev: 1, Ino: 2, Size: 3, MTime: 4}}
	c := New(f, "")
	if _, ok := sessionOf(t, c, db, 1); ok {
		t.Fatal("Session() before any count = ok, want no counts (it must not count the table for one session)")
	}
	if n := c.Counted(); n != 0 {
		t.Fatalf("Counted() after Session() = %d, want 0", n)
	}
	snapshot(t, c, db)
	steps := []struct {
		name    string
		change  func()
		skipped bool
	}{
		{"Unchanged", func() {}, true},
		{"Append", func() {
			mustExec(t, db, `INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (1, 1000, 'UserMessage', '{}', 7)`)
		}, false},
		{"UnchangedAgain", func() {}, true},
		{"Compaction", func() {
			mustExec(t, db, `INSERT INTO compactions(session_id, after_seq, summary) VALUES (1, 999, 'later')`)
		}, false},
		{"OtherFileSameStamp", func() { f.id.Ino++ }, false},
	}
	for _, st := range steps {
		before := c.Skipped()
		st.change()
		want := freshCounts(t, db)
		got, ok := sessionOf(t, c, db, 1)
		if !ok || !reflect.DeepEqual(got, want[1]) {
			t.Errorf("%s: Session(1) = %+v, %v, want %+v (a fresh count)", st.name, got, ok, want[1])
		}
		if skipped := c.Skipped() > before; skipped != st.skipped {
			t.Errorf("%s: refresh skipped %v, want %v", st.name, skipped, st.skipped)
		}
		if all := snapshot(t, c, db); !reflect.DeepEqual(all, want) {
			t.Errorf("%s: Snapshot() differs from a fresh count", st.name)
		}
	}
}
