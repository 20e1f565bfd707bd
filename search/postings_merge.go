package search

// Merging segments, and dropping the postings of removed rows (gone).

import (
	"context"
	"database/sql"
	"encoding/binary"
	"slices"

	"github.com/lazuli-app/lazuli/indexdb"
)

// mergeRuns returns ids, made of descending runs that begin at the
// offsets runs, as one descending list without repeats, merging pairs of
// runs until one is left (each list of a merge is descending; together
// they are when their spans of ids do not overlap, and then nothing moves).
// scratch is reused between calls.
func mergeRuns(ids []int64, runs []int, scratch []int64) ([]int64, []int64) {
	if strictlyDescending(ids) {
		return ids, scratch
	}
	bounds := append(runs, len(ids))
	for len(bounds) > 2 {
		if cap(scratch) < len(ids) {
			scratch = make([]int64, len(ids))
		}
		out := scratch[:0]
		next := []int{0}
		for i := 0; i+1 < len(bounds); i += 2 {
			a := ids[bounds[i]:bounds[i+1]]
			var b []int64
			if i+2 < len(bounds) {
				b = ids[bounds[i+1]:bounds[i+2]]
			}
			for len(a) > 0 && len(b) > 0 {
				if a[0] >= b[0] {
					out, a = append(out, a[0]), a[1:]
				} else {
					out, b = append(out, b[0]), b[1:]
				}
			}
			out = append(append(out, a...), b...)
			next = append(next, len(out))
		}
		ids, scratch, bounds = out, ids, next
	}
	return slices.Compact(ids), scratch
}

// segInfo is a segment a merge reads.
type segInfo struct {
	id    int64
	level int
}

