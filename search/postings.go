package search

import (
	"cmp"
	"container/heap"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"slices"

	"github.com/lazuli-app/lazuli/indexdb"
)

// The index's inverted lists: for each 4-gram (see grams.go), the ids of
// the rows whose text holds it. They live in the index file as segments,
// each written by one transaction (or by a merge of others) in blocks of
// about blockBytes:
//
//	segs(id, level)               one row per segment
//	blocks(seg, first, data)      the segment's lists, in 4-gram order;
//	                              first is the block's first 4-gram
//
// A block is a run of entries, then the CRC-32C of the bytes before it
// (so a damaged block is found when it is read):
//
//	uvarint(gram − previous gram, or − first for the block's first entry)
//	uvarint(number of ids)  uvarint(bytes of ids)
//	ids, descending: zigzag varint of the first, then uvarint of each
//	difference (≥ 1)
//
// The ids in the lists are keys (see key): the events' ids, and compaction
// summaries above every event, so that a list read from its start gives
// the compactions, then the events newest first, which is the order
// results come in: a search reads no more of a long list than its
// results need.
//
// Why not FTS5, which the index used until format 5: it spends almost all
// of a build adding each distinct 4-gram of each row to its hash table, on
// one core (about 190 ns a posting in the pure-Go SQLite; see BENCHMARKS.md).
// Here a transaction's postings are gathered in a flat slice of 64-bit
// keys, sorted by a radix sort and written as a few large blocks.
//
// A row removed from the index (its session deleted) keeps its postings
// in the segments that hold it until a merge drops them: gone(id, seg)
// says that the postings of row id in segments up to seg are stale. The
// lists may therefore name rows that are no longer indexed; every
// candidate is checked against the store anyway.
const postingsSchema = `
CREATE TABLE segs(id INTEGER PRIMARY KEY, level INTEGER NOT NULL);
CREATE TABLE blocks(seg INTEGER NOT NULL, first INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY(seg, first)) WITHOUT ROWID;
CREATE TABLE gone(id INTEGER NOT NULL, seg INTEGER NOT NULL, PRIMARY KEY(id, seg)) WITHOUT ROWID;
`

