package listcache

import (
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// diverged returns the files a and b, copies of one store that went
// separate ways by one write transaction each (changeA in a, changeB in
// b), so that their headers have the same change counter and page count.
// The test fails when the stamps differ: it would not test what it says.
func diverged(t *testing.T, changeA, changeB string) (a, b *sql.DB) {
	t.Helper()
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a.azs"), filepath.Join(dir, "b.azs")
	a = mustDB(t, pa)
	fill(t, a, 1, 6)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(pa)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pb, data, 0o600); err != nil {
		t.Fatal(err)
	}
	a, b = mustDB(t, pa), mustDB(t, pb)
	mustExec(t, a, changeA)
	mustExec(t, b, changeB)
	if sa, sb := stampOf(t, a), stampOf(t, b); !sa.Same(sb) {
		t.Fatalf("stamps %+v and %+v differ: the test does not test what it should", sa, sb)
	}
	return a, b
}

// TestAdoptOnlyWithContentProof: counts saved for one file are not adopted
// for another that matches everything the cache file records but the
// content of the rows they were counted from: the header's change counter
// and page count, the file's size, inode and mtime (the same FileID), the
// session keys and the last counted row. Only the first row's kind
// differs, which the message count reads.
func TestAdoptOnlyWithContentProof(t *testing.T) {
	a, b := diverged(t, "UPDATE sessions SET name = 'renamed' WHERE id = 1",
		"UPDATE events SET kind = CASE kind WHEN 'UserMessage' THEN 'ToolCall' ELSE 'UserMessage' END WHERE id = 1")
	want := freshCounts(t, b)
	if reflect.DeepEqual(want, freshCounts(t, a)) {
		t.Fatal("a and b have the same counts: the test does not test what it should")
	}
	file, id := cacheFileIn(t), FileID{Dev: 1, Ino: 2, Size: 3, MTime: 4}
	saver := New(testFile{id}, file)
	snapshot(t, saver, a)
	saver.Close()
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("no cache file after a full count: %v", err)
	}
	c := New(testFile{id}, file)
	defer c.Close()
	if got := snapshot(t, c, b); !reflect.DeepEqual(got, want) {
		t.Errorf("Snapshot() of the other file = %v, want %v (a fresh count)", got, want)
	}
	if n := c.Counted(); n != 1 {
		t.Errorf("Counted() = %d, want 1: the other file's counts come from a full count", n)
	}
}

// TestRefreshWhenOnlyMTimeChanged: counts adopted from the cache file are
// used without a refresh only when the file is the one they were saved
// for, mtime included. File b is a with one more row; its header stamp,
// inode, device and size are a's, only its mtime differs: the adopted
// counts must be refreshed (no full count is needed), never used as they
// are.
func TestRefreshWhenOnlyMTimeChanged(t *testing.T) {
	a, b := diverged(t, "UPDATE sessions SET name = 'renamed' WHERE id = 1",
		`INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (1, 1000, 'UserMessage', '{}', 7)`)
	want := freshCounts(t, b)
	file, id := cacheFileIn(t), FileID{Dev: 1, Ino: 2, Size: 3, MTime: 4}
	saver := New(testFile{id}, file)
	snapshot(t, saver, a)
	saver.Close()
	id.MTime++
	c := New(testFile{id}, file)
	defer c.Close()
	if got := snapshot(t, c, b); !reflect.DeepEqual(got, want) {
		t.Errorf("Snapshot() after only the mtime changed = %v, want %v (a fresh count)", got, want)
	}
	if n := c.Counted(); n != 0 {
		t.Errorf("Counted() = %d, want 0: the saved counts are adopted and refreshed", n)
	}
}
