package search

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/indexdb"
	"github.com/lazuli-app/lazuli/store"
)

// probeStore is the probe's store: 100 events that hold "error" among 100
// that do not.
func probeStore(t *testing.T) *store.Store {
	t.Helper()
	st := mustOpenStore(t, testStorePath(t))
	var evs []codec.Event
	for i := range 100 {
		evs = append(evs,
			codec.UserMessage(fmt.Sprintf("an error number %d happened in module m%d with words lorem ipsum dolor sit amet %d", i, i*7, i*i)),
			codec.AssistantText(fmt.Sprintf("reply %d about something else entirely, nothing to see %d", i, i*13)))
	}
	mustSession(t, st, "s", evs...)
	return st
}

// searchOnce opens the index as `lazuli search` does (Open, Update,
// Search) and returns the hits for "error", whether it said the index was
// damaged, and the error.
func searchOnce(ctx context.Context, st *store.Store) (hits int, damaged bool, err error) {
	x, err := Open(ctx, st)
	if err != nil {
		return 0, false, err
	}
	defer x.Close()
	s, err := x.Update(ctx, nil)
	if err != nil {
		return 0, false, err
	}
	res, err := x.Search(ctx, "error", Options{Limit: 500})
	return len(res.Hits), s.Damaged || strings.Contains(res.Note, "was damaged"), err
}

