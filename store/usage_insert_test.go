package store

import (
	"context"
	"database/sql"
	"math"
	"reflect"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

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
		got, want := usageRowsRaw(t, c.got), usageRowsRaw(t, c.want)
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

// usageRowsRaw returns every column of lazuli_usage, rowid and cost_usd's
// type first, in rowid order.
func usageRowsRaw(t *testing.T, s *Store) [][]any {
	t.Helper()
	path := s.Path()
	s.Close()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT rowid, typeof(cost_usd), * FROM lazuli_usage ORDER BY rowid")
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