const (
	// blockBytes is the size a block closes at (a longer list makes a
	// longer block).
	blockBytes = 8 << 10
	// pendingPostings is how many postings a transaction gathers before it
	// writes them as a segment (16 bytes each while sorting: 4 MiB).
	pendingPostings = 1 << 18
	// mergeFanIn segments of one level are merged into one of the next.
	mergeFanIn = 8
	// buildFanIn is mergeFanIn while a first build runs: it ends with a
	// merge of everything (optimizeOnce), so merging on the way would
	// rewrite postings for nothing; this bounds what a search during the
	// build reads.
	buildFanIn = 64
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// compactionKeys is where the keys of compaction summaries begin: a
// summary's row in docs is minus its compactions.id, its key
// compactionKeys plus its compactions.id.
const compactionKeys = 1 << 62

// key returns the key the lists hold for the docs row id.
func key(id int64) int64 {
	if id < 0 {
		return compactionKeys - id
	}
	return id
}

// rowOf returns the docs row of key k.
func rowOf(k int64) int64 {
	if k >= compactionKeys {
		return compactionKeys - k
	}
	return k
}

// errBadBlock reports a block that does not decode: the file is damaged.
var errBadBlock = fmt.Errorf("%w: a block of the index does not decode", ErrDamaged)

// pending gathers the postings of one transaction.
type pending struct {
	ids  []int64  // the rows' keys, in the order added
	keys []uint64 // gram<<32 | index of the row in ids
	tmp  []uint64 // the radix sort's other buffer
}

func (p *pending) add(id int64, grams []uint32) {
	if len(grams) == 0 {
		return
	}
	if p.keys == nil {
		p.keys = make([]uint64, 0, pendingPostings+pendingPostings/4)
	}
	d := uint64(len(p.ids))
	p.ids = append(p.ids, key(id))
	for _, g := range grams {
		p.keys = append(p.keys, uint64(g)<<32|d)
	}
}

func (p *pending) empty() bool { return len(p.keys) == 0 }

func (p *pending) reset() {
	p.ids, p.keys = p.ids[:0], p.keys[:0]
}

// sortKeys sorts p.keys by their 4-gram, keeping the order of the rows
// within each: an LSD radix sort of the upper 32 bits in three passes of
// 11 bits (whose counts stay in the first-level cache).
func (p *pending) sortKeys() {
	n := len(p.keys)
	if n < 1<<12 {
		slices.Sort(p.keys) // the rows' order within a gram is restored by the caller
		return
	}
	if cap(p.tmp) < n {
		p.tmp = make([]uint64, n)
	}
	src, dst := p.keys, p.tmp[:n]
	for shift := uint(32); shift < 64; shift += 11 {
		var count [1 << 11]int
		for _, k := range src {
			count[(k>>shift)&(1<<11-1)]++
		}
		sum := 0
		for i, c := range count {
			count[i] = sum
			sum += c
		}
		for _, k := range src {
			b := (k >> shift) & (1<<11 - 1)
			dst[count[b]] = k
			count[b]++
		}
		src, dst = dst, src
	}
	p.keys, p.tmp = src, dst
}

// flush writes p as a new segment of level 0 in tx and empties p.
func (p *pending) flush(ctx context.Context, tx *sql.Tx) error {
	if p.empty() {
		return nil
	}
	p.sortKeys()
	w, err := newSegWriter(ctx, tx, 0)
	if err != nil {
		return err
	}
	defer w.close()
	var list []int64
	for i := 0; i < len(p.keys); {
		g := uint32(p.keys[i] >> 32)
		end := i + 1
		for end < len(p.keys) && uint32(p.keys[end]>>32) == g {
			end++
		}
		// Rows mostly come in ascending order: read backwards, descending.
		list = list[:0]
		for j := end - 1; j >= i; j-- {
			list = append(list, p.ids[uint32(p.keys[j])])
		}
		list = descending(list)
		if err := w.add(g, list); err != nil {
			return err
		}
		i = end
	}
	if err := w.finish(); err != nil {
		return err
	}
	p.reset()
	return nil
}

// segWriter writes one segment's blocks.
type segWriter struct {
	ctx   context.Context
	seg   int64
	ins   *sql.Stmt
	buf   []byte
	ids   []byte
	first uint32
	prev  uint32
	open  bool // buf holds a block's entries
}

func newSegWriter(ctx context.Context, tx *sql.Tx, level int) (*segWriter, error) {
	res, err := tx.ExecContext(ctx, "INSERT INTO segs(id, level) VALUES ((SELECT COALESCE(MAX(id), 0) + 1 FROM segs), ?)", level)
	if err != nil {
		return nil, err
	}
	seg, err := res.LastInsertId()
	if err != nil {
		return nil, err
	}
	ins, err := tx.PrepareContext(ctx, "INSERT INTO blocks(seg, first, data) VALUES (?, ?, ?)")
	if err != nil {
		return nil, err
	}
	return &segWriter{ctx: ctx, seg: seg, ins: ins}, nil
}

func (w *segWriter) close() { _ = w.ins.Close() }

// add appends the list of gram (ascending ids, at least one), grams in
// ascending order.
func (w *segWriter) add(gram uint32, ids []int64) error {
	w.ids = encodeIDs(w.ids[:0], ids)
	return w.addRaw(gram, len(ids), w.ids)
}

// addRaw appends a list already encoded.
func (w *segWriter) addRaw(gram uint32, n int, enc []byte) error {
	if !w.open {
		w.buf, w.first, w.prev, w.open = w.buf[:0], gram, gram, true
	}
	w.buf = binary.AppendUvarint(w.buf, uint64(gram-w.prev))
	w.buf = binary.AppendUvarint(w.buf, uint64(n))
	w.buf = binary.AppendUvarint(w.buf, uint64(len(enc)))
	w.buf = append(w.buf, enc...)
	w.prev = gram
	if len(w.buf) >= blockBytes {
		return w.writeBlock()
	}
	return nil
}

func (w *segWriter) writeBlock() error {
	if !w.open {
		return nil
	}
	w.buf = binary.LittleEndian.AppendUint32(w.buf, crc32.Checksum(w.buf, crcTable))
	w.open = false
	_, err := w.ins.ExecContext(w.ctx, w.seg, int64(w.first), w.buf)
	return err
}

func (w *segWriter) finish() error { return w.writeBlock() }

// encodeIDs appends the encoding of descending ids to b.
func encodeIDs(b []byte, ids []int64) []byte {
	b = binary.AppendVarint(b, ids[0])
	for i := 1; i < len(ids); i++ {
		b = binary.AppendUvarint(b, uint64(ids[i-1]-ids[i]))
	}
	return b
}

// decodeIDs appends the n ids enc encodes to dst; errBadBlock when enc is
// not exactly that.
func decodeIDs(dst []int64, enc []byte, n int) ([]int64, error) {
	it := listIter{enc: enc, left: n}
	for it.next() {
		dst = append(dst, it.cur)
	}
	if it.err == nil && len(it.enc) != 0 {
		it.err = errBadBlock
	}
	return dst, it.err
}

// firstID returns the first id of an encoded list (0 when it does not
// decode: decodeIDs then says so).
func firstID(enc []byte) int64 {
	v, _ := binary.Varint(enc)
	return v
}

func strictlyDescending(ids []int64) bool {
	for i := 1; i < len(ids); i++ {
		if ids[i] >= ids[i-1] {
			return false
		}
	}
	return true
}

// descending returns ids sorted in descending order without repeats,
// sorting only when they are not already.
func descending(ids []int64) []int64 {
	if !strictlyDescending(ids) {
		slices.SortFunc(ids, func(a, b int64) int { return cmp.Compare(b, a) })
		ids = slices.Compact(ids)
	}
	return ids
}

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

// containsID reports whether the list enc of n ids holds id, decoding no
// further than it.
func containsID(enc []byte, n int, id int64) (bool, error) {
	it := listIter{enc: enc, left: n}
	for it.next() {
		if it.cur <= id {
			return it.cur == id, nil
		}
	}
	return false, it.err
}

// listIter reads an encoded list, id by id.
type listIter struct {
	enc  []byte
	left int   // ids not read yet
	cur  int64 // the id read last
	read bool  // the first has been read
	err  error
}

// next reads the next id into cur; false at the end or on an error (err).
func (it *listIter) next() bool {
	if it.left <= 0 || it.err != nil {
		return false
	}
	if !it.read {
		v, k := binary.Varint(it.enc)
		if k <= 0 {
			it.err = errBadBlock
			return false
		}
		it.cur, it.enc, it.read = v, it.enc[k:], true
	} else {
		d, k := binary.Uvarint(it.enc)
		if k <= 0 || d == 0 || d >= 1<<63 || it.cur-int64(d) >= it.cur {
			it.err = errBadBlock // not descending, or past the smallest key
			return false
		}
		it.cur -= int64(d)
		it.enc = it.enc[k:]
	}
	it.left--
	return true
}

// entry is one list of a block: its 4-gram, how many ids and their
// encoding (a slice of the block).
type entry struct {
	gram uint32
	n    int
	enc  []byte
}

// blockEntries checks a block's CRC and calls fn with each of its
// entries, in order, until fn returns false.
func blockEntries(first uint32, data []byte, fn func(entry) bool) error {
	if len(data) < 4 {
		return errBadBlock
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return errBadBlock
	}
	g := first
	for len(body) > 0 {
		d, k1 := binary.Uvarint(body)
		if k1 <= 0 || d > 1<<32 {
			return errBadBlock
		}
		if d == 0 && len(body) != len(data)-4 || d > 0 && len(body) == len(data)-4 {
			return errBadBlock // the first entry is first; the others ascend
		}
		body = body[k1:]
		n, k2 := binary.Uvarint(body)
		if k2 <= 0 || n == 0 || n > 1<<40 {
			return errBadBlock
		}
		body = body[k2:]
		size, k3 := binary.Uvarint(body)
		if k3 <= 0 || size > uint64(len(body)-k3) {
			return errBadBlock
		}
		body = body[k3:]
		g += uint32(d)
		if !fn(entry{gram: g, n: int(n), enc: body[:size]}) {
			return nil
		}
		body = body[size:]
	}
	return nil
}

// gramRange is what a part of a query looks up: the lists of the 4-grams
// from lo to hi. A 4-gram is a range of one; a term of three bytes is the
// 256 4-grams that begin with it.
type gramRange struct{ lo, hi uint32 }

// gramValue is the 4-gram s (four bytes) as the index keys it.
func gramValue(s string) uint32 {
	return uint32(s[0])<<24 | uint32(s[1])<<16 | uint32(s[2])<<8 | uint32(s[3])
}

// rangeOf returns the gramRange of g, a string of three or four bytes.
func rangeOf(g string) gramRange {
	if len(g) == gramBytes-1 {
		lo := uint32(g[0])<<24 | uint32(g[1])<<16 | uint32(g[2])<<8
		return gramRange{lo, lo | 0xff}
	}
	v := gramValue(g)
	return gramRange{v, v}
}

// reader looks lists up in one read (or write) transaction of the index:
// every lookup of one reader sees the same segments. It keeps the blocks
// it has read, so the 4-grams of one text, which mostly share blocks in a
// small index, cost one read of each.
type reader struct {
	ctx   context.Context
	segs  []int64
	at    *sql.Stmt // the block holding a 4-gram, and the next block's first
	after *sql.Stmt // the first block after a 4-gram
	cache map[int64][]cachedBlock
}

// cachedBlock is a block of a segment that covers the 4-grams from first
// up to next (excluded). A gap before a segment's first block has no data.
type cachedBlock struct {
	first, next int64
	data        []byte
	gap         bool // before the segment's first block: no data
}

const cachedBlocks = 64 // blocks a reader keeps per segment

// querier is a transaction or a connection pool.
type querier interface {
	indexdb.Querier
	PrepareContext(ctx context.Context, query string) (*sql.Stmt, error)
}

func newReader(ctx context.Context, q querier) (*reader, error) {
	segs, err := listSegs(ctx, q)
	if err != nil {
		return nil, err
	}
	r := &reader{ctx: ctx, cache: map[int64][]cachedBlock{}}
	for _, seg := range segs {
		r.segs = append(r.segs, seg.id)
	}
	if r.at, err = q.PrepareContext(ctx, `SELECT first, data, (SELECT MIN(first) FROM blocks WHERE seg = ?1 AND first > ?2)
		FROM blocks WHERE seg = ?1 AND first <= ?2 ORDER BY first DESC LIMIT 1`); err != nil {
		return nil, err
	}
	if r.after, err = q.PrepareContext(ctx, "SELECT MIN(first) FROM blocks WHERE seg = ? AND first > ?"); err != nil {
		_ = r.at.Close()
		return nil, err
	}
	return r, nil
}

func (r *reader) close() {
	_ = r.at.Close()
	_ = r.after.Close()
}

const noGram = 1 << 32 // after every 4-gram

// block returns the block of seg that covers the 4-gram g.
func (r *reader) block(seg, g int64) (cachedBlock, error) {
	for _, b := range r.cache[seg] {
		if b.first <= g && g < b.next {
			return b, nil
		}
	}
	var b cachedBlock
	var next sql.NullInt64
	err := r.at.QueryRowContext(r.ctx, seg, g).Scan(&b.first, &b.data, &next)
	if errors.Is(err, sql.ErrNoRows) {
		// Before the segment's first block.
		b.first, b.data, b.gap = -1, nil, true
		err = r.after.QueryRowContext(r.ctx, seg, g).Scan(&next)
	}
	if err != nil {
		return b, err
	}
	b.next = noGram
	if next.Valid {
		b.next = next.Int64
	}
	if b.first > g || b.next <= g || b.next > noGram {
		return b, errBadBlock
	}
	c := r.cache[seg]
	if len(c) == cachedBlocks {
		c = c[1:]
	}
	r.cache[seg] = append(c, b)
	return b, nil
}

// entries calls fn with each list of a 4-gram in gr, segment by segment.
func (r *reader) entries(gr gramRange, fn func(entry) error) error {
	for _, seg := range r.segs {
		for g := int64(gr.lo); g <= int64(gr.hi); {
			b, err := r.block(seg, g)
			if err != nil {
				return err
			}
			if !b.gap {
				var ferr error
				err := blockEntries(uint32(b.first), b.data, func(e entry) bool {
					if int64(e.gram) >= b.next {
						ferr = errBadBlock // a block's 4-grams end where the next begins
					} else if e.gram > gr.hi {
						return false
					} else if int64(e.gram) >= g {
						ferr = fn(e)
					}
					return ferr == nil
				})
				if err = cmp.Or(err, ferr); err != nil {
					return err
				}
			}
			g = b.next
		}
	}
	return nil
}

// stream returns the keys that hold a 4-gram of every part, descending, as
// they are asked for. It holds the lists it reads, so it outlives the
// transaction.
func (r *reader) stream(parts []gramRange) (*andIter, error) {
	a := &andIter{}
	for _, p := range parts {
		u := &unionIter{}
		err := r.entries(p, func(e entry) error {
			u.lists = append(u.lists, &listIter{enc: e.enc, left: e.n})
			return nil
		})
		if err != nil {
			return nil, err
		}
		u.start()
		a.parts = append(a.parts, u)
	}
	return a, nil
}

// has reports whether row id holds a 4-gram of every part.
func (r *reader) has(parts []gramRange, id int64) (bool, error) {
	id = key(id)
	for _, p := range parts {
		found := false
		err := r.entries(p, func(e entry) error {
			if found {
				return nil
			}
			var err error
			found, err = containsID(e.enc, e.n, id)
			return err
		})
		if err != nil || !found {
			return false, err
		}
	}
	return true, nil
}

// unionIter reads the keys of several lists, descending, each once.
type unionIter struct {
	lists []*listIter // a heap: the largest current key first
	cur   int64
	ok    bool
	err   error
}

func (u *unionIter) Len() int           { return len(u.lists) }
func (u *unionIter) Less(i, j int) bool { return u.lists[i].cur > u.lists[j].cur }
func (u *unionIter) Swap(i, j int)      { u.lists[i], u.lists[j] = u.lists[j], u.lists[i] }
func (u *unionIter) Push(x any)         { u.lists = append(u.lists, x.(*listIter)) }
func (u *unionIter) Pop() any {
	l := u.lists[len(u.lists)-1]
	u.lists = u.lists[:len(u.lists)-1]
	return l
}

// start reads the first key of each list and the union's first.
func (u *unionIter) start() {
	live := u.lists[:0]
	for _, l := range u.lists {
		if l.next() {
			live = append(live, l)
		} else if l.err != nil {
			u.err = l.err
		}
	}
	u.lists = live
	heap.Init(u)
	u.advance(math.MaxInt64)
}

// advance moves to the largest key at most x.
func (u *unionIter) advance(x int64) {
	for len(u.lists) > 0 && u.lists[0].cur > x {
		l := u.lists[0]
		for l.next() && l.cur > x {
		}
		if l.err != nil {
			u.err = l.err
		}
		if l.left == 0 && l.cur > x || l.err != nil {
			heap.Pop(u)
		} else {
			heap.Fix(u, 0)
		}
	}
	u.ok = len(u.lists) > 0 && u.err == nil
	if u.ok {
		u.cur = u.lists[0].cur
	}
}

// andIter reads the keys every one of its unions holds, descending.
type andIter struct {
	parts  []*unionIter
	done   bool
	held   int64 // what peek read
	heldOK bool
	peeked bool
}

// peek returns the key next would, without moving past it.
func (a *andIter) peek() (int64, bool) {
	if !a.peeked {
		a.held, a.heldOK = a.read()
		a.peeked = true
	}
	return a.held, a.heldOK
}

// next returns the next key; false at the end or on an error (err).
func (a *andIter) next() (int64, bool) {
	if a.peeked {
		a.peeked = false
		return a.held, a.heldOK
	}
	return a.read()
}

func (a *andIter) read() (int64, bool) {
	if a.done || len(a.parts) == 0 {
		return 0, false
	}
	target := int64(math.MaxInt64)
	for {
		agreed := true
		for _, u := range a.parts {
			u.advance(target)
			if !u.ok {
				a.done = true
				return 0, false
			}
			if u.cur < target {
				if target != math.MaxInt64 {
					agreed = false
				}
				target = u.cur
			}
		}
		if agreed {
			for _, u := range a.parts {
				u.advance(target - 1)
			}
			return target, true
		}
	}
}

// err returns the error that ended a.
func (a *andIter) err() error {
	for _, u := range a.parts {
		if u.err != nil {
			return u.err
		}
	}
	return nil
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

// mergeSegs writes the lists of the segments in as one new segment of
// level, leaving out the postings gone says are stale, and deletes them.
func mergeSegs(ctx context.Context, tx *sql.Tx, in []segInfo, level int) error {
	stale, err := staleIDs(ctx, tx)
	if err != nil {
		return err
	}
	h := make(mergeHeap, 0, len(in))
	for _, s := range in {
		c := &segCursor{ctx: ctx, tx: tx, seg: s.id}
		ok, err := c.next()
		if err != nil {
			return err
		}
		if ok {
			h = append(h, c)
		}
	}
	heap.Init(&h)
	w, err := newSegWriter(ctx, tx, level)
	if err != nil {
		return err
	}
	defer w.close()
	var group []*segCursor
	var ids, scratch []int64
	var runs []int
	for len(h) > 0 {
		g := h[0].cur.gram
		group = group[:0]
		for len(h) > 0 && h[0].cur.gram == g {
			group = append(group, heap.Pop(&h).(*segCursor))
		}
		if len(group) == 1 && len(stale) == 0 {
			if err := w.addRaw(g, group[0].cur.n, group[0].cur.enc); err != nil {
				return err
			}
		} else {
			// In descending order of their first ids: lists of disjoint spans of ids
			// (a build's segments) then decode already in order.
			if len(group) > 1 {
				slices.SortFunc(group, func(a, b *segCursor) int { return cmp.Compare(firstID(b.cur.enc), firstID(a.cur.enc)) })
			}
			ids, runs = ids[:0], runs[:0]
			for _, c := range group {
				start := len(ids)
				runs = append(runs, start)
				if ids, err = decodeIDs(ids, c.cur.enc, c.cur.n); err != nil {
					return err
				}
				if len(stale) > 0 {
					kept := ids[:start]
					for _, id := range ids[start:] {
						if seg, ok := stale[rowOf(id)]; !ok || c.seg > seg {
							kept = append(kept, id)
						}
					}
					ids = kept
				}
			}
			ids, scratch = mergeRuns(ids, runs, scratch)
			if len(ids) > 0 {
				if err := w.add(g, ids); err != nil {
					return err
				}
			}
		}
		for _, c := range group {
			ok, err := c.next()
			if err != nil {
				return err
			}
			if ok {
				heap.Push(&h, c)
			}
		}
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
	tx      *sql.Tx
	seg     int64
	after   int64 // the first 4-gram of the last block read; −1 before any
	started bool
	blocks  [][]byte
	firsts  []uint32
	entries []entry
	cur     entry
}

// A cursor reads up to cursorPage blocks at a time, and stops once it
// holds cursorBytes.
const (
	cursorPage  = 8
	cursorBytes = 32 << 10
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
	return true, nil
}

func (c *segCursor) page() error {
	if !c.started {
		c.after, c.started = -1, true
	}
	rows, err := c.tx.QueryContext(c.ctx, "SELECT first, data FROM blocks WHERE seg = ? AND first > ? ORDER BY first LIMIT ?", c.seg, c.after, cursorPage)
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
		if size += len(data); size >= cursorBytes {
			break // a long list is a large block: memory stays bounded
		}
	}
	if err := rows.Err(); err != nil || len(c.blocks) == 0 {
		return err
	}
	rows.Close()
	// Their pages are free for what the merge writes next, so a merge
	// does not grow the file by what it rewrites.
	_, err = c.tx.ExecContext(c.ctx, "DELETE FROM blocks WHERE seg = ? AND first <= ?", c.seg, c.after)
	return err
}

// mergeHeap orders cursors by their entry's 4-gram.
type mergeHeap []*segCursor

func (h mergeHeap) Len() int           { return len(h) }
func (h mergeHeap) Less(i, j int) bool { return h[i].cur.gram < h[j].cur.gram }
func (h mergeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)        { *h = append(*h, x.(*segCursor)) }
func (h *mergeHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
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
