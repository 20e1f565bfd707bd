package search

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lazuli-app/lazuli/indexdb"
)

// listsDB returns an index file with only the lists' tables, and docs
// (which markGone reads).
func listsDB(t testing.TB) *sql.DB {
	t.Helper()
	db, err := indexdb.OpenWriter(filepath.Join(t.TempDir(), "lists.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(postingsSchema + "CREATE TABLE docs(id INTEGER PRIMARY KEY, session INTEGER NOT NULL, ord INTEGER);"); err != nil {
		t.Fatal(err)
	}
	return db
}

// ids returns the keys that hold a 4-gram of gr, in any segment,
// descending: every list of gr decoded.
func (r *reader) ids(gr gramRange) ([]int64, error) {
	var out []int64
	err := r.entries(gr, func(e entry) error {
		var err error
		out, err = decodeIDs(out, e.enc, e.n)
		return err
	})
	if err != nil {
		return nil, err
	}
	return descending(out), nil
}

// model is what the lists should say: the 4-grams of each row.
type model map[int64][]uint32

// ids returns the keys of the rows that hold a 4-gram of gr, descending,
// as reader.ids does.
func (m model) ids(gr gramRange) []int64 {
	var out []int64
	for id, grams := range m {
		for _, g := range grams {
			if g >= gr.lo && g <= gr.hi {
				out = append(out, key(id))
				break
			}
		}
	}
	slices.SortFunc(out, func(a, b int64) int { return cmp.Compare(b, a) })
	return out
}

func writeTx(t *testing.T, db *sql.DB, fn func(*sql.Tx) error) {
	t.Helper()
	if err := indexdb.WriteTx(context.Background(), db, fn); err != nil {
		t.Fatal(err)
	}
}

// checkLists compares the lists with m for a spread of ranges, and
// returns how many stale keys (a removed row's) the lists named.
func checkLists(t *testing.T, db *sql.DB, m model, rng *rand.Rand, step string) (staleNamed int) {
	t.Helper()
	ctx := context.Background()
	r, err := newReader(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	ranges := []gramRange{{0, 0}, {0, noGram - 1}, {1 << 31, 1<<31 + 255}}
	for range 5 {
		lo := uint32(rng.Intn(gramSpace))
		ranges = append(ranges, gramRange{lo, lo}, gramRange{lo &^ 0xff, lo | 0xff})
	}
	stale := map[int64]bool{}
	rows, err := db.Query("SELECT id FROM gone")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		stale[id] = true
	}
	rows.Close()
	// Each range's ids, read once: a range is also another's "other".
	read := make([][]int64, len(ranges))
	for i, gr := range ranges {
		if read[i], err = r.ids(gr); err != nil {
			t.Fatalf("%s: ids(%x): %v", step, gr, err)
		}
	}
	for i, gr := range ranges {
		got := read[i]
		// Every row that holds a 4-gram of gr, and others only when their
		// postings are stale (a removed row's, until a merge drops them).
		want := m.ids(gr)
		wanted := make(map[int64]bool, len(want))
		for _, k := range want {
			wanted[k] = true
		}
		extra := 0
		for _, k := range got {
			if !wanted[k] {
				if !stale[rowOf(k)] {
					t.Fatalf("%s: ids(%x) names %d, which does not hold it and is not stale", step, gr, rowOf(k))
				}
				extra++
			}
		}
		if len(got)-extra != len(want) {
			t.Fatalf("%s: ids(%x) = %v, want %v", step, gr, got, want)
		}
		staleNamed += extra
		// A stream of gr and another range gives the keys both hold.
		j := rng.Intn(len(ranges))
		other := ranges[j]
		both := make(map[int64]bool, len(read[j]))
		for _, k := range read[j] {
			both[k] = true
		}
		var inter []int64
		for _, k := range got {
			if both[k] {
				inter = append(inter, k)
			}
		}
		st, err := r.stream([]gramRange{gr, other})
		if err != nil {
			t.Fatal(err)
		}
		var streamed []int64
		for k, ok := st.next(); ok; k, ok = st.next() {
			streamed = append(streamed, k)
		}
		if err := st.err(); err != nil || !slices.Equal(streamed, inter) {
			t.Fatalf("%s: stream(%x, %x) = %v, %v; want %v", step, gr, other, streamed, err, inter)
		}
		for k := range min(3, len(want)) {
			id := rowOf(want[rng.Intn(len(want))])
			if k == 0 {
				id = rowOf(want[len(want)-1]) // the end of its lists
			}
			if ok, err := r.has([]gramRange{gr}, id); err != nil || !ok {
				t.Fatalf("%s: has(%x, %d) = %v, %v", step, gr, id, ok, err)
			}
		}
	}
	return staleNamed
}

// gramSpace keeps the random 4-grams few, so that rows share them and
// lists are long enough to span blocks.
const gramSpace = 3000

// TestListsMatchModel's sizes: at most listRows rows a transaction, fewer
// than listGrams 4-grams a row. Enough for segments of several blocks and
// merges two levels up (the test checks that it got them); the lookups,
// not the writes, are what cost (a union of every list in a range).
const (
	listRows  = 60
	listGrams = 80
)

// TestListsMatchModel writes random rows in random transactions (ids out
// of order, compactions' negative ids, large lists that fill several
// blocks), removes random sessions' rows, merges level by level and all at
// once, and after each step compares every list looked up with what was
// written. It fails if the random writes did not reach each of those
// cases: a segment of several blocks, a merge two levels up, a removed
// row's stale postings named by a lookup, an id given again.
func TestListsMatchModel(t *testing.T) {
	ctx := context.Background()
	for seed := int64(1); seed <= 2; seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) {
			rng := rand.New(rand.NewSource(seed))
			db := listsDB(t)
			m := model{}
			next := int64(1)
			var removed []int64
			reused, staleNamed, compactions, maxBlocks, maxLevel := 0, 0, 0, 0, 0
			for round := range 24 {
				var p pending
				writeTx(t, db, func(tx *sql.Tx) error {
					for range 1 + rng.Intn(listRows) {
						id := next
						next++
						if rng.Intn(20) == 0 {
							id = -id // a compaction
						}
						if rng.Intn(4) == 0 && len(removed) > 0 { // an id given again after its row was removed
							k := rng.Intn(len(removed))
							id = removed[k]
							removed = slices.Delete(removed, k, k+1)
							reused++
						}
						var grams []uint32
						seen := map[uint32]bool{}
						for range rng.Intn(listGrams) {
							g := uint32(rng.Intn(gramSpace))
							if rng.Intn(10) == 0 {
								g = uint32(rng.Int63n(noGram))
							}
							if !seen[g] {
								seen[g] = true
								grams = append(grams, g)
							}
						}
						if _, ok := m[id]; ok || len(grams) == 0 {
							continue
						}
						m[id] = grams
						p.add(id, grams)
						if id < 0 {
							compactions++
						}
						if _, err := tx.Exec("INSERT INTO docs(id, session) VALUES (?, ?)", id, id%7); err != nil {
							return err
						}
					}
					if err := p.flush(ctx, tx); err != nil {
						return err
					}
					if round%7 == 6 { // remove a session's rows
						s := rng.Int63n(7)
						if err := markGone(ctx, tx, "(?)", []any{s}); err != nil {
							return err
						}
						if _, err := tx.Exec("DELETE FROM docs WHERE session = ?", s); err != nil {
							return err
						}
						for id := range m {
							if id%7 == s {
								delete(m, id)
								removed = append(removed, id)
							}
						}
					}
					return autoMerge(ctx, tx, 4)
				})
				step := fmt.Sprintf("round %d", round)
				// Removed rows may still be named (see postings.go) until a
				// merge drops them; compare with the model plus those.
				staleNamed += checkLists(t, db, m, rng, step)
				var blocks, level int
				if err := db.QueryRow("SELECT (SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM blocks GROUP BY seg)), (SELECT COALESCE(MAX(level), 0) FROM segs)").Scan(&blocks, &level); err != nil {
					t.Fatal(err)
				}
				maxBlocks, maxLevel = max(maxBlocks, blocks), max(maxLevel, level)
			}
			writeTx(t, db, func(tx *sql.Tx) error { return mergeAll(ctx, tx) })
			var segs, gone int
			if err := db.QueryRow("SELECT (SELECT COUNT(*) FROM segs), (SELECT COUNT(*) FROM gone)").Scan(&segs, &gone); err != nil {
				t.Fatal(err)
			}
			if segs != 1 || gone != 0 {
				t.Errorf("after mergeAll: %d segments, %d stale rows, want 1 and 0", segs, gone)
			}
			checkLists(t, db, m, rng, "merged")
			// What the random writes must have reached, or the test covers less
			// than it says.
			for _, c := range []struct {
				what     string
				got, min int
			}{
				{"ids given again", reused, 1},
				{"compactions (negative ids)", compactions, 1},
				{"stale keys named by a lookup", staleNamed, 1},
				{"blocks of the largest segment", maxBlocks, 3},
				{"level of the highest merged segment", maxLevel, 2},
			} {
				if c.got < c.min {
					t.Errorf("%s: %d, want at least %d: the test does not cover it", c.what, c.got, c.min)
				}
			}
			t.Logf("ids given again %d, compactions %d, stale keys named %d, largest segment %d blocks, highest level %d",
				reused, compactions, staleNamed, maxBlocks, maxLevel)
		})
	}
}