// TestByteFlipsRebuild is the probe's reproduction: random bytes of the
// index flipped (1 to 10 of them, at offsets from deterministic seeds).
// Before, 4 of 10 answered wrong every time (0 hits instead of 100, no
// error) and none was rebuilt. Now each answers all 100 hits, the damage
// found is said once, and the next search finds the index whole.
func TestByteFlipsRebuild(t *testing.T) {
	ctx := context.Background()
	st := probeStore(t)
	x := mustIndex(t, st)
	path := x.Path()
	x.Close()
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	said := 0
	for seed := int64(1); seed <= 80; seed++ {
		rng := rand.New(rand.NewSource(seed))
		b := append([]byte(nil), orig...)
		for range 1 + seed%10 {
			b[rng.Intn(len(b))] ^= byte(1 + rng.Intn(255))
		}
		for _, suffix := range []string{"-wal", "-shm"} {
			_ = os.Remove(path + suffix)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		hits, damaged, err := searchOnce(ctx, st)
		if err != nil || hits != 100 {
			t.Errorf("seed %d: %d hits, %v; want 100", seed, hits, err)
			continue
		}
		if damaged {
			said++
			if hits, again, err := searchOnce(ctx, st); hits != 100 || again || err != nil {
				t.Errorf("seed %d: after the rebuild: %d hits, damaged %v, %v", seed, hits, again, err)
			}
		}
	}
	if said < 40 {
		t.Errorf("only %d of 80 damaged indexes were reported", said)
	}
}

// TestMissingTables: an index of the right format that lacks one of its
// tables is rebuilt and says so, instead of failing with "no such table".
func TestMissingTables(t *testing.T) {
	ctx := context.Background()
	st := probeStore(t)
	for _, table := range []string{"docs", "sessions", "blocks", "segs"} {
		x := mustIndex(t, st)
		path := x.Path()
		x.Close()
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("DROP TABLE " + table); err != nil {
			t.Fatal(err)
		}
		db.Close()
		hits, damaged, err := searchOnce(ctx, st)
		if err != nil || hits != 100 || !damaged {
			t.Errorf("without %s: %d hits, damaged %v, %v", table, hits, damaged, err)
		}
	}
}

// TestIndexDeletedMidBuild is the probe's reproduction: the index file is
// deleted while a build holds it open and goes on writing to its
// write-ahead log, which stays behind under the same name. The next
// search failed with "no such table: docs"; now it rebuilds.
func TestIndexDeletedMidBuild(t *testing.T) {
	ctx := context.Background()
	st := probeStore(t)
	x := mustIndex(t, st)
	path := x.Path()
	if err := os.Remove(path); err != nil { // x still holds it open
		t.Fatal(err)
	}
	for i := range 3 {
		mustSession(t, st, fmt.Sprint("more ", i), codec.UserMessage(fmt.Sprint("one more error to index ", i)))
		if _, err := x.Update(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		hits, _, err := searchOnce(ctx, st)
		if err != nil || hits != 103 {
			t.Errorf("after the index was deleted: %d hits, %v; want 103", hits, err)
		}
	}
	x.Close()
}

// TestReplacedStoreIsNotDamage: another store copied over the indexed
// one (the same ids, other contents) makes the index of another file, not
// a damaged one: it is started over without a word of damage.
func TestReplacedStoreIsNotDamage(t *testing.T) {
	ctx := context.Background()
	st := probeStore(t)
	x := mustIndex(t, st)
	x.Close()
	other := mustOpenStore(t, testStorePath(t))
	var evs []codec.Event
	for i := range 200 {
		evs = append(evs, codec.UserMessage(fmt.Sprint("a different error text, number ", i)))
	}
	mustSession(t, other, "other", evs...)
	other.Close()
	st.Close()
	b, err := os.ReadFile(other.Path())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(st.Path(), b, 0o644); err != nil {
		t.Fatal(err)
	}
	st = mustOpenStore(t, st.Path())
	hits, damaged, err := searchOnce(ctx, st)
	if err != nil || hits != 200 || damaged {
		t.Errorf("another store at the path: %d hits, damaged %v, %v", hits, damaged, err)
	}
}

// TestLongTermSampledGrams: the index looks a long term up by maxTermGrams of
// its 4-grams, so a candidate that holds those and lacks another one is a
// false candidate, not damage (a check of every 4-gram called the index of
// `action_export_selected` damaged).
func TestLongTermSampledGrams(t *testing.T) {
	const term = "abcdefghijklmnopqrstuvwxyz"
	q, err := parseQuery(term)
	if err != nil {
		t.Fatal(err)
	}
	picked := pickGrams(term)
	if len(picked) >= len(term)-gramBytes+1 {
		t.Fatalf("%q: every 4-gram picked; the test needs a longer term", term)
	}
	text := strings.Join(picked, " ")
	if q.lacksGram(text) {
		t.Errorf("a text holding every 4-gram the lookup uses counts as lacking one: %q", text)
	}
	if !q.lacksGram(strings.Join(picked[1:], " ")) {
		t.Error("a text lacking a 4-gram the lookup uses does not count as lacking it")
	}
}

// TestOneQuickCheckProblemIsDamage: an index file of which PRAGMA
// quick_check reports one problem (here a NULL in a NOT NULL column,
// written behind SQLite's back) is damaged: Open starts it over and a
// search says it was damaged.
func TestOneQuickCheckProblemIsDamage(t *testing.T) {
	ctx := context.Background()
	st := probeStore(t)
	x := mustIndex(t, st)
	path := x.Path()
	x.Close()
	oneProblem(t, path)
	x, err := Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	damaged := x.damaged
	x.Close()
	if !damaged {
		t.Errorf("Open of an index with one quick_check problem: damaged = false, want true")
	}
	oneProblem(t, path)
	if hits, damaged, err := searchOnce(ctx, st); err != nil || hits != 100 || !damaged {
		t.Errorf("searchOnce = %d hits, damaged %v, %v; want 100, true, nil", hits, damaged, err)
	}
}

// oneProblem writes into the index file at path a row that breaks a NOT
// NULL constraint, and checks that PRAGMA quick_check reports it as the
// one problem of the file.
func oneProblem(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		"DROP TABLE IF EXISTS extra",
		"CREATE TABLE extra(c)",
		"INSERT INTO extra VALUES (NULL)",
		"PRAGMA writable_schema = ON",
		"UPDATE sqlite_master SET sql = 'CREATE TABLE extra(c NOT NULL)' WHERE name = 'extra'",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()
	check, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	rows, err := check.Query("PRAGMA quick_check")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0] == "ok" {
		t.Fatalf("PRAGMA quick_check = %q, want one problem", lines)
	}
}

// TestSealedIndexIsTrusted: Close seals the index (indexdb.Seal), and
// Open trusts a sealed file without reading it back (quick_check and the
// sample cost ~100 ms of every search of a 90 MB index), while a file
// changed since its seal is checked: here one quick_check problem written
// behind SQLite's back (a NOT NULL column holding a NULL), which keeps the
// file's size, found only when the file's time shows the change.
func TestSealedIndexIsTrusted(t *testing.T) {
	ctx := context.Background()
	st := probeStore(t)
	x := mustIndex(t, st)
	path := x.Path()
	x.Close()
	if _, err := os.Stat(path + "-sealed"); err != nil {
		t.Fatalf("Close left no seal: %v", err)
	}
	execAll(t, path, "CREATE TABLE extra(c)", "INSERT INTO extra VALUES (NULL)")
	// Long after its last change, the seal is no longer racy.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if err := indexdb.Seal(path); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	execAll(t, path, "PRAGMA writable_schema = ON",
		"UPDATE sqlite_master SET sql = 'CREATE TABLE extra(c NOT NULL)' WHERE name = 'extra'")
	if after, err := os.Stat(path); err != nil || after.Size() != fi.Size() {
		t.Fatalf("the problem changed the file's size: %v", err)
	}
	for _, tc := range []struct {
		name    string
		mtime   time.Time
		damaged bool
	}{
		{"as sealed", fi.ModTime(), false},
		{"changed since", time.Now().Add(-time.Minute), true},
	} {
		if err := os.Chtimes(path, tc.mtime, tc.mtime); err != nil {
			t.Fatal(err)
		}
		x, err := Open(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		damaged := x.damaged
		x.r.Close() // not Close: that would seal the file as it is now
		x.w.Close()
		if damaged != tc.damaged {
			t.Errorf("%s: Open found damage %v, want %v", tc.name, damaged, tc.damaged)
		}
	}
}

// execAll runs statements on the SQLite file at path, then closes it.
func execAll(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range stmts {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}
