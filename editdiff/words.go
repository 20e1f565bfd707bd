package editdiff

import (
	"unicode"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Word highlighting is skipped for lines that share too little text (the
// whole line is new, highlighting every word is noise) or are very long.
const (
	wordDiffMinShared = 0.4
	wordDiffMaxLen    = 2000
)

// WordDiff diffs two texts line by line (Lines) and marks the changed
// words of each paired deleted/inserted line.
func WordDiff(oldText, newText string) []Line {
	out := Lines(oldText, newText)
	AddWordSpans(out)
	return out
}

// AddWordSpans pairs each run of deleted lines with the run of inserted
// lines right after it, line by line, and marks their changed words.
func AddWordSpans(lines []Line) {
	for i := 0; i < len(lines); {
		if lines[i].Op != Delete {
			i++
			continue
		}
		del := i
		for i < len(lines) && lines[i].Op == Delete {
			i++
		}
		ins := i
		for i < len(lines) && lines[i].Op == Insert {
			i++
		}
		for k := 0; del+k < ins && ins+k < i; k++ {
			a, b := &lines[del+k], &lines[ins+k]
			a.Spans, b.Spans = wordSpans(a.Text, b.Text)
		}
	}
}

// wordSpans returns the changed words of a (deleted) and b (inserted), or
// nil, nil when the lines are too different. It diffs the lines as token
// sequences (words, runs of spaces, single symbols), each token mapped to
// one rune, so a highlight never splits a word.
func wordSpans(a, b string) (sa, sb []Span) {
	if len(a) > wordDiffMaxLen || len(b) > wordDiffMaxLen {
		return nil, nil
	}
	ta, tb := tokenize(a), tokenize(b)
	ra, rb, ok := tokenRunes(ta, tb)
	if !ok {
		return nil, nil
	}
	dmp := diffmatchpatch.New()
	diffs := dmp.DiffCleanupSemantic(dmp.DiffMainRunes(ra, rb, false))
	shared, ia, ib, ka, kb := 0, 0, 0, 0, 0 // byte offsets and token indexes
	for _, d := range diffs {
		n := utf8.RuneCountInString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			w := tokensLen(ta[ka : ka+n])
			shared, ia, ib, ka, kb = shared+w, ia+w, ib+tokensLen(tb[kb:kb+n]), ka+n, kb+n
		case diffmatchpatch.DiffDelete:
			w := tokensLen(ta[ka : ka+n])
			sa, ia, ka = appendSpan(sa, ia, ia+w), ia+w, ka+n
		case diffmatchpatch.DiffInsert:
			w := tokensLen(tb[kb : kb+n])
			sb, ib, kb = appendSpan(sb, ib, ib+w), ib+w, kb+n
		}
	}
	if float64(shared) < wordDiffMinShared*float64(max(len(a), len(b))) {
		return nil, nil
	}
	return sa, sb
}

// tokenize splits s into words (letters, digits, '_'), runs of white
// space, and single other characters.
func tokenize(s string) []string {
	var toks []string
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		j := i + n
		if class := runeClass(r); class != 0 {
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if runeClass(r2) != class {
					break
				}
				j += n2
			}
		}
		toks = append(toks, s[i:j])
		i = j
	}
	return toks
}

// runeClass is 1 for word runes, 2 for white space, 0 for the rest.
func runeClass(r rune) int {
	switch {
	case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
		return 1
	case unicode.IsSpace(r):
		return 2
	}
	return 0
}

// tokenRunes maps each distinct token of ta and tb to one private-use rune.
func tokenRunes(ta, tb []string) (ra, rb []rune, ok bool) {
	const first, last = 0xE000, 0xF8FF
	ids := make(map[string]rune)
	conv := func(toks []string) []rune {
		rs := make([]rune, len(toks))
		for i, t := range toks {
			r, seen := ids[t]
			if !seen {
				r = rune(first + len(ids))
				ids[t] = r
			}
			rs[i] = r
		}
		return rs
	}
	ra, rb = conv(ta), conv(tb)
	return ra, rb, len(ids) <= last-first
}

func tokensLen(toks []string) int {
	n := 0
	for _, t := range toks {
		n += len(t)
	}
	return n
}

// appendSpan appends [start, end), merging it into a touching last span.
func appendSpan(spans []Span, start, end int) []Span {
	if n := len(spans); n > 0 && spans[n-1].End == start {
		spans[n-1].End = end
		return spans
	}
	return append(spans, Span{start, end})
}
