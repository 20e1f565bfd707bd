package search

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Snippet shape: about snippetRunes characters of the text around the first
// match, starting up to snippetLead characters before it.
const (
	snippetRunes = 160
	snippetLead  = 50
	snippetSnap  = 15 // how far a snippet's ends move to reach a word boundary
	ellipsis     = "…"
)

// foldedText is a text with its folded (lower-cased) form.
type foldedText struct {
	text, low string
	off       []int32 // see fold; nil when offsets are equal
}

func newFoldedText(text string) foldedText {
	low, off := fold(text)
	return foldedText{text: text, low: low, off: off}
}

// orig maps a byte offset of low to one of text.
func (f foldedText) orig(i int) int {
	if f.off == nil {
		return i
	}
	return int(f.off[i])
}

// find returns the byte range in text of the first occurrence of the
// folded term at or after offset from of low, or -1.
func (f foldedText) find(term string, from int) (start, end, next int) {
	i := strings.Index(f.low[from:], term)
	if i < 0 {
		return -1, -1, -1
	}
	i += from
	return f.orig(i), f.orig(i + len(term)), i + len(term)
}

// match reports whether text contains every term of q, ignoring case, and
// returns the byte range of the earliest occurrence of any term. ASCII
// terms are found without copying the text; others in its folded copy.
func (q *query) match(text string) (start, end int, ok bool) {
	if text == "" {
		return 0, 0, false
	}
	var f *foldedText // made for the first term that is not ASCII
	start, end = -1, -1
	for i := range q.terms {
		s, e := q.find(i, text, &f)
		if s < 0 {
			return 0, 0, false
		}
		if start < 0 || s < start {
			start, end = s, e
		}
	}
	return start, end, true
}

// find returns the byte range of the first occurrence of term i in text,
// or -1, -1; *f is text's folded copy, made when a term needs it.
func (q *query) find(i int, text string, f **foldedText) (start, end int) {
	t := q.terms[i]
	if q.ascii[i] {
		if s := indexFoldASCII(text, t); s >= 0 {
			return s, s + len(t)
		}
		return -1, -1
	}
	if *f == nil {
		ft := newFoldedText(text)
		*f = &ft
	}
	s, e, _ := (*f).find(t, 0)
	return s, e
}

