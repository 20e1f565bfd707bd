package store

import (
	"context"
	"database/sql"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// usageRowsQuery reads every column of lazuli_usage, rowid and cost_usd's
// type first, in rowid order.
const usageRowsQuery = "SELECT rowid, typeof(cost_usd), * FROM lazuli_usage ORDER BY rowid"

// TestUsageMultiRowInsert stores sessions of 0 to 70 usage rows (full
// multi-row INSERTs and every size of tail) with multi-row INSERTs, in
// one Import (cached statements, tails split) and one Usage().Append per
// session (statements of its own), and the same rows one Append per row,
// the one-row INSERT of before: the rows, rowids included, must be the
// same.
func TestUsageMultiRowInsert(t *testing.T) {
	ctx := context.Background()
	const sessions = 71
	usageOf := func(n int) []Usage {
		var us []Usage
		for i := range n {
			u := Usage{Event: i, At: "2025-06-01 10:00:0" + itoaTest(i%10), Source: "pi", MessageID: "m" + itoaTest(i),
				Model: "model-" + itoaTest(n), Backend: "pi", HasCost: i%3 != 0,
				Tokens: Tokens{Input: int64(i), Output: int64(i%4 - 1), CacheRead: int64(2 * i), CacheWrite: int64(n), Reasoning: int64(i % 5), CostUSD: float64(i) / 100}}
			if i%7 == 3 {
				u.CostUSD = math.NaN()
			}
			us = append(us, u)
		}
		return us
	}
	batch := func(n int, withUsage bool) NativeBatch {
		evs := make([]codec.Event, n)
		for i := range evs {
			evs[i] = codec.AssistantText("reply " + itoaTest(i))
		}
		b := nativeBatch("s"+itoaTest(n), evs...)
		if withUsage {
			b.Usage = usageOf(n)
		}
		return b
	}
	imported, appended, oneImported, oneAppended := mustOpen(t), mustOpen(t), mustOpen(t), mustOpen(t)
	var with, without []NativeBatch
	for n := range sessions {
		with, without = append(with, batch(n, true)), append(without, batch(n, false))
	}
	mustImportNative(t, imported, with...)
	for _, s := range []*Store{appended, oneImported, oneAppended} {
		mustImportNative(t, s, without...)
	}
	for n := range sessions {
		id := int64(n + 1)
		if err := appended.Usage().Append(ctx, id, 7, usageOf(n)); err != nil {
			t.Fatal(err)
		}
		for i, u := range usageOf(n) {
			if err := oneImported.Usage().Append(ctx, id, int64(i+1), []Usage{u}); err != nil {
				t.Fatal(err)
			}
			if err := oneAppended.Usage().Append(ctx, id, 7, []Usage{u}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct {
		name      string
		got, want *Store
	}{{"import", imported, oneImported}, {"append", appended, oneAppended}} {
		got, want := fileRows(t, c.got, usageRowsQuery), fileRows(t, c.want, usageRowsQuery)
		if len(want) != sessions*(sessions-1)/2 {
			t.Fatalf("%s: %d rows one by one", c.name, len(want))
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, one by one %d", c.name, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%s: row %d = %#v\none by one %#v", c.name, i, got[i], want[i])
			}
		}
	}
}

// fileRows closes s and returns the rows of query in its file.
func fileRows(t *testing.T, s *Store, query string) [][]any {
	t.Helper()
	path := s.Path()
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFullTextMultiRowInsert stores sessions of 0 to 70 shortened tool
// results with multi-row INSERTs of their full text, in one Import
// (cached statements, tails split) and one Append per session, and the
// same events one Append each, one full text row per INSERT as before:
// the rows of lazuli_full_text, rowids included, must be the same.
func TestFullTextMultiRowInsert(t *testing.T) {
	ctx := context.Background()
	const sessions = 71
	long := strings.Repeat("output line of a long build log\n", 40)
	eventsOf := func(n int) []codec.Event {
		var evs []codec.Event
		for i := range n {
			evs = append(evs, codec.ToolResult("t"+itoaTest(i), "Bash", nil, itoaTest(i)+"\n"+long[:len(long)-i], false))
			if i%9 == 4 {
				evs = append(evs, codec.AssistantText("no full text "+itoaTest(i)))
			}
		}
		return evs
	}
	imported, appended, one := mustOpen(t), mustOpen(t), mustOpen(t)
	var with, without []NativeBatch
	for n := range sessions {
		with, without = append(with, nativeBatch("s"+itoaTest(n), eventsOf(n)...)), append(without, nativeBatch("s"+itoaTest(n)))
	}
	mustImportNative(t, imported, with...)
	mustImportNative(t, appended, without...)
	mustImportNative(t, one, without...)
	for n := range sessions {
		id := int64(n + 1)
		if _, err := appended.Events().Append(ctx, id, eventsOf(n)); err != nil {
			t.Fatal(err)
		}
		for _, e := range eventsOf(n) {
			if _, err := one.Events().Append(ctx, id, []codec.Event{e}); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := fileRows(t, one, "SELECT rowid, * FROM lazuli_full_text ORDER BY rowid")
	if len(want) != sessions*(sessions-1)/2 {
		t.Fatalf("%d full texts one by one", len(want))
	}
	for name, s := range map[string]*Store{"import": imported, "append": appended} {
		got := fileRows(t, s, "SELECT rowid, * FROM lazuli_full_text ORDER BY rowid")
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, one by one %d", name, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%s: row %d = %v\none by one %v", name, i, got[i], want[i])
			}
		}
	}
}
