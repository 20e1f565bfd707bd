package search

// Writing the lists: a transaction's postings, sorted and written as a
// segment (see postings.go for the format).

import (
	"context"
	"database/sql"
	"encoding/binary"
	"hash/crc32"
	"slices"
)

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
