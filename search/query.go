package search

import (
	"errors"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Query errors: the user's input cannot be searched for. Their messages are
// meant for the user.
var (
	ErrEmptyQuery = errors.New("empty query: type something to search for")
	ErrShortQuery = errors.New("query too short: type at least 2 characters")
	ErrLongQuery  = errors.New("query too long: at most 1,000 characters")
)

// Query limits.
const (
	maxQueryBytes  = 1000
	minTermRunes   = 2  // a query needs one term at least this long
	indexTermRunes = 3  // terms this long are looked up in the index
	maxTermGrams   = 16 // 4-grams of one term the index lookup uses
)

// query is a parsed search query: the terms an event's text must all
// contain, ignoring case.
type query struct {
	terms []string // folded (lower-cased); a quoted phrase is one term
	ascii []bool   // terms[i] was typed in ASCII: it is found without folding the text
	// multiline reports a term that holds a line break (see matchJoined).
	multiline bool
	// parts select the candidate rows: a row is one when it holds a
	// 4-gram of each part (see postings.go): the 4-grams of every term of
	// three or more characters. It is empty when no term is that long.
	parts []gramRange
}

// parseQuery parses what the user typed. Words separated by white space
// must all occur; a query in double quotes ("go test") is one phrase,
// spaces included. Nothing else has a meaning: operators, quotes
// inside words, *, -, : and parentheses are matched as they are.
func parseQuery(s string) (*query, error) {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\x00", ""), "")
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return nil, ErrEmptyQuery
	case len(s) > maxQueryBytes:
		return nil, ErrLongQuery
	}
	var terms []string
	if inner, ok := phrase(s); ok {
		terms = []string{inner}
	} else {
		terms = strings.Fields(s)
	}
	q := &query{}
	longest := 0
	for _, t := range terms {
		f, _ := fold(t)
		if !containsString(q.terms, f) {
			q.terms, q.ascii = append(q.terms, f), append(q.ascii, isASCII(t))
		}
		longest = max(longest, utf8.RuneCountInString(f))
	}
	if longest < minTermRunes {
		return nil, ErrShortQuery
	}
	q.parts = matchParts(q.terms)
	for _, t := range q.terms {
		q.multiline = q.multiline || strings.Contains(t, "\n")
	}
	return q, nil
}

// phrase returns the text between the double quotes of a query that is
// one quoted phrase.
func phrase(s string) (string, bool) {
	if len(s) < 3 || s[0] != '"' || s[len(s)-1] != '"' {
		return "", false
	}
	inner := s[1 : len(s)-1]
	if strings.TrimSpace(inner) == "" || strings.Contains(inner, `"`) {
		return "", false
	}
	return inner, true
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// matchParts returns the parts of the index lookup that selects the rows
// holding the 4-grams of every term of three characters or more. Long
// terms contribute maxTermGrams 4-grams spread over them. A term of three
// bytes is any 4-gram that starts with it: one range of the lists, which
// are in 4-gram order. The index stores no positions, so the rows it
// selects are candidates that the caller checks against the text.
func matchParts(terms []string) []gramRange {
	var parts []gramRange
	for _, t := range terms {
		if utf8.RuneCountInString(t) < indexTermRunes {
			continue
		}
		for _, g := range pickGrams(t) {
			if r := rangeOf(g); !slices.Contains(parts, r) {
				parts = append(parts, r)
			}
		}
	}
	return parts
}

// pickGrams returns up to maxTermGrams 4-grams (byte sequences) of t,
// evenly spread, always including the first and the last; t itself when
// it has three bytes; none when it has fewer.
func pickGrams(t string) []string {
	switch {
	case len(t) < gramBytes-1:
		return nil
	case len(t) == gramBytes-1:
		return []string{t}
	}
	n := len(t) - gramBytes + 1 // number of 4-grams
	gram := func(i int) string { return t[i : i+gramBytes] }
	var out []string
	if n <= maxTermGrams {
		for i := range n {
			out = append(out, gram(i))
		}
		return out
	}
	for k := range maxTermGrams {
		out = append(out, gram(k*(n-1)/(maxTermGrams-1)))
	}
	return out
}

// fold lower-cases s rune by rune. When that changes byte offsets (some
// non-ASCII letters), off maps each byte offset of the result, and its
// length, to the offset in s; otherwise off is nil and offsets are equal.
func fold(s string) (string, []int32) {
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			return foldUnicode(s)
		}
		upper = upper || ('A' <= c && c <= 'Z')
	}
	if !upper {
		return s, nil
	}
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b), nil
}

func foldUnicode(s string) (string, []int32) {
	var b strings.Builder
	b.Grow(len(s))
	var off []int32
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		n := b.Len()
		b.WriteRune(unicode.ToLower(r))
		if off == nil && b.Len()-n != w {
			off = make([]int32, n, len(s)+8)
			for j := range off {
				off[j] = int32(j)
			}
		}
		if off != nil {
			for range b.Len() - n {
				off = append(off, int32(i))
			}
		}
		i += w
	}
	if off != nil {
		off = append(off, int32(len(s)))
	}
	return b.String(), off
}
