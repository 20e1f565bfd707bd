package search

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"
)

// What the index holds of a text: the distinct sequences of four bytes of
// its folded form (4-grams), each a 32-bit value (see postings.go). The
// text is followed by gramEnd first, so that every sequence of three bytes
// of it begins a 4-gram: a term of three bytes is looked up as any 4-gram
// it begins (see matchParts).
//
// Why 4-grams rather than trigrams: the index keeps no positions, so a
// candidate is an event holding every n-gram of the words looked for, and with three bytes long events hold every trigram of
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
	low   []byte   // the folded text of ofText
}

// ofText returns the distinct 4-grams of fold(text) (see gramsOf),
// folding into a buffer kept between calls (fold builds a string, and for
// non-ASCII text a map of offsets, which the index does not need).
func (g *gramSet) ofText(text string) []uint32 { return g.ofParts(text, "") }

// ofParts is ofText of the text scannedText joins from own and full (see
// joinedAt), without joining them first.
func (g *gramSet) ofParts(own, full string) []uint32 {
	g.low = appendFold(g.low[:0], own)
	if own != "" && full != "" {
		g.low = append(g.low, '\n')
	}
	g.low = appendFold(g.low, full)
	return gramsOf(g, g.low)
}

// appendFold appends fold(s) to dst: the same bytes, without the offsets.
// Eight ASCII bytes at a time are lowered in one word: most of what is
// indexed is ASCII, and a byte at a time was a third of gramSet.ofText.
func appendFold(dst []byte, s string) []byte {
	const (
		ones  = 0x0101010101010101
		highs = 0x80 * ones
	)
	dst = slices.Grow(dst, len(s))
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			x := load64(s, i)
			if x&highs == 0 {
				// A byte's high bit in upper is set when it is at least
				// 'A' and not above 'Z' (every byte is below 0x80, so no
				// sum carries into the next); shifted down to 0x20, it
				// makes the letter lower case.
				upper := (x + (0x80-'A')*ones) &^ (x + (0x80-'Z'-1)*ones) & highs
				dst = binary.LittleEndian.AppendUint64(dst, x|upper>>2)
				i += 8
				continue
			}
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
		i += w
	}
	return dst
}

// load64 returns the eight bytes of s at i as a little-endian word (one
// load: the compiler combines them).
func load64(s string, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// gramsOf returns the distinct 4-grams of the folded text low, in order of
// first occurrence, each as the big-endian value of its four bytes; none
// when low is shorter than three bytes. The result is valid until the
// next call.
func gramsOf(g *gramSet, low []byte) []uint32 {
	if len(low) < gramBytes-1 {
		return nil
	}
	// The table starts small and doubles when half full: a text of a
	// megabyte holds far fewer distinct 4-grams than bytes, and the table
	// is kept for the next text.
	n := len(low) - gramBytes + 2 // windows of low + gramEnd
	size := min(1<<bits.Len(uint(2*n)), 1<<12)
	g.reset(size)
	mask := uint64(size - 1)
	g.grams = g.grams[:0]
	add := func(v uint32) {
		key := uint64(v) | 1<<32
		for h := (uint64(v) * 0x9E3779B97F4A7C15 >> 32) & mask; ; h = (h + 1) & mask {
			switch g.table[h] {
			case 0:
				g.table[h] = key
				g.grams = append(g.grams, v)
				if 2*len(g.grams) > size {
					size *= 2
					mask = uint64(size - 1)
					g.reset(size)
					for _, w := range g.grams {
						k := uint64(w) | 1<<32
						h := (uint64(w) * 0x9E3779B97F4A7C15 >> 32) & mask
						for g.table[h] != 0 {
							h = (h + 1) & mask
						}
						g.table[h] = k
					}
				}
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
	if len(g.table) > 1<<18 {
		g.table = nil // 2 MiB: not kept for the next text
	}
	return g.grams
}

// reset makes g.table size empty slots, reusing its memory.
func (g *gramSet) reset(size int) {
	if cap(g.table) < size {
		g.table = make([]uint64, size)
	} else {
		g.table = g.table[:size]
		clear(g.table)
	}
}