// TestDamagedBlock: a block whose bytes changed is reported as damage
// (ErrDamaged), never read as other ids, and never panics.
func TestDamagedBlock(t *testing.T) {
	ctx := context.Background()
	db := listsDB(t)
	var p pending
	for id := int64(1); id <= 2000; id++ {
		p.add(id, []uint32{7, uint32(id % 50), 1000 + uint32(id%3)})
	}
	writeTx(t, db, func(tx *sql.Tx) error { return p.flush(ctx, tx) })
	var first int64
	var orig []byte
	if err := db.QueryRow("SELECT first, data FROM blocks ORDER BY first LIMIT 1").Scan(&first, &orig); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewSource(1))
	for i := range 200 {
		b := slices.Clone(orig)
		switch i % 3 {
		case 0:
			b[rng.Intn(len(b))] ^= byte(1 + rng.Intn(255))
		case 1:
			b = b[:rng.Intn(len(b))]
		default:
			b = append(b, byte(rng.Intn(256)))
		}
		if _, err := db.Exec("UPDATE blocks SET data = ? WHERE first = ?", b, first); err != nil {
			t.Fatal(err)
		}
		r, err := newReader(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.ids(gramRange{0, noGram - 1})
		r.close()
		if !errors.Is(err, ErrDamaged) {
			t.Fatalf("change %d: ids = %v, want ErrDamaged", i, err)
		}
	}
}

