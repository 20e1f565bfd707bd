package search

import (
	"math/bits"
)

// What the index holds of a text: the distinct sequences of four bytes of
// its folded form (4-grams), each a 32-bit value (see postings.go). The
// text is followed by gramEnd first, so that every sequence of three bytes of it begins a
// 4-gram: a term of three bytes is looked up as any 4-gram it begins (see
// matchParts).
//
// Why 4-grams rather than trigrams: the index keeps no
// positions, so a candidate is an event holding every n-gram of the words
// looked for, and with three bytes long events hold every trigram of
// ordinary words without the words (on the 1 GB benchmark store, 1,396
// events hold the trigrams of "detected", 72 the word; with 4-grams, the
// 72). Each candidate is read back from the store and checked, so fewer
// candidates is faster searching: "deadlock detected" takes 30 ms against
// 191, and the benchmark's p95 42 ms against 170. The price, on that store:
// the index is larger, because an event holds more distinct 4-grams than
// trigrams, and a build's work is per distinct 4-gram of each event.
const (
	gramBytes = 4
	gramEnd   = 0 // appended to the text; a folded query never holds it
)

// gramSet collects the distinct 4-grams of a text. Its table is kept
// between texts, so indexing allocates nothing per event once it has
// grown.
type gramSet struct {
	table []uint64 // open addressing: gram+1<<32 when used, 0 when free
	grams []uint32 // the distinct grams, in order of first occurrence
}

// of returns the distinct 4-grams of the folded text low, in order of
// first occurrence, each as the big-endian value of its four bytes; none
// when low is shorter than three bytes. The result is valid until the
// next call.
func (g *gramSet) of(low string) []uint32 {
	if len(low) < gramBytes-1 {
		return nil
	}
	n := len(low) - gramBytes + 2 // windows of low + gramEnd
	size := 1 << bits.Len(uint(2*n))
	if cap(g.table) < size {
		g.table = make([]uint64, size)
	} else {
		g.table = g.table[:size]
		clear(g.table)
	}
	mask := uint64(size - 1)
	g.grams = g.grams[:0]
	add := func(v uint32) {
		key := uint64(v) | 1<<32
		for h := (uint64(v) * 0x9E3779B97F4A7C15 >> 32) & mask; ; h = (h + 1) & mask {
			switch g.table[h] {
			case 0:
				g.table[h] = key
				g.grams = append(g.grams, v)
				return
			case key:
				return
			}
		}
	}
	var v uint32
	for i := range gramBytes - 1 {
		v = v<<8 | uint32(low[i])
	}
	for i := gramBytes - 1; i < len(low); i++ {
		v = v<<8 | uint32(low[i])
		add(v)
	}
	add(v<<8 | gramEnd)
	return g.grams
}
