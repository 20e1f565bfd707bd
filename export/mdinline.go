package export

import (
	"html"
	"regexp"
	"strings"
)

// bareURL matches an http(s) URL in text, without trailing punctuation.
var bareURL = regexp.MustCompile(`https?://[^\s<>"'` + "`" + `]*[^\s<>"'` + "`" + `.,:;!?)\]}*_~]`)

// mdInline writes the inline content of s: code spans, emphasis, links and
// bare URLs; everything else is escaped text. Line breaks are kept.
func mdInline(b *strings.Builder, s string, depth int) {
	p := inlineParser{b: b, depth: depth}
	p.run(s)
}

// inlineParser holds the state of one inline run. noCloser remembers the
// delimiters found to have no closer further on, so that a run of
// unmatched ones stays linear.
type inlineParser struct {
	b        *strings.Builder
	depth    int
	noCloser map[string]bool
	text     strings.Builder // pending literal text
}

// flush writes the pending text, escaped, with its line breaks kept.
func (p *inlineParser) flush() {
	if p.text.Len() > 0 {
		p.b.WriteString(strings.ReplaceAll(html.EscapeString(p.text.String()), "\n", "<br>\n"))
		p.text.Reset()
	}
}

func (p *inlineParser) run(s string) {
	for i := 0; i < len(s); {
		if n := p.special(s, i); n > 0 {
			i += n
			continue
		}
		if loc := p.urlAt(s, i); loc > 0 {
			p.flush()
			u := s[i : i+loc]
			p.b.WriteString(`<a href="` + html.EscapeString(u) + `">` + html.EscapeString(u) + "</a>")
			i += loc
			continue
		}
		p.text.WriteByte(s[i])
		i++
	}
	p.flush()
}

// urlAt returns the length of a bare URL starting at s[i], or 0.
func (p *inlineParser) urlAt(s string, i int) int {
	if s[i] != 'h' || (i > 0 && isAlnum(s[i-1])) || !(strings.HasPrefix(s[i:], "http://") || strings.HasPrefix(s[i:], "https://")) {
		return 0
	}
	loc := bareURL.FindStringIndex(s[i:])
	if loc == nil || loc[0] != 0 {
		return 0
	}
	return loc[1]
}

// special handles the construct starting at s[i], if any, and returns how
// many bytes it consumed (0 for none).
func (p *inlineParser) special(s string, i int) int {
	switch s[i] {
	case '\\':
		if i+1 < len(s) && isASCIIPunct(s[i+1]) {
			p.text.WriteByte(s[i+1])
			return 2
		}
	case '`':
		return p.codeSpan(s, i)
	case '*', '_', '~':
		return p.emphasis(s, i)
	case '[':
		return p.link(s, i, false)
	case '!':
		if i+1 < len(s) && s[i+1] == '[' {
			return p.link(s, i+1, true) + 1
		}
	case '<':
		return p.autolink(s, i)
	}
	return 0
}

// codeSpan handles a run of backticks: a code span up to a run of the same
// length, or literal backticks.
func (p *inlineParser) codeSpan(s string, i int) int {
	n := 0
	for i+n < len(s) && s[i+n] == '`' {
		n++
	}
	key := "`" + strings.Repeat("`", n)
	if !p.noCloser[key] {
		for j := i + n; j < len(s); {
			k := strings.IndexByte(s[j:], '`')
			if k < 0 {
				break
			}
			j += k
			m := 0
			for j+m < len(s) && s[j+m] == '`' {
				m++
			}
			if m == n {
				code := strings.ReplaceAll(s[i+n:j], "\n", " ")
				if len(code) > 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
					code = code[1 : len(code)-1]
				}
				p.flush()
				p.b.WriteString("<code>" + html.EscapeString(code) + "</code>")
				return j + m - i
			}
			j += m
		}
		p.setNoCloser(key)
	}
	p.text.WriteString(s[i : i+n])
	return n
}

func (p *inlineParser) setNoCloser(key string) {
	if p.noCloser == nil {
		p.noCloser = map[string]bool{}
	}
	p.noCloser[key] = true
}

