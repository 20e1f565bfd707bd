// Package printable makes stored text safe to print on a terminal or to
// write into an export: control characters and bidirectional overrides
// that a terminal or an editor would act on (ESC and BEL sequences that set
// a window title, clear the screen or make a hyperlink; CR that overwrites
// a line; U+202E that reverses text) are shown as escapes instead.
//
// The convention, the same everywhere: a C0 control, DEL or a byte that is
// not UTF-8 is written \xNN (ESC is \x1b, CR \x0d, NUL \x00); a C1 control
// (U+0080–U+009F), a bidirectional control or a line or paragraph
// separator is written \uNNNN (U+202E is \u202e). Text keeps tab and
// newline, and turns CR LF into LF; Line escapes them too, for fields that
// must stay on one line. Everything else, backslashes included, is left as
// it is: the escapes are for reading, not for decoding.
//
// The functions are safe for concurrent use; a Writer is not.
package printable

import (
	"io"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// Text returns s with every control character escaped except tab and
// newline; CR LF becomes LF.
func Text(s string) string {
	if clean(s, true) {
		return s
	}
	return string(appendEscaped(make([]byte, 0, len(s)+16), s, true))
}

// Line returns s with every control character escaped, tab and newline
// included, so that s stays on one line.
func Line(s string) string {
	if clean(s, false) {
		return s
	}
	return string(appendEscaped(make([]byte, 0, len(s)+16), s, false))
}

// clean reports whether s needs no escape (the common case, checked
// without allocating).
func clean(s string, layout bool) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && !(layout && (c == '\t' || c == '\n'))) || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && w == 1 || special(r) {
			return false
		}
		i += w
	}
	return true
}

// special reports whether r, a valid rune at or above U+0080, is shown
// as \uNNNN: a C1 control, a bidirectional control (the embeddings,
// overrides and isolates, the marks) or a line or paragraph separator.
func special(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f:
		return true
	case r >= 0x2028 && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// appendEscaped appends s to dst with its control characters escaped.
// layout keeps tab and newline (and turns CR LF into LF).
func appendEscaped(dst []byte, s string, layout bool) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case layout && (c == '\t' || c == '\n'):
				dst = append(dst, c)
			case layout && c == '\r' && i+1 < len(s) && s[i+1] == '\n':
				// CR LF: the LF alone is the line break.
			case c < 0x20 || c == 0x7f:
				dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			dst = append(dst, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		case special(r):
			dst = appendU(dst, r)
		default:
			dst = append(dst, s[i:i+w]...)
		}
		i += w
	}
	return dst
}

// appendU appends r as \uNNNN.
func appendU(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// Writer escapes what is written through it as Text does, or as JSON
// does. A rune or a CR LF split between two writes is held back until the
// next one; Close writes what is held back. Close does not close the
// underlying writer.
type Writer struct {
	w     io.Writer
	json  bool
	carry []byte
	buf   []byte
}

// NewWriter returns a Writer that writes the escaped text to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// NewJSONWriter returns a Writer for JSON text, whose C0 controls are
// escaped already (a JSON string cannot hold them): it writes each C1
// control, bidirectional control and line or paragraph separator as its
// JSON escape \uNNNN, which decodes to the same string, and leaves
// everything else as it is.
func NewJSONWriter(w io.Writer) *Writer { return &Writer{w: w, json: true} }

// escape appends s, escaped for the writer's kind of text, to dst.
func (pw *Writer) escape(dst []byte, s string) []byte {
	if !pw.json {
		return appendEscaped(dst, s, true)
	}
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			dst = append(dst, s[i])
			i++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[i:])
		if special(r) {
			dst = appendU(dst, r)
		} else {
			dst = append(dst, s[i:i+w]...)
		}
		i += w
	}
	return dst
}

// Write escapes p and writes it, holding back an incomplete rune or a
// final CR.
func (pw *Writer) Write(p []byte) (int, error) {
	data := p
	if len(pw.carry) > 0 {
		data = append(pw.carry, p...)
	}
	cut := heldBack(data)
	pw.buf = pw.escape(pw.buf[:0], string(data[:cut]))
	pw.carry = append(pw.carry[:0], data[cut:]...) // may overlap data: copy moves
	if _, err := pw.w.Write(pw.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close writes what Write held back.
func (pw *Writer) Close() error {
	if len(pw.carry) == 0 {
		return nil
	}
	pw.buf = pw.escape(pw.buf[:0], string(pw.carry))
	pw.carry = nil
	_, err := pw.w.Write(pw.buf)
	return err
}

// heldBack returns where the tail of data that may continue in the next
// write starts: a final CR (which may be half of CR LF), or the start of a
// rune that is not complete yet.
func heldBack(data []byte) int {
	n := len(data)
	if n > 0 && data[n-1] == '\r' {
		return n - 1
	}
	for i := n - 1; i >= 0 && i >= n-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				return i
			}
			break
		}
	}
	return n
}
