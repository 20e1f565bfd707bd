package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestFirstWriteChecksTheFile damages a page in the middle of a store,
// where Open's header and schema checks do not look: the store opens and
// reads, but the first write runs quick_check and refuses, and so does
// every later one, without touching the file.
func TestFirstWriteChecksTheFile(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	mustCreateSession(t, s, "main", "")
	mustAppend(t, s, 1, newBenchGen(3).events(400)...)
	s.Close()
	path := s.Path()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pageSize := 4096
	mid := len(data) / pageSize / 2 * pageSize
	for i := mid + 8; i < mid+pageSize; i++ {
		data[i] = 0x5a // keeps the page type byte, wrecks its cells
	}
	writeFile(t, path, data)
	damaged := mustOpenPath(t, path)
	var fe *FormatError
	if _, err := damaged.ListSessions(ctx, ""); err != nil && !errors.As(err, &fe) {
		t.Errorf("ListSessions() error = %v, want a *FormatError", err) // if it reads the page
	}
	for range 2 {
		_, err := damaged.CreateSession(ctx, "main", "")
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "damaged") {
			t.Fatalf("CreateSession() error = %v, want a *FormatError about damage", err)
		}
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, data) {
		t.Error("a refused write changed the damaged file")
	}
}

// TestFirstWriteChecksOnce checks that a healthy store is checked before
// its first write only.
func TestFirstWriteChecksOnce(t *testing.T) {
	s := mustOpenPath(t, newStoreFile(t))
	if s.verified {
		t.Fatal("Open ran the full check")
	}
	mustAppend(t, s, 1, UserMessage("x"))
	if !s.verified {
		t.Fatal("the first write did not run the full check")
	}
}

// TestRebuildSQLMatchesScan compares the SQL count of ListSessions with
// the row-by-row count, on one connection and on two, for sessions with
// and without events and compactions, events of deleted sessions, and a
// char_len that SQL would sum as a float.
func TestRebuildSQLMatchesScan(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	gen := newBenchGen(8)
	for i := range 40 {
		sess := mustCreateSession(t, s, []string{"main", "feature"}[i%2], "")
		if i%5 != 4 {
			mustAppend(t, s, sess.ID, gen.events(1+gen.r.IntN(60))...)
		}
		if i%3 == 0 {
			if _, err := s.StoreCompaction(ctx, sess.ID, int64(gen.r.IntN(30)), "summary"); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.StoreCompaction(ctx, 6, 2, "an older boundary stored later")
	rawExec(t, s.Path(), "PRAGMA foreign_keys = OFF", "DELETE FROM sessions WHERE id = 7")
	check := func(name string) {
		t.Helper()
		db, info, err := s.reader(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		comps, err := latestCompactions(ctx, tx, info)
		if err != nil {
			t.Fatal(err)
		}
		var want listCache
		if err := want.rebuildScan(ctx, tx, comps); err != nil {
			t.Fatal(err)
		}
		for _, aux := range []*sql.DB{nil, s.helper()} {
			var got listCache
			ok, err := got.rebuildSQL(ctx, tx, info, comps, aux)
			if err != nil || !ok {
				t.Fatalf("%s: rebuildSQL(aux %v) = %v, %v", name, aux != nil, ok, err)
			}
			if !reflect.DeepEqual(got.aggs, want.aggs) || got.lastID != want.lastID || got.total != want.total {
				t.Errorf("%s: rebuildSQL(aux %v) = %d sessions, last id %d, %d rows; scan: %d, %d, %d\n%v\n%v", name, aux != nil,
					len(got.aggs), got.lastID, got.total, len(want.aggs), want.lastID, want.total, got.aggs, want.aggs)
			}
		}
	}
	check("AZUREAL's values")
	rawExec(t, s.Path(), "UPDATE events SET char_len = '12' WHERE id % 11 = 0") // stored as 12
	check("numeric text char_len")
	// SQL sums these as floats: the count falls back to Go.
	for _, q := range []string{"UPDATE events SET char_len = 'n/a' WHERE id % 13 = 0", "UPDATE events SET char_len = 2.5 WHERE id = 3"} {
		rawExec(t, s.Path(), q)
		db, info, _ := s.reader(ctx)
		var c listCache
		if ok, err := c.rebuildSQL(ctx, db, info, map[int64]int64{}, nil); ok || err != nil {
			t.Errorf("%s: rebuildSQL() = %v, %v; want false, nil (count in Go)", q, ok, err)
		}
		var want listCache
		if err := want.rebuildScan(ctx, db, mustLatestCompactions(t, db, info)); err != nil {
			t.Fatal(err)
		}
		// Rows changed in place (AZUREAL never does that) are invisible to
		// the saved counts: each Store starts with an empty cache.
		useCacheDir(t, t.TempDir())
		list, err := mustOpenPath(t, s.Path()).ListSessions(ctx, "")
		if err != nil || len(list) != 39 {
			t.Fatalf("ListSessions() = %d sessions, %v", len(list), err)
		}
		for _, sess := range list {
			if a := want.aggs[sess.ID]; sess.EventCount != a.count || sess.MessageCount != a.msgs || sess.CharsSinceCompaction != a.chars {
				t.Errorf("%s: session %d: %+v, want %+v", q, sess.ID, sess, a)
			}
		}
	}
}

func mustLatestCompactions(t *testing.T, q querier, info *schemaInfo) map[int64]int64 {
	t.Helper()
	comps, err := latestCompactions(context.Background(), q, info)
	if err != nil {
		t.Fatal(err)
	}
	return comps
}