// emphasis handles '*', '_' and '~' runs: ** or __ is <strong>, * or _ is
// <em>, *** or ___ both, ~~ is <del>. An opener must be followed by a
// non-space and a closer, a run of the same length, preceded by one; '_'
// does not work inside words (snake_case).
func (p *inlineParser) emphasis(s string, i int) int {
	c := s[i]
	n := runLength(s, i)
	if c == '~' && n != 2 {
		p.text.WriteString(s[i : i+n])
		return n
	}
	width := min(n, 3)
	canOpen := i+n < len(s) && !isSpace(s[i+n]) && (c != '_' || i == 0 || !isWordByte(s[i-1]))
	key := s[i : i+width]
	if !canOpen || n > 3 || p.depth >= maxMarkdownDepth || p.noCloser[key] {
		p.text.WriteString(s[i : i+n])
		return n
	}
	start := i + width
	for j := start + 1; j < len(s); j++ {
		if s[j] == '`' { // skip code spans: their content is literal
			if k := strings.IndexByte(s[j+1:], '`'); k >= 0 {
				j += k + 1
			}
			continue
		}
		if s[j] != c {
			continue
		}
		r := runLength(s, j)
		if r != width || isSpace(s[j-1]) || (c == '_' && j+r < len(s) && isWordByte(s[j+r])) {
			j += r - 1
			continue
		}
		open, shut := emphasisTags(c, width)
		p.flush()
		p.b.WriteString(open)
		mdInline(p.b, s[start:j], p.depth+1)
		p.b.WriteString(shut)
		return j + width - i
	}
	p.setNoCloser(key)
	p.text.WriteString(s[i : i+n])
	return n
}

// emphasisTags returns the tags of an emphasis run of width c's.
func emphasisTags(c byte, width int) (string, string) {
	switch {
	case c == '~':
		return "<del>", "</del>"
	case width == 1:
		return "<em>", "</em>"
	case width == 2:
		return "<strong>", "</strong>"
	}
	return "<strong><em>", "</em></strong>"
}

// runLength counts the copies of s[i] starting at i.
func runLength(s string, i int) int {
	n := 1
	for i+n < len(s) && s[i+n] == s[i] {
		n++
	}
	return n
}

// maxLinkText bounds the search for the end of a link's text.
const maxLinkText = 500

// link handles "[text](url)" at s[i] ('['); image marks "![alt](url)",
// which becomes a link too (an export loads nothing). A link to anything
// but http, https or mailto keeps its text and shows the target as text.
func (p *inlineParser) link(s string, i int, image bool) int {
	depth, end := 0, -1
	for j := i; j < len(s) && j < i+maxLinkText; j++ {
		switch s[j] {
		case '\\':
			j++
		case '[':
			depth++
		case ']':
			depth--
		}
		if depth == 0 {
			end = j
			break
		}
	}
	if end < 0 || end+1 >= len(s) || s[end+1] != '(' {
		if image {
			p.text.WriteByte('!')
		}
		p.text.WriteByte('[')
		return 1
	}
	close := strings.IndexByte(s[end+2:], ')')
	if close < 0 {
		if image {
			p.text.WriteByte('!')
		}
		p.text.WriteByte('[')
		return 1
	}
	target := strings.TrimSpace(s[end+2 : end+2+close])
	if sp := strings.IndexAny(target, " \t\n"); sp >= 0 {
		target = target[:sp] // drop a title
	}
	target = strings.TrimSuffix(strings.TrimPrefix(target, "<"), ">")
	label := s[i+1 : end]
	p.flush()
	if safeURL(target) {
		p.b.WriteString(`<a href="` + html.EscapeString(target) + `">`)
		if image {
			p.b.WriteString("[image: ")
		}
		mdInline(p.b, label, p.depth+1)
		if image {
			p.b.WriteString("]")
		}
		p.b.WriteString("</a>")
	} else {
		mdInline(p.b, label, p.depth+1)
		if target != "" {
			p.b.WriteString(" (" + html.EscapeString(target) + ")")
		}
	}
	return end + 2 + close + 1 - i
}

// autolink handles "<https://…>"; any other '<' is text.
func (p *inlineParser) autolink(s string, i int) int {
	end := strings.IndexByte(s[i:], '>')
	if end < 0 {
		return 0
	}
	u := s[i+1 : i+end]
	if !safeURL(u) || strings.ContainsAny(u, " \t\n<") {
		return 0
	}
	p.flush()
	p.b.WriteString(`<a href="` + html.EscapeString(u) + `">` + html.EscapeString(u) + "</a>")
	return end + 1
}

// safeURL accepts the link targets an export keeps: absolute http, https
// and mailto URLs.
func safeURL(u string) bool {
	l := strings.ToLower(u)
	return (strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "mailto:")) &&
		!strings.ContainsAny(u, "\"'<>\\` \t\n")
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func isWordByte(c byte) bool { return isAlnum(c) || c == '_' || c >= 0x80 }

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}
