package export

import (
	"bufio"
	"strconv"
	"strings"

	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/safelink"
)

// maxParamRunes caps a tool's key parameter in a heading.
const maxParamRunes = 120

// renderMarkdown writes src as Markdown (CommonMark with GitHub's tables
// left out): a title and metadata, then each prompt under "## You", the
// agent's reply under "### Assistant", tool calls as "#### Tool" headings
// over fenced code (sh for commands, diff for edits), and tool results in
// fences. Prompts, assistant text, plans and summaries are written as they
// are (they are Markdown already), except raw HTML and links that would act
// when the file is viewed, which are shown as text (safelink.Markdown), with any code
// fence they leave open closed; everything in a fence is fenced with more backticks than it
// contains, so nothing can break out of it.
func renderMarkdown(w *bufio.Writer, src Source) error {
	name := src.Session.DisplayName()
	w.WriteString("# " + mdEscape(name) + "\n\n")
	for _, m := range metadata(src) {
		w.WriteString("- **" + m.label + ":** " + mdEscape(m.value) + "\n")
	}
	for _, it := range items(src) {
		w.WriteString("\n")
		mdItem(w, &it)
	}
	w.WriteString("\n---\n\n*Exported from " + generator + ".*\n")
	return nil
}

// mdItem writes one item, starting on a fresh line after a blank one.
func mdItem(w *bufio.Writer, it *item) {
	if it.reply {
		w.WriteString("### Assistant\n\n")
	}
	switch it.kind {
	case itemUser:
		w.WriteString("## You\n\n")
		mdText(w, it.text)
	case itemAssistant:
		mdText(w, it.text)
	case itemPlan:
		w.WriteString("#### Plan: " + mdEscape(it.title) + "\n\n")
		mdText(w, it.text)
	case itemTool:
		mdTool(w, it)
	case itemResult:
		label, empty := "Result:", "*Result: (empty)*"
		if !it.ok {
			label, empty = "**Error:**", "**Error:** *(empty)*"
		}
		if it.text == "" {
			w.WriteString(empty + "\n")
			return
		}
		w.WriteString(label + "\n\n")
		mdFence(w, "text", cleanText(it.text))
		mdNote(w, it.note)
		mdFull(w, it.full)
	case itemHook:
		w.WriteString("*Hook " + mdEscape(it.title) + "*\n")
		if it.text != "" {
			w.WriteString("\n")
			mdFence(w, "text", cleanText(it.text))
			mdNote(w, it.note)
		}
	case itemComplete, itemNotice:
		w.WriteString("*" + mdEscape(it.title) + "*\n")
	case itemThinking:
		w.WriteString("<details><summary>Thinking</summary>\n\n")
		mdFence(w, "text", cleanText(it.text))
		w.WriteString("\n</details>\n")
	case itemCompaction:
		w.WriteString("---\n\n**" + it.title + "** *(compacted; covers up to event #" + formatSeq(it.seq) + ")*\n\n")
		mdText(w, it.text)
		w.WriteString("\n---\n")
	}
}

// mdFull writes the full text of a shortened event behind a fold (an HTML
// <details>, which Markdown viewers show collapsed).
func mdFull(w *bufio.Writer, full string) {
	if full == "" {
		return
	}
	text, note, lines := fullPart(full)
	w.WriteString("\n<details><summary>Full output (" + lines + ")</summary>\n\n")
	mdFence(w, "text", text)
	mdNote(w, note)
	w.WriteString("\n</details>\n")
}

// mdTool writes a tool call: a heading with the tool's name and key
// parameter, then its diff, command or input.
func mdTool(w *bufio.Writer, it *item) {
	defer mdFull(w, it.full)
	w.WriteString("#### " + mdEscape(it.title))
	if it.param != "" {
		w.WriteString(" " + codeSpan(firstLine(it.param, maxParamRunes)))
	}
	w.WriteString("\n")
	if it.note != "" && it.diff == nil {
		w.WriteString("\n*" + mdEscape(it.note) + "*\n")
	}
	switch {
	case it.diff != nil:
		var b strings.Builder
		for _, l := range it.diff {
			b.WriteString(l.Text)
			b.WriteByte('\n')
		}
		w.WriteString("\n")
		mdFence(w, "diff", b.String())
		mdNote(w, it.note)
	case it.code != "":
		w.WriteString("\n")
		mdFence(w, it.lang, it.code)
	}
}

// mdText writes Markdown as it is, except what would act when the export
// is viewed (raw HTML, unsafe links, images: see safelink.Markdown), closing a code
// fence it leaves open. Control characters are escaped first, as the
// printable.Writer under Render would, so safelink.Markdown reads what is written.
func mdText(w *bufio.Writer, s string) {
	s = strings.TrimRight(printable.Text(strings.ToValidUTF8(s, "\uFFFD")), " \t\n")
	if s == "" {
		w.WriteString("*(empty)*\n")
		return
	}
	s = safelink.Markdown(s)
	w.WriteString(s)
	w.WriteString("\n")
	if f := openFence(s); f != "" {
		w.WriteString(f + "\n")
	}
}

// mdNote writes a truncation note under a fence.
func mdNote(w *bufio.Writer, note string) {
	if note != "" {
		w.WriteString("\n*" + mdEscape(note) + "*\n")
	}
}

// mdFence writes s in a fenced code block whose fence is longer than any
// run of backticks in s.
func mdFence(w *bufio.Writer, lang, s string) {
	fence := safelink.Fence(s, 3)
	w.WriteString(fence + lang + "\n")
	w.WriteString(strings.ToValidUTF8(s, "\uFFFD"))
	if !strings.HasSuffix(s, "\n") {
		w.WriteString("\n")
	}
	w.WriteString(fence + "\n")
}

// codeSpan writes s as inline code, with more backticks than s holds and
// padded when s starts or ends with a backtick.
func codeSpan(s string) string {
	s = strings.ToValidUTF8(strings.ReplaceAll(s, "\n", " "), "\uFFFD")
	ticks := safelink.Fence(s, 1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return ticks + s + ticks
}

// mdEscape makes plain text (a name, a path) literal inside a Markdown
// line (never at its start): the characters that start inline markup are
// backslash-escaped and line breaks become spaces.
func mdEscape(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\r' || c == '\t':
			b.WriteByte(' ')
			continue
		case strings.IndexByte("\\`*_[]<>&|~", c) >= 0:
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// openFence returns the fence that closes a code block s leaves open, or
// "". It follows CommonMark: a fence is three or more backticks or tildes
// after at most three spaces; it is closed by a line of at least as many of
// the same character.
func openFence(s string) string {
	open := ""
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimRight(line, " \t\r")
		indent := len(t) - len(strings.TrimLeft(t, " "))
		if indent > 3 {
			continue
		}
		t = t[indent:]
		if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
			continue
		}
		n := 0
		for n < len(t) && t[n] == t[0] {
			n++
		}
		if n < 3 {
			continue
		}
		fence := t[:n]
		switch {
		case open == "":
			if t[0] == '`' && strings.IndexByte(t[n:], '`') >= 0 {
				continue // backticks in the info string: not a fence
			}
			open = fence
		case fence[0] == open[0] && n >= len(open) && n == len(t):
			open = ""
		}
	}
	return open
}

func formatSeq(seq int64) string { return strconv.FormatInt(seq, 10) }