// listSegs returns the segments, oldest first.
func listSegs(ctx context.Context, q indexdb.Querier) ([]segInfo, error) {
	rows, err := q.QueryContext(ctx, "SELECT id, level FROM segs ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []segInfo
	for rows.Next() {
		var s segInfo
		if err := rows.Scan(&s.id, &s.level); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// autoMerge merges, in tx, the segments of any level that holds fanIn or
// more into one of the next level, until no level does.
func autoMerge(ctx context.Context, tx *sql.Tx, fanIn int) error {
	for {
		segs, err := listSegs(ctx, tx)
		if err != nil {
			return err
		}
		byLevel := map[int][]segInfo{}
		merged := false
		for _, s := range segs {
			byLevel[s.level] = append(byLevel[s.level], s)
		}
		for level, in := range byLevel {
			if len(in) >= fanIn {
				if err := mergeSegs(ctx, tx, in, level+1); err != nil {
					return err
				}
				merged = true
				break
			}
		}
		if !merged {
			return nil
		}
	}
}

// mergeAll merges every segment into one, in tx.
func mergeAll(ctx context.Context, tx *sql.Tx) error {
	segs, err := listSegs(ctx, tx)
	if err != nil || len(segs) == 0 {
		return err
	}
	level := 0
	for _, s := range segs {
		level = max(level, s.level)
	}
	if len(segs) == 1 {
		var stale int
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM gone").Scan(&stale); err != nil || stale == 0 {
			return err
		}
	}
	return mergeSegs(ctx, tx, segs, level+1)
}

// selectPage reads a page of a segment's blocks (see segCursor.page).
const selectPage = "SELECT first, data FROM blocks WHERE seg = ? AND first > ? ORDER BY first LIMIT ?"

// mergeSegs writes the lists of the segments in as one new segment of
// level, leaving out the postings gone says are stale, and deletes them.
func mergeSegs(ctx context.Context, tx *sql.Tx, in []segInfo, level int) error {
	stale, err := staleIDs(ctx, tx)
	if err != nil {
		return err
	}
	w, err := newSegWriter(ctx, tx, level)
	if err != nil {
		return err
	}
	defer w.close()
	// Every cursor pages through its segment with the same two statements,
	// prepared once: preparing them for each page was a third of a merge.
	del, err := tx.PrepareContext(ctx, "DELETE FROM blocks WHERE seg = ? AND first <= ?")
	if err != nil {
		return err
	}
	defer del.Close()
	sel, err := tx.PrepareContext(ctx, selectPage)
	if err != nil {
		return err
	}
	defer sel.Close()
	m := listMerger{w: w, stale: stale}
	if err := eachGroup(ctx, sel, del, in, m.write); err != nil {
		return err
	}
	if err := w.finish(); err != nil {
		return err
	}
	for _, s := range in {
		if _, err := tx.ExecContext(ctx, "DELETE FROM blocks WHERE seg = ?", s.id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM segs WHERE id = ?", s.id); err != nil {
			return err
		}
	}
	return dropGone(ctx, tx)
}

// A listPart is one segment's list of a 4-gram.
type listPart struct {
	seg int64
	n   int
	enc []byte
}

// eachGroup reads the lists of the segments in, with sel and del (see
// segCursor), and calls fn with each 4-gram's lists in order of 4-grams,
// each 4-gram's in descending order of their first ids (parts is reused
// after fn).
func eachGroup(ctx context.Context, sel, del *sql.Stmt, in []segInfo, fn func(gram uint32, parts []listPart) error) error {
	h := make(mergeHeap, 0, len(in))
	limit := min(cursorBytes, max(blockBytes, mergeBytes/len(in)))
	for _, s := range in {
		c := &segCursor{ctx: ctx, sel: sel, del: del, seg: s.id, limit: limit, after: -1}
		ok, err := c.next()
		if err != nil {
			return err
		}
		if ok {
			h = append(h, c)
		}
	}
	h.init()
	var group []*segCursor
	var parts []listPart
	for len(h) > 0 {
		g := h[0].cur.gram
		group, parts = group[:0], parts[:0]
		for len(h) > 0 && h[0].cur.gram == g {
			c := h.pop()
			group = append(group, c)
			parts = append(parts, listPart{c.seg, c.cur.n, c.cur.enc})
		}
		if err := fn(g, parts); err != nil {
			return err
		}
		for _, c := range group {
			ok, err := c.next()
			if err != nil {
				return err
			}
			if ok {
				h.push(c)
			}
		}
	}
	return nil
}

// listMerger joins a 4-gram's lists and writes them with w, leaving out
// the postings stale says are stale.
type listMerger struct {
	w            *segWriter
	stale        map[int64]int64
	ids, scratch []int64
	runs         []int
	joined       []byte // joinDisjoint's output
}

// joinDisjoint appends to dst the encoding of the lists parts joined, when
// each part's ids all come after the next part's (a first build's
// segments hold disjoint spans of ids, newest last, given first here):
// the parts' bytes as they are, but for each later part's first id, which
// becomes its difference from the previous part's last. Only the ids are
// read, none decoded into a list, merged or encoded again. ok is false
// when two parts overlap or one does not decode as its n ids; write then
// merges them id by id (and reports the damage).
func joinDisjoint(dst []byte, parts []listPart) (out []byte, n int, ok bool) {
	var last int64
	for i, p := range parts {
		first, k := binary.Varint(p.enc)
		if k <= 0 {
			return dst, 0, false
		}
		if i == 0 {
			dst = append(dst, p.enc...)
		} else {
			if first >= last {
				return dst, 0, false // overlapping spans
			}
			dst = binary.AppendUvarint(dst, uint64(last-first))
			dst = append(dst, p.enc[k:]...)
		}
		if last, ok = lastID(first, p.enc[k:], p.n-1); !ok {
			return dst, 0, false
		}
		n += p.n
	}
	return dst, n, true
}

// lastID returns the last id of a list whose first id is first and whose
// other n ids are the differences enc encodes, checking what listIter
// checks (each difference at least 1, no id past the smallest key, enc
// exactly n differences) in one tight loop over its bytes.
func lastID(first int64, enc []byte, n int) (int64, bool) {
	cur, d, shift := first, uint64(0), uint(0)
	for _, c := range enc {
		if shift == 63 && c > 1 {
			return 0, false // more than 64 bits
		}
		d |= uint64(c&0x7f) << shift
		if c >= 0x80 {
			if shift += 7; shift > 63 {
				return 0, false
			}
			continue
		}
		if n--; n < 0 || d == 0 || d >= 1<<63 || cur-int64(d) >= cur {
			return 0, false
		}
		cur, d, shift = cur-int64(d), 0, 0
	}
	return cur, n == 0 && shift == 0
}

// write writes the 4-gram's lists parts, given in descending order of
// their first ids: lists of disjoint spans of ids (a build's segments)
// then decode already in order.
func (m *listMerger) write(gram uint32, parts []listPart) error {
	if len(m.stale) == 0 {
		if len(parts) == 1 {
			return m.w.addRaw(gram, parts[0].n, parts[0].enc)
		}
		var n int
		var ok bool
		if m.joined, n, ok = joinDisjoint(m.joined[:0], parts); ok {
			return m.w.addRaw(gram, n, m.joined)
		}
	}
	ids, runs := m.ids[:0], m.runs[:0]
	var err error
	for _, p := range parts {
		start := len(ids)
		runs = append(runs, start)
		if ids, err = decodeIDs(ids, p.enc, p.n); err != nil {
			return err
		}
		if len(m.stale) > 0 {
			kept := ids[:start]
			for _, id := range ids[start:] {
				if seg, ok := m.stale[rowOf(id)]; !ok || p.seg > seg {
					kept = append(kept, id)
				}
			}
			ids = kept
		}
	}
	ids, m.scratch = mergeRuns(ids, runs, m.scratch)
	m.ids, m.runs = ids, runs
	if len(ids) == 0 {
		return nil
	}
	return m.w.add(gram, ids)
}

// dropGone forgets the stale postings no segment holds any longer.
func dropGone(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "DELETE FROM gone WHERE seg < COALESCE((SELECT MIN(id) FROM segs), 1<<62)")
	return err
}

// staleIDs reads gone: the newest segment each stale row's postings are
// stale up to.
func staleIDs(ctx context.Context, tx *sql.Tx) (map[int64]int64, error) {
	rows, err := tx.QueryContext(ctx, "SELECT id, MAX(seg) FROM gone GROUP BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64]int64{}
	for rows.Next() {
		var id, seg int64
		if err := rows.Scan(&id, &seg); err != nil {
			return nil, err
		}
		out[id] = seg
	}
	return out, rows.Err()
}

// segCursor reads one segment's entries in order, a page of blocks at a
// time (each page's statement is done before the merge writes).
type segCursor struct {
	ctx     context.Context
	sel     *sql.Stmt // selectPage
	del     *sql.Stmt // frees the blocks read: DELETE … WHERE seg = ? AND first <= ?
	seg     int64
	limit   int   // the bytes of blocks a page stops at
	after   int64 // the first 4-gram of the last block read; −1 before any
	blocks  [][]byte
	firsts  []uint32
	entries []entry
	cur     entry
	first   int64 // cur's first id
}

// A cursor reads up to cursorPage blocks at a time, and stops once it
// holds cursorBytes, or its share of mergeBytes when a merge reads from
// more than 512 segments. Smaller pages cost a query and a delete each: a
// 4 MiB share made the 1 GB store's build (two merges of 512 segments)
// 74 s instead of 56 s.
const (
	cursorPage  = 8
	cursorBytes = 32 << 10
	mergeBytes  = 16 << 20
)

func (c *segCursor) next() (bool, error) {
	for len(c.entries) == 0 {
		if len(c.blocks) == 0 {
			if err := c.page(); err != nil {
				return false, err
			}
			if len(c.blocks) == 0 {
				return false, nil
			}
		}
		data, first := c.blocks[0], c.firsts[0]
		c.blocks, c.firsts = c.blocks[1:], c.firsts[1:]
		if err := blockEntries(first, data, func(e entry) bool {
			c.entries = append(c.entries, e)
			return true
		}); err != nil {
			return false, err
		}
	}
	c.cur = c.entries[0]
	c.entries = c.entries[1:]
	c.first = firstID(c.cur.enc)
	return true, nil
}

func (c *segCursor) page() error {
	rows, err := c.sel.QueryContext(c.ctx, c.seg, c.after, cursorPage)
	if err != nil {
		return err
	}
	defer rows.Close()
	size := 0
	for rows.Next() {
		var first int64
		var data []byte
		if err := rows.Scan(&first, &data); err != nil {
			return err
		}
		if first < 0 || first > 1<<32-1 || first <= c.after {
			return errBadBlock
		}
		c.blocks = append(c.blocks, data)
		c.firsts = append(c.firsts, uint32(first))
		c.after = first
		if size += len(data); size >= c.limit {
			break // a long list is a large block: memory stays bounded
		}
	}
	if err := rows.Err(); err != nil || len(c.blocks) == 0 {
		return err
	}
	rows.Close()
	// Their pages are free for what the merge writes next, so a merge
	// does not grow the file by what it rewrites.
	_, err = c.del.ExecContext(c.ctx, c.seg, c.after)
	return err
}

// mergeHeap orders cursors by their entry's 4-gram, then by the first id
// of its list, descending. It is a binary heap written for the type: with
// container/heap's interface calls, popping was a fifth of a merge.
type mergeHeap []*segCursor

func (h mergeHeap) less(i, j int) bool {
	a, b := h[i], h[j]
	return a.cur.gram < b.cur.gram || a.cur.gram == b.cur.gram && a.first > b.first
}

func (h mergeHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *mergeHeap) push(c *segCursor) {
	*h = append(*h, c)
	s := *h
	for i := len(s) - 1; i > 0; {
		parent := (i - 1) / 2
		if !s.less(i, parent) {
			break
		}
		s[i], s[parent] = s[parent], s[i]
		i = parent
	}
}

func (h *mergeHeap) pop() *segCursor {
	s := *h
	c := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s[last] = nil
	*h = s[:last]
	h.down(0)
	return c
}

func (h mergeHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		least := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			least = r
		}
		if !h.less(least, i) {
			return
		}
		h[i], h[least] = h[least], h[i]
		i = least
	}
}

// markGone records, in tx, that the postings of the rows docs holds for
// the sessions in list (an SQL list with its args) are stale in every
// segment there is now.
func markGone(ctx context.Context, tx *sql.Tx, list string, args []any) error {
	_, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO gone(id, seg) SELECT id, (SELECT COALESCE(MAX(id), 0) FROM segs) FROM docs WHERE session IN "+list, args...)
	return err
}

// isGone reports whether the postings of row id are stale in some segment.
func isGone(ctx context.Context, tx *sql.Tx, id int64) (bool, error) {
	var n int
	err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM gone WHERE id = ?", id).Scan(&n)
	return n > 0, err
}
