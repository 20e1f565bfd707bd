package search

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// MaxEventText is how much of one event's text is indexed and searched:
// the first 64 KiB. Ingestion already shortens tool results (AZUREAL keeps
// a few lines of most), so only long prompts, replies and edit inputs reach
// it.
const MaxEventText = 64 << 10

// MaxFullText is how much of an event's full text (what ingestion
// shortened, kept in store.FullTextTable) is indexed and searched.
const MaxFullText = 1 << 20

// KindCompaction is the Hit.Kind of a match in a compaction summary.
const KindCompaction = "Compaction"

// eventText returns the searchable text of an event: what the transcript
// shows of it. It is "" for events without text worth finding (Init,
// Complete, ModelSwitch, the unit variants) and for user messages that are
// only injected or hidden context.
//
// Tool calls contribute the tool's name, the file path and every string
// value of the input (commands, paths, patterns, old and new strings of an
// edit), one per line, without the JSON syntax around them.
func eventText(e *codec.Event) string {
	var s string
	switch e.Kind {
	case codec.KindUserMessage:
		v, ok := codec.SanitizeUserMessage(e.Content)
		if !ok {
			return ""
		}
		s = v
	case codec.KindAssistantText:
		s = e.Text
	case codec.KindPlan:
		s = joinLines(e.Name, e.Content)
	case codec.KindToolCall:
		s = toolCallText(e)
	case codec.KindToolResult:
		s = e.Content
	case codec.KindHook:
		s = joinLines(e.Name, e.Output)
	case codec.KindCommand:
		s = e.Name
	}
	return capText(s)
}

// scannedText is the searchable text of a scanned event: eventText, then,
// on the lines after it, the event's full text when ingestion shortened it
// (the full tool output, or a Write's content). fullAt is where the full
// text starts in text, -1 when there is none: a match from there on is in
// what the transcript card shows only when expanded.
func scannedText(e *store.ScannedEvent) (text string, fullAt int) {
	s := eventText(&e.Event)
	if e.Full == "" || e.Event.Kind == "" {
		return s, -1
	}
	full := capTo(e.Full, MaxFullText)
	if s == "" {
		return full, 0
	}
	return s + "\n" + full, len(s) + 1
}

// scannedParts is scannedText in its two parts, not joined: the event's
// own text and its full text ("" when there is none).
func scannedParts(e *store.ScannedEvent) (own, full string) {
	own = eventText(&e.Event)
	if e.Full == "" || e.Event.Kind == "" {
		return own, ""
	}
	return own, capTo(e.Full, MaxFullText)
}

// joinedAt is where full starts in scannedText's join of own and full,
// -1 when full is "".
func joinedAt(own, full string) int {
	switch {
	case full == "":
		return -1
	case own == "":
		return 0
	}
	return len(own) + 1
}

// snippetSlack is how much text after a match snippetText keeps: more
// than a snippet ever shows after it.
const snippetSlack = 4096

// snippetText returns the start of scannedText's join of own and full
// that the snippet of a match ending at end needs, copying at most own and
// snippetSlack bytes of full: it ends, at snippetSlack after the match or
// later, just after a character that is not white space (or where the
// text does), so the snippet's ellipsis is the same as in the whole text.
func snippetText(own, full string, end int) string {
	switch {
	case full == "":
		return own
	case own == "":
		return full[:cutAfter(full, end+snippetSlack)]
	}
	if k := cutAfter(own, end+snippetSlack); k < len(own) {
		return own[:k]
	}
	return own + "\n" + full[:cutAfter(full, max(0, end+snippetSlack-len(own)-1))]
}

// cutAfter returns the end of the first rune of s at or after n that is
// not white space, or len(s).
func cutAfter(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	for n < len(s) {
		r, w := utf8.DecodeRuneInString(s[n:])
		n += w
		if !unicode.IsSpace(r) {
			return n
		}
	}
	return len(s)
}

// capText cuts s to MaxEventText bytes at a rune boundary.
func capText(s string) string { return capTo(s, MaxEventText) }

// capTo cuts s to max bytes at a rune boundary.
func capTo(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func joinLines(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

// toolCallText is the tool's name, its file path and the string leaves of
// its input, one per line.
func toolCallText(e *codec.Event) string {
	var b strings.Builder
	b.Grow(len(e.ToolName) + len(e.Input) + 8)
	b.WriteString(e.ToolName)
	if e.FilePath != nil && *e.FilePath != "" && !bytes.Contains(e.Input, []byte(*e.FilePath)) {
		b.WriteByte('\n')
		b.WriteString(*e.FilePath)
	}
	appendStringLeaves(&b, e.Input)
	return b.String()
}

// appendStringLeaves appends each string value of the JSON document js
// (not the object keys), each on a new line, in document order. js comes
// from a decoded event, so it is valid JSON; anything else adds nothing.
func appendStringLeaves(b *strings.Builder, js []byte) {
	for i := 0; i < len(js); i++ {
		if js[i] != '"' {
			continue
		}
		end, escaped := stringEnd(js, i)
		if end < 0 {
			return
		}
		lit := js[i : end+1]
		i = end
		if isKey(js, end+1) {
			continue
		}
		b.WriteByte('\n')
		if escaped {
			unescapeJSON(b, lit[1:len(lit)-1])
		} else {
			b.Write(lit[1 : len(lit)-1])
		}
	}
}

// unescapeJSON appends the value of the body of a JSON string literal:
// escapes decoded, a bad \u escape or lone surrogate as U+FFFD.
func unescapeJSON(b *strings.Builder, s []byte) {
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\\')
		if i < 0 || i+1 == len(s) {
			b.Write(s)
			return
		}
		b.Write(s[:i])
		c := s[i+1]
		s = s[i+2:]
		switch c {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			r, n := decodeUnicodeEscape(s)
			b.WriteRune(r)
			s = s[n:]
		default: // " \ /
			b.WriteByte(c)
		}
	}
}

// decodeUnicodeEscape decodes the XXXX of a \uXXXX escape at the start of
// s, with the low half of a surrogate pair when one follows, and returns
// the rune and the bytes used.
func decodeUnicodeEscape(s []byte) (rune, int) {
	r, ok := hex4(s)
	if !ok {
		return utf8.RuneError, 0
	}
	if !utf16.IsSurrogate(r) {
		return r, 4
	}
	if len(s) >= 10 && s[4] == '\\' && s[5] == 'u' {
		if lo, ok := hex4(s[6:]); ok {
			if d := utf16.DecodeRune(r, lo); d != utf8.RuneError {
				return d, 10
			}
		}
	}
	return utf8.RuneError, 4
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// stringEnd returns the index of the quote that closes the string literal
// starting at js[start], or -1, and whether the literal has escapes.
func stringEnd(js []byte, start int) (int, bool) {
	escaped := false
	for j := start + 1; j < len(js); j++ {
		switch js[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			return j, escaped
		}
	}
	return -1, escaped
}

// isKey reports whether the string literal that ends before js[i] is an
// object key: the next character that is not white space is a colon.
func isKey(js []byte, i int) bool {
	for ; i < len(js); i++ {
		switch js[i] {
		case ' ', '\t', '\n', '\r':
			continue
		case ':':
			return true
		}
		return false
	}
	return false
}

// EventText returns the searchable text of an event, as the index keeps
// it: what the transcript shows of it, at most MaxEventText bytes. Team
// sync sends the same text to its database.
func EventText(e *codec.Event) string { return eventText(e) }
