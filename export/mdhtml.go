package export

import (
	"bufio"
	"html"
	"regexp"
	"strings"

	"github.com/lazuli-app/lazuli/editdiff"
)

// markdownHTML writes the Markdown of assistant text, a plan or a summary
// as HTML. It covers what agents write (ATX and setext headings, fenced
// code, lists, block quotes, tables, rules, paragraphs; code spans,
// emphasis, strike-through, links and bare URLs) and is safe by
// construction: it emits only the tags it knows, every piece of text and
// every attribute goes through html.EscapeString, raw HTML in the
// Markdown is shown as text, links are kept only for http, https and
// mailto URLs, and images become links, so an export never loads anything.
// Line breaks inside a paragraph are kept, as agents' chat output expects.
func markdownHTML(w *bufio.Writer, s string) {
	var b strings.Builder
	mdBlocks(&b, editdiff.SplitLines(cleanText(s)), 0, false)
	w.WriteString(b.String())
}

// maxMarkdownDepth bounds the nesting of quotes, lists and emphasis; deeper
// content is shown as text.
const maxMarkdownDepth = 8

var (
	mdFenceOpen = regexp.MustCompile("^ {0,3}(`{3,}|~{3,})[ \t]*([^`]*)$")
	mdHeading   = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))??(?:[ \t]+#+)?[ \t]*$`)
	mdRule      = regexp.MustCompile(`^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$`)
	mdSetext    = regexp.MustCompile(`^ {0,3}(=+|-+)[ \t]*$`)
	mdListItem  = regexp.MustCompile(`^( {0,3})([-*+]|(\d{1,9})[.)])([ \t]+|$)`)
	mdQuote     = regexp.MustCompile(`^ {0,3}> ?`)
	mdTableSep  = regexp.MustCompile(`^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$`)
	mdLangClean = regexp.MustCompile(`[^A-Za-z0-9_+#.-]`)
)

// mdBlocks writes the blocks of lines. In a tight list item, paragraphs
// are written without <p>.
func mdBlocks(b *strings.Builder, lines []string, depth int, tight bool) {
	for i := 0; i < len(lines); {
		line := lines[i]
		switch {
		case strings.TrimSpace(line) == "":
			i++
		case mdFenceOpen.MatchString(line):
			i = mdCode(b, lines, i)
		case mdHeading.MatchString(line):
			m := mdHeading.FindStringSubmatch(line)
			level := string('0' + byte(len(m[1])))
			b.WriteString("<h" + level + ">")
			mdInline(b, m[2], 0)
			b.WriteString("</h" + level + ">\n")
			i++
		case mdRule.MatchString(line):
			b.WriteString("<hr>\n")
			i++
		case depth < maxMarkdownDepth && mdQuote.MatchString(line):
			i = mdBlockquote(b, lines, i, depth)
		case depth < maxMarkdownDepth && mdListItem.MatchString(line):
			i = mdList(b, lines, i, depth)
		case isTableStart(lines, i):
			i = mdTable(b, lines, i)
		default:
			i = mdParagraph(b, lines, i, depth, tight)
		}
	}
}

// mdCode writes the fenced code block starting at lines[i] and returns the
// index after it; an unclosed fence runs to the end.
func mdCode(b *strings.Builder, lines []string, i int) int {
	m := mdFenceOpen.FindStringSubmatch(lines[i])
	fence := m[1]
	lang := ""
	if info := strings.Fields(m[2]); len(info) > 0 {
		lang = mdLangClean.ReplaceAllString(info[0], "")
	}
	indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
	b.WriteString("<pre><code")
	if lang != "" {
		b.WriteString(` class="language-` + html.EscapeString(lang) + `"`)
	}
	b.WriteString(">")
	j := i + 1
	for ; j < len(lines); j++ {
		t := strings.TrimSpace(lines[j])
		if strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "" && len(lines[j])-len(strings.TrimLeft(lines[j], " ")) <= 3 {
			j++
			break
		}
		l := lines[j]
		for k := 0; k < indent && strings.HasPrefix(l, " "); k++ {
			l = l[1:]
		}
		b.WriteString(html.EscapeString(l))
		b.WriteString("\n")
	}
	b.WriteString("</code></pre>\n")
	return j
}