// matchJoined is match of a + "\n" + b (just b when a is ""; just a when b
// is ""), without copying them into one string: a term is found in a, or
// else in b. A term that holds a line break might span the two: the texts
// are then joined.
func (q *query) matchJoined(a, b string) (start, end int, ok bool) {
	switch {
	case b == "":
		return q.match(a)
	case a == "":
		return q.match(b)
	case q.multiline:
		return q.match(a + "\n" + b)
	}
	var fa, fb *foldedText
	start, end = -1, -1
	for i := range q.terms {
		s, e := q.find(i, a, &fa)
		if s < 0 {
			if s, e = q.find(i, b, &fb); s < 0 {
				return 0, 0, false
			}
			s, e = s+len(a)+1, e+len(a)+1
		}
		if start < 0 || s < start {
			start, end = s, e
		}
	}
	return start, end, true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// indexFoldASCII returns the offset of the first occurrence in s of the
// lower-case ASCII string t, ignoring ASCII case, or -1. Non-ASCII bytes
// of s never match.
func indexFoldASCII(s, t string) int {
	n := len(t)
	switch {
	case n == 0:
		return 0
	case n > len(s):
		return -1
	}
	lo, up := t[0], upperASCII(t[0])
	nextLo, nextUp := -2, -2 // -2: not searched yet
	for i := 0; i+n <= len(s); {
		if nextLo != -1 && nextLo < i {
			nextLo = indexByteFrom(s, lo, i)
		}
		if lo != up && nextUp != -1 && nextUp < i {
			nextUp = indexByteFrom(s, up, i)
		}
		j := nextLo
		if lo != up && nextUp >= 0 && (j < 0 || nextUp < j) {
			j = nextUp
		}
		if j < 0 || j+n > len(s) {
			return -1
		}
		if equalFoldASCII(s[j+1:j+n], t[1:]) {
			return j
		}
		i = j + 1
	}
	return -1
}

func indexByteFrom(s string, c byte, from int) int {
	if i := strings.IndexByte(s[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

func upperASCII(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// equalFoldASCII reports whether s equals the lower-case ASCII string t,
// ignoring ASCII case.
func equalFoldASCII(s, t string) bool {
	for i := 0; i < len(t); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != t[i] {
			return false
		}
	}
	return true
}

// makeSnippet returns about snippetRunes characters of text around the
// match at [start, end), on one line (runs of white space become one
// space), with an ellipsis where text was cut, and the byte ranges of the
// snippet where a term of q occurs.
func (q *query) makeSnippet(text string, start, end int) (string, [][2]int) {
	from, to := snippetRange(text, start, end)
	var b strings.Builder
	b.Grow(to - from + 2*len(ellipsis))
	if from > 0 {
		b.WriteString(ellipsis)
	}
	writeOneLine(&b, text[from:to])
	if to < len(text) && strings.TrimSpace(text[to:]) != "" {
		b.WriteString(ellipsis)
	}
	s := b.String()
	return s, q.highlights(s)
}

// snippetRange returns the byte range of text that the snippet of the
// match at [start, end) shows.
func snippetRange(text string, start, end int) (from, to int) {
	from = backRunes(text, start, snippetLead)
	if from > 0 {
		from = snapForward(text, from, start)
	}
	to = forwardRunes(text, from, snippetRunes)
	if to < end {
		to = forwardRunes(text, end, snippetSnap)
	}
	if to < len(text) {
		to = snapBack(text, to, end)
	}
	return from, to
}

// highlights returns the sorted, merged byte ranges of s where a term
// occurs, ignoring case.
func (q *query) highlights(s string) [][2]int {
	var f *foldedText // made for the first term that is not ASCII
	var out [][2]int
	for i, t := range q.terms {
		if q.ascii[i] {
			for from := 0; from+len(t) <= len(s); {
				st := indexFoldASCII(s[from:], t)
				if st < 0 {
					break
				}
				out = append(out, [2]int{from + st, from + st + len(t)})
				from += st + len(t)
			}
			continue
		}
		if f == nil {
			ft := newFoldedText(s)
			f = &ft
		}
		for from := 0; from <= len(f.low); {
			st, e, next := f.find(t, from)
			if st < 0 {
				break
			}
			out = append(out, [2]int{st, e})
			from = next
		}
	}
	if len(out) > 1 {
		slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	}
	merged := out[:0]
	for _, r := range out {
		if n := len(merged); n > 0 && r[0] <= merged[n-1][1] {
			merged[n-1][1] = max(merged[n-1][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	if merged == nil {
		merged = [][2]int{} // JSON []
	}
	return merged
}

// backRunes returns the offset n runes before i (or 0).
func backRunes(s string, i, n int) int {
	for ; n > 0 && i > 0; n-- {
		_, w := utf8.DecodeLastRuneInString(s[:i])
		i -= w
	}
	return i
}

// forwardRunes returns the offset n runes after i (or len(s)).
func forwardRunes(s string, i, n int) int {
	for ; n > 0 && i < len(s); n-- {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}

// snapForward moves a snippet's start at i to just after white space in
// the next snippetSnap characters, not past limit.
func snapForward(s string, i, limit int) int {
	j := i
	for k := 0; k < snippetSnap && j < limit; k++ {
		r, w := utf8.DecodeRuneInString(s[j:])
		j += w
		if unicode.IsSpace(r) {
			return j
		}
	}
	return i
}

// snapBack moves a snippet's end at i back to white space in the previous
// snippetSnap characters, not before limit.
func snapBack(s string, i, limit int) int {
	j := i
	for k := 0; k < snippetSnap && j > limit; k++ {
		r, w := utf8.DecodeLastRuneInString(s[:j])
		if unicode.IsSpace(r) {
			return j - w
		}
		j -= w
	}
	return i
}

// oneLine replaces each run of white space with one space and trims the
// ends.
func oneLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	writeOneLine(&b, s)
	return b.String()
}

// writeOneLine writes oneLine(s) to b.
func writeOneLine(b *strings.Builder, s string) {
	started := false
	for i := 0; i < len(s); {
		w, sp := spaceAt(s, i)
		if sp {
			i += w
			continue
		}
		j := i + w
		for j < len(s) {
			w, sp := spaceAt(s, j)
			if sp {
				break
			}
			j += w
		}
		if started {
			b.WriteByte(' ')
		}
		b.WriteString(s[i:j])
		started, i = true, j
	}
}

// spaceAt returns the width of the rune at s[i] and whether it is white
// space.
func spaceAt(s string, i int) (int, bool) {
	if c := s[i]; c < utf8.RuneSelf {
		return 1, asciiSpace[c]
	}
	r, w := utf8.DecodeRuneInString(s[i:])
	return w, unicode.IsSpace(r)
}

// asciiSpace holds the ASCII bytes strings.Fields splits at.
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}
