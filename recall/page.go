package recall

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Paging: every answer is at most MaxChars characters (the caller's
// max_chars, DefaultMaxChars when 0); a longer one ends with a
// continuation cursor that the same tool takes back as its "cursor"
// argument to return the next part.
const (
	DefaultMaxChars = 20000
	MaxMaxChars     = 200000
	minMaxChars     = 500
)

// Answer is what a tool returns: Markdown for the agent.
type Answer struct {
	Text string
	// Cursor continues a cut answer ("" when it is whole).
	Cursor string
	// Redactions counts the secrets replaced in Text.
	Redactions int
}

// cursor is what a continuation token holds: the tool, its arguments
// (as the first call gave them, except a read_session's from_event) and
// where in the rendered answer the next part starts.
type cursor struct {
	Tool   string          `json:"t"`
	Args   json.RawMessage `json:"a"`
	Offset int             `json:"o"` // byte offset into the rendered text
}

func (c cursor) encode() string {
	b, _ := json.Marshal(c) // strings and raw JSON always marshal
	return base64.RawURLEncoding.EncodeToString(b)
}

// maxCursor bounds a cursor an agent sends back.
const maxCursor = 64 << 10

// decodeCursor reads the token of tool.
func decodeCursor(tool, token string) (cursor, error) {
	var c cursor
	if len(token) > maxCursor {
		return c, badArg("cursor longer than %d characters", maxCursor)
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.Offset < 0 {
		return c, badArg("cursor %.40q is not one this server gave", token)
	}
	if c.Tool != tool {
		return c, badArg("cursor of %s given to %s", c.Tool, tool)
	}
	return c, nil
}

// maxChars reads a max_chars argument.
func maxChars(n int) (int, error) {
	switch {
	case n == 0:
		return DefaultMaxChars, nil
	case n < minMaxChars || n > MaxMaxChars:
		return 0, badArg("max_chars %d: want %d to %d", n, minMaxChars, MaxMaxChars)
	}
	return n, nil
}

// page redacts text, cuts the part from offset to at most limit
// characters (at a line end when one is near) and, when more follows,
// sets the cursor that continues it from c.
func page(text string, offset, limit int, c cursor) Answer {
	text, n := redact(text)
	if offset > len(text) {
		offset = len(text)
	}
	rest := text[offset:]
	if utf8.RuneCountInString(rest) <= limit {
		return Answer{Text: rest, Redactions: n}
	}
	// The note's length with the longest offset it can hold.
	c.Offset = len(text)
	reserve := utf8.RuneCountInString(cutNote(c, text)) + 8
	end := cutAt(rest, max(limit-reserve, 1))
	c.Offset = offset + end
	a := Answer{Text: rest[:end] + cutNote(c, text), Cursor: c.encode(), Redactions: n}
	return a
}

// cutNote tells the agent where the answer was cut and how to go on.
func cutNote(c cursor, text string) string {
	return fmt.Sprintf("\n\n… cut at %d of %d characters: call %s again with cursor %q for the rest.\n",
		utf8.RuneCountInString(text[:c.Offset]), utf8.RuneCountInString(text), c.Tool, c.encode())
}

// cutAt returns the byte length of the first n characters of s, moved
// back to the end of a line when one ends in the last quarter.
func cutAt(s string, n int) int {
	end, k := len(s), 0
	for i := range s {
		if k == n {
			end = i
			break
		}
		k++
	}
	if nl := strings.LastIndexByte(s[:end], '\n'); nl > end*3/4 {
		return nl + 1
	}
	return end
}