// TestSortKeys: the radix sort orders by 4-gram and keeps the rows' order
// within each, as the small sort does.
func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 100, 1 << 12, 50_000} {
		var p pending
		for d := range n / 10 {
			var grams []uint32
			for range 10 {
				grams = append(grams, rng.Uint32())
			}
			p.add(int64(d), grams)
		}
		want := slices.Clone(p.keys)
		slices.Sort(want)
		p.sortKeys()
		if !slices.Equal(p.keys, want) {
			t.Errorf("%d keys: not sorted", n)
		}
	}
}

// FuzzBlockEntries: any block whose checksum matches (the fuzzer's bytes
// with their CRC appended) is read without panicking: its entries, their
// lists and the searches through them either decode or report ErrDamaged.
func FuzzBlockEntries(f *testing.F) {
	var p pending
	for id := int64(1); id <= 50; id++ {
		p.add(id, []uint32{7, uint32(id % 5), 1000})
	}
	db := listsDB(f)
	if err := indexdb.WriteTx(context.Background(), db, func(tx *sql.Tx) error { return p.flush(context.Background(), tx) }); err != nil {
		f.Fatal(err)
	}
	var seed []byte
	if err := db.QueryRow("SELECT data FROM blocks LIMIT 1").Scan(&seed); err != nil {
		f.Fatal(err)
	}
	f.Add(seed[:len(seed)-4], uint32(0))
	f.Add([]byte{0, 1, 1, 2}, uint32(5))
	f.Fuzz(func(t *testing.T, body []byte, first uint32) {
		data := binary.LittleEndian.AppendUint32(slices.Clone(body), crc32.Checksum(body, crcTable))
		err := blockEntries(first, data, func(e entry) bool {
			ids, err := decodeIDs(nil, e.enc, e.n)
			if err != nil && !errors.Is(err, ErrDamaged) {
				t.Fatalf("decodeIDs: %v", err)
			}
			if err == nil && !slices.IsSortedFunc(ids, func(a, b int64) int { return cmp.Compare(b, a) }) {
				t.Fatalf("decodeIDs gave %v, not descending", ids)
			}
			if _, err := containsID(e.enc, e.n, 3); err != nil && !errors.Is(err, ErrDamaged) {
				t.Fatalf("containsID: %v", err)
			}
			u := &unionIter{lists: []*listIter{{enc: e.enc, left: e.n}}}
			u.start()
			a := &andIter{parts: []*unionIter{u}}
			for _, ok := a.next(); ok; _, ok = a.next() {
			}
			return true
		})
		if err != nil && !errors.Is(err, ErrDamaged) {
			t.Fatalf("blockEntries: %v", err)
		}
	})
}

