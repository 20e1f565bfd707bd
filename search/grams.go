package search

import (
	"encoding/binary"
	"math/bits"
	"strings"
)

// What the index holds of a text: the distinct sequences of four bytes of
// its folded form (4-grams), each written as a token of eight hex digits,
// separated by spaces, for FTS5's ascii tokenizer. The text is followed by
// gramEnd first, so that every sequence of three bytes of it begins a
// 4-gram: a term of three bytes is looked up as any 4-gram it begins (see
// matchExpression).
//
// Why 4-grams rather than FTS5's own trigram tokenizer: the index keeps no
// positions, so a candidate is an event holding every n-gram of the words
// looked for, and with three bytes long events hold every trigram of
// ordinary words without the words (on the 1 GB benchmark store, 1,396
// events hold the trigrams of "detected", 72 the word; with 4-grams, the
// 72). Each candidate is read back from the store and checked, so fewer
// candidates is faster searching: "deadlock detected" takes 30 ms against
// 191, and the benchmark's p95 42 ms against 170. The price, on that store:
// the index is 714 MiB against 438, because an event holds more distinct
// 4-grams than trigrams, and FTS5 spends most of a build adding each
// distinct one of an event to its in-memory hash table.
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
	out   []byte
}

// tokens returns the index text of the folded text low: its distinct
// 4-grams as hex tokens. It is "" when low is shorter than three bytes
// (no word the index looks up fits in it). The result is valid until the
// next call.
func (g *gramSet) tokens(low string) []byte {
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
	const hexDigits = "0123456789abcdef"
	out := g.out[:0]
	for _, v := range g.grams {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], v)
		for _, c := range b {
			out = append(out, hexDigits[c>>4], hexDigits[c&15])
		}
		out = append(out, ' ')
	}
	g.out = out
	return out
}

// gramToken returns the token of the gram (or, for three bytes, the prefix
// of the tokens) that s, a string of three or four bytes, is.
func gramToken(s string) string {
	const hexDigits = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(hexDigits[s[i]>>4])
		b.WriteByte(hexDigits[s[i]&15])
	}
	return b.String()
}
