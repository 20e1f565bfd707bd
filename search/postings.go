package search

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
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
	// writes them as a segment (16 bytes each while sorting: 8 MiB). A
	// merge's work goes with the number of lists it reads, so larger
	// segments make a cheaper final merge: 1.25 s instead of 1.7 s for the
	// native workload's index, for 5–10 MB more at the import's peak.
	pendingPostings = 1 << 19
	// mergeFanIn segments of one level are merged into one of the next.
	mergeFanIn = 8
	// buildFanIn is mergeFanIn while a first build runs: it ends with a
	// merge of everything (optimizeOnce), so merging on the way would
	// rewrite postings for nothing (the 703 MB native workload makes about
	// 135 segments, merged once); this bounds what a search during the
	// build reads, and the merges of the largest builds.
	buildFanIn = 512
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