// TestJoinDisjoint: lists of disjoint spans of ids, each after the next,
// join into exactly the encoding of all their ids; overlapping spans and
// a list that does not decode as its n ids are left to the id-by-id merge.
func TestJoinDisjoint(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := range 200 {
		var all []int64
		var parts []listPart
		id := int64(1)<<40 + rng.Int63n(1000)
		if round%2 == 1 {
			id += compactionKeys // compactions' keys, above the events'
		}
		for range 1 + rng.Intn(6) {
			var ids []int64
			for range 1 + rng.Intn(300) {
				ids = append(ids, id)
				id -= 1 + rng.Int63n(1<<uint(rng.Intn(21))) // stays above 1<<39
			}
			all = append(all, ids...)
			parts = append(parts, listPart{n: len(ids), enc: encodeIDs(nil, ids)})
		}
		got, n, ok := joinDisjoint(nil, parts)
		if want := encodeIDs(nil, all); !ok || n != len(all) || !bytes.Equal(got, want) {
			t.Fatalf("round %d: joinDisjoint = %x, %d, %v; want %x, %d", round, got, n, ok, want, len(all))
		}
	}
	a, b := []int64{90, 50, 10}, []int64{60, 40}
	if _, _, ok := joinDisjoint(nil, []listPart{{n: 3, enc: encodeIDs(nil, a)}, {n: 2, enc: encodeIDs(nil, b)}}); ok {
		t.Error("joined overlapping spans")
	}
	c := []int64{50, 20} // an id in two segments (given again): merged, not joined
	if _, _, ok := joinDisjoint(nil, []listPart{{n: 3, enc: encodeIDs(nil, []int64{90, 70, 50})}, {n: 2, enc: encodeIDs(nil, c)}}); ok {
		t.Error("joined lists that share an id")
	}
	if _, _, ok := joinDisjoint(nil, []listPart{{n: 3, enc: encodeIDs(nil, b)}}); ok {
		t.Error("joined a list of 2 ids said to hold 3")
	}
	if _, _, ok := joinDisjoint(nil, []listPart{{n: 1, enc: encodeIDs(nil, b)}}); ok {
		t.Error("joined a list with bytes left after its 1 id")
	}
}

// FuzzLastID: lastID agrees with listIter on any bytes: the same last id
// when the list decodes as exactly its ids, failure otherwise.
func FuzzLastID(f *testing.F) {
	f.Add(encodeIDs(nil, []int64{1 << 40, 1<<40 - 5, 3}), 3)
	f.Add(encodeIDs(nil, []int64{compactionKeys + 9, 1}), 2)
	f.Add([]byte{0x02, 0x80, 0x00}, 2)
	f.Add([]byte{0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 2)
	f.Add([]byte{0x02, 0x01, 0x01}, 2)
	f.Fuzz(func(t *testing.T, enc []byte, n int) {
		if n < 1 || n > 1<<16 {
			return
		}
		it := listIter{enc: enc, left: n}
		var want int64
		count := 0
		for it.next() {
			want, count = it.cur, count+1
		}
		wantOK := it.err == nil && count == n && len(it.enc) == 0
		first, k := binary.Varint(enc)
		if k <= 0 {
			if wantOK {
				t.Fatalf("listIter read %x, Varint did not", enc)
			}
			return
		}
		got, ok := lastID(first, enc[k:], n-1)
		if ok != wantOK || ok && got != want {
			t.Fatalf("lastID(%x, %d) = %d, %v; listIter: %d, %v", enc, n, got, ok, want, wantOK)
		}
	})
}
