package summary

// This file holds Summarize's text helpers: flattening text to one clean
// line, stripping Markdown and the context tags, condensing a previous
// summary, splitting a line into sentences, and truncating and capping
// text to a length in runes.

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// sumFirstLine returns the first non-blank line of s, flattened.
func sumFirstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if t := sumFlatten(line); t != "" {
			return t
		}
	}
	return ""
}

// sumCondense turns a previous summary into one paragraph: headings end in a
// colon, list items in a semicolon, other lines in a full stop.
func sumCondense(s string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(s, "\n") {
		isBullet := sumIsListItem(strings.TrimSpace(line))
		t := sumFlatten(sumStripMarkdown(line))
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
		switch last, _ := utf8.DecodeLastRuneInString(t); {
		case strings.ContainsRune(".!?:;…", last):
		case isBullet:
			b.WriteByte(';')
		case sumRuneLen(t) <= 40:
			b.WriteByte(':')
		default:
			b.WriteByte('.')
		}
	}
	if t, ok := strings.CutSuffix(b.String(), ";"); ok {
		return t + "."
	}
	return b.String()
}

// sumIsListItem reports whether a trimmed line is a Markdown list item.
func sumIsListItem(line string) bool {
	if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") {
		return true
	}
	rest := strings.TrimLeft(line, "0123456789")
	return rest != line && strings.HasPrefix(rest, ". ")
}

// sumEmphasis removes Markdown's bold markers.
var sumEmphasis = strings.NewReplacer("**", "", "__", "")

// sumStripMarkdown removes the block markers at the start of each line
// (headings, quotes, list bullets) and emphasis markers.
func sumStripMarkdown(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		t := strings.TrimLeft(strings.TrimSpace(line), "#> ")
		for _, p := range []string{"- [ ] ", "- [x] ", "- ", "* ", "+ "} {
			t = strings.TrimPrefix(t, p)
		}
		if j := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }); j > 0 && j < 4 &&
			strings.HasPrefix(t[j:], ". ") {
			t = t[j+2:]
		}
		lines[i] = sumEmphasis.Replace(t)
	}
	return strings.Join(lines, "\n")
}

// sumFlatten makes s one clean line: valid UTF-8, no control characters,
// white space runs collapsed to one space, and no summary tags.
func sumFlatten(s string) string {
	s = sumCollapse(sumStripTags(strings.ToValidUTF8(s, "\uFFFD")))
	if t := sumStripTags(s); t != s { // dropping a control character joined a tag
		s = sumCollapse(t)
	}
	return s
}

// sumCollapse drops control characters and collapses white space.
func sumCollapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
		case unicode.IsControl(r) || r == '\u200b' || r == '\ufeff':
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sumStripTags removes the context and auto-continue tags, again and again,
// since removing one may join the pieces of another.
func sumStripTags(s string) string {
	for {
		t := s
		for _, tag := range summaryTags {
			t = strings.ReplaceAll(t, tag, "")
		}
		if t == s {
			return t
		}
		s = t
	}
}

// sumTruncate shortens s to at most max runes, cutting at the end of a
// sentence or else of a word when one is near, and marking the cut with "…".
func sumTruncate(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	switch {
	case max <= 0:
		return ""
	case max == 1:
		return "…"
	}
	limit := max - 1 // room for "…"
	for i := limit - 2; i >= limit*6/10; i-- {
		if strings.ContainsRune(".!?", r[i]) && r[i+1] == ' ' {
			return string(r[:i+1]) + " …"
		}
	}
	for i := limit; i >= limit/2; i-- {
		if r[i] == ' ' {
			return strings.TrimRight(string(r[:i]), " ,;:-–—") + "…"
		}
	}
	return string(r[:limit]) + "…"
}

// sumCapLines drops whole lines from the end of s until it has at most max
// runes; a single line longer than max is truncated.
func sumCapLines(s string, max int) string {
	for sumRuneLen(s) > max {
		i := strings.LastIndexByte(s, '\n')
		if i < 0 {
			return sumTruncate(s, max)
		}
		s = strings.TrimRight(s[:i], "\n")
	}
	return s
}

func sumRuneLen(s string) int { return utf8.RuneCountInString(s) }

// sumSentencesOf splits a line after each '.', '!' or '?' that a space follows.
func sumSentencesOf(line string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(line); i++ {
		if (line[i] == '.' || line[i] == '!' || line[i] == '?') && line[i+1] == ' ' && !sumIsAbbrev(line[start:i]) {
			out = append(out, line[start:i+1])
			start = i + 2
		}
	}
	if start < len(line) {
		out = append(out, line[start:])
	}
	return out
}

// sumAbbreviations end in a full stop that does not end a sentence.
var sumAbbreviations = []string{"e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "mr", "ms", "dr", "no", "fig"}

// sumIsAbbrev reports whether s ends with an abbreviation.
func sumIsAbbrev(s string) bool {
	word := strings.ToLower(s[strings.LastIndexAny(s, " (\"'[")+1:])
	for _, a := range sumAbbreviations {
		if word == a {
			return true
		}
	}
	return false
}