// mdBlockquote writes the quote starting at lines[i] (its lines and their
// lazy continuations) and returns the index after it.
func mdBlockquote(b *strings.Builder, lines []string, i, depth int) int {
	var inner []string
	for ; i < len(lines); i++ {
		if loc := mdQuote.FindStringIndex(lines[i]); loc != nil {
			inner = append(inner, lines[i][loc[1]:])
			continue
		}
		if strings.TrimSpace(lines[i]) == "" || startsBlock(lines[i]) || len(inner) == 0 || strings.TrimSpace(inner[len(inner)-1]) == "" {
			break
		}
		inner = append(inner, lines[i])
	}
	b.WriteString("<blockquote>\n")
	mdBlocks(b, inner, depth+1, false)
	b.WriteString("</blockquote>\n")
	return i
}

// mdList writes the list starting at lines[i] and returns the index after
// it. An item holds the lines indented past its marker; a blank line
// between items or inside one makes the list loose (paragraphs in <p>).
func mdList(b *strings.Builder, lines []string, i, depth int) int {
	first := mdListItem.FindStringSubmatch(lines[i])
	ordered := first[3] != ""
	kind := first[2][len(first[2])-1:] // "-", "*", "+", "." or ")"
	var items [][]string
	loose := false
	for i < len(lines) {
		m := mdListItem.FindStringSubmatchIndex(lines[i])
		if m == nil {
			break
		}
		marker := lines[i][m[4]:m[5]]
		if (m[6] >= 0) != ordered || marker[len(marker)-1:] != kind {
			break // another kind of list starts
		}
		width := m[1]
		if m[9]-m[8] > 4 { // five or more spaces after the marker: one is the separator
			width = m[8] + 1
		}
		item := []string{lines[i][m[1]:]}
		i++
		for i < len(lines) {
			l := lines[i]
			if strings.TrimSpace(l) == "" {
				// A blank line continues the item only if an indented line follows.
				if i+1 < len(lines) && indentOf(lines[i+1]) >= width {
					item = append(item, "")
					loose = true
					i++
					continue
				}
				if i+1 < len(lines) && mdListItem.MatchString(lines[i+1]) {
					loose = true
					i++
				}
				break
			}
			if indentOf(l) >= width {
				item = append(item, l[min(len(l), width):])
				i++
				continue
			}
			if mdListItem.MatchString(l) || startsBlock(l) {
				break
			}
			item = append(item, strings.TrimLeft(l, " \t")) // lazy continuation
			i++
		}
		items = append(items, item)
		if i < len(lines) && strings.TrimSpace(lines[i]) == "" {
			break
		}
	}
	tag := "ul"
	if ordered {
		tag = "ol"
		if start := strings.TrimLeft(first[3], "0"); start != "" && start != "1" {
			b.WriteString(`<ol start="` + start + `">` + "\n")
		} else if start == "" {
			b.WriteString(`<ol start="0">` + "\n")
		} else {
			b.WriteString("<ol>\n")
		}
	} else {
		b.WriteString("<ul>\n")
	}
	for _, item := range items {
		b.WriteString("<li>")
		mdBlocks(b, item, depth+1, !loose)
		b.WriteString("</li>\n")
	}
	b.WriteString("</" + tag + ">\n")
	return i
}

func indentOf(l string) int {
	n := 0
	for _, c := range l {
		switch c {
		case ' ':
			n++
		case '\t':
			n += 4 - n%4
		default:
			return n
		}
	}
	return n
}

// startsBlock reports whether line starts a block other than a paragraph.
func startsBlock(line string) bool {
	return mdFenceOpen.MatchString(line) || mdHeading.MatchString(line) || mdRule.MatchString(line) || mdQuote.MatchString(line)
}

// isTableStart reports whether lines[i] is the header of a table: a row
// with '|' followed by a delimiter row with as many cells.
func isTableStart(lines []string, i int) bool {
	return i+1 < len(lines) && strings.Contains(lines[i], "|") && strings.Contains(lines[i+1], "|") &&
		strings.Contains(lines[i+1], "-") && mdTableSep.MatchString(lines[i+1]) &&
		len(tableCells(lines[i])) == len(tableCells(lines[i+1]))
}

// mdTable writes the GitHub table starting at lines[i] (header, delimiter
// row, then rows up to a blank line or a line without '|').
func mdTable(b *strings.Builder, lines []string, i int) int {
	head := tableCells(lines[i])
	var align []string
	for _, c := range tableCells(lines[i+1]) {
		c = strings.TrimSpace(c)
		switch {
		case strings.HasPrefix(c, ":") && strings.HasSuffix(c, ":"):
			align = append(align, "center")
		case strings.HasSuffix(c, ":"):
			align = append(align, "right")
		default:
			align = append(align, "")
		}
	}
	row := func(cells []string, tag string) {
		b.WriteString("<tr>")
		for k := range len(head) {
			b.WriteString("<" + tag)
			if k < len(align) && align[k] != "" {
				b.WriteString(` style="text-align:` + align[k] + `"`)
			}
			b.WriteString(">")
			if k < len(cells) {
				mdInline(b, strings.TrimSpace(cells[k]), 0)
			}
			b.WriteString("</" + tag + ">")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("<table>\n<thead>\n")
	row(head, "th")
	b.WriteString("</thead>\n<tbody>\n")
	i += 2
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != "" && strings.Contains(lines[i], "|"); i++ {
		row(tableCells(lines[i]), "td")
	}
	b.WriteString("</tbody>\n</table>\n")
	return i
}

// tableCells splits a table row on '|' outside code spans, without the
// optional outer pipes.
func tableCells(line string) []string {
	t := strings.TrimSpace(line)
	t = strings.TrimPrefix(t, "|")
	if strings.HasSuffix(t, "|") && !strings.HasSuffix(t, `\|`) {
		t = t[:len(t)-1]
	}
	var cells []string
	start, inCode := 0, false
	for k := 0; k < len(t); k++ {
		switch t[k] {
		case '\\':
			k++
		case '`':
			inCode = !inCode
		case '|':
			if !inCode {
				cells = append(cells, t[start:k])
				start = k + 1
			}
		}
	}
	return append(cells, t[start:])
}

// mdParagraph writes the paragraph (or setext heading) starting at
// lines[i] and returns the index after it.
func mdParagraph(b *strings.Builder, lines []string, i, depth int, tight bool) int {
	start := i
	for i < len(lines) {
		l := lines[i]
		if strings.TrimSpace(l) == "" {
			break
		}
		if i > start {
			if mdSetext.MatchString(l) {
				level := "1"
				if strings.Contains(l, "-") {
					level = "2"
				}
				b.WriteString("<h" + level + ">")
				mdInline(b, strings.Join(trimAll(lines[start:i]), "\n"), 0)
				b.WriteString("</h" + level + ">\n")
				return i + 1
			}
			if startsBlock(l) || (depth < maxMarkdownDepth && isItemWithText(l)) || isTableStart(lines, i) {
				break
			}
		}
		i++
	}
	text := strings.Join(trimAll(lines[start:i]), "\n")
	if !tight {
		b.WriteString("<p>")
	}
	mdInline(b, text, 0)
	if !tight {
		b.WriteString("</p>")
	}
	b.WriteString("\n")
	return i
}

// isItemWithText reports whether l starts a list item that is not empty,
// which may interrupt a paragraph.
func isItemWithText(l string) bool {
	m := mdListItem.FindStringSubmatchIndex(l)
	return m != nil && m[1] < len(l)
}

func trimAll(lines []string) []string {
	out := make([]string, len(lines))
	for k, l := range lines {
		out[k] = strings.TrimSpace(l)
	}
	return out
}
