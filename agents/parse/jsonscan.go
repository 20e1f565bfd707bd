package parse

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/lazuli-app/lazuli/codec"
)

// A one-level JSON scanner for Object. The parsers read a transcript line
// as an object of raw values, then decode the few values they need one by
// one, so encoding/json's Unmarshal into map[string]json.RawMessage did the
// work several times over: a validation pass over the whole line, a second
// pass that decoded it, and a copy of every value, again at every level the
// parsers descended (64 % of an import's CPU). This scanner validates and
// splits an object in one pass, and its values are slices of one copy of
// the input. It accepts and rejects exactly what encoding/json does, and
// gives the same keys and value bytes (FuzzScanObject checks both), but
// for one thing: like AZUREAL's serde_json, it rejects a number too large
// for an f64 (1e400), where encoding/json accepts any number's text.

// maxJSONDepth is encoding/json's nesting limit: deeper input is rejected.
const maxJSONDepth = 10000

// scanObject splits raw, a JSON object with optional white space around
// it, into its keys and raw values, which are slices of raw with no room
// to grow (an append copies). ok is false for anything but one valid
// object.
func scanObject(raw []byte) (Object, bool) { return objectMembers(raw, false) }

// objectMembers splits raw, a JSON object with optional white space around
// it, into its keys and raw values: validating it (scanObject), or, when it
// is known to be valid (split), only finding where its members end.
func objectMembers(raw []byte, valid bool) (Object, bool) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	o := Object{}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return endOf(o, raw, i+1)
	}
	for {
		key, start, ok := memberKey(raw, i, valid)
		if !ok {
			return nil, false
		}
		var end int
		if valid {
			end = valueEnd(raw, start)
		} else {
			end = skipValue(raw, start)
		}
		if end < 0 {
			return nil, false
		}
		o[key] = raw[start:end:end]
		var closed bool
		if i, closed = afterElement(raw, end, '}'); i < 0 {
			return nil, false
		} else if closed {
			return endOf(o, raw, i)
		}
	}
}

// afterElement reads what follows an element ending at raw[i] of an
// object or array that closing ends: a comma, after which it returns the
// index of the next element, or closing, after which it returns the index
// past it and closed true; -1 for anything else.
func afterElement(raw []byte, i int, closing byte) (next int, closed bool) {
	i = skipWS(raw, i)
	switch {
	case i >= len(raw):
		return -1, false
	case raw[i] == ',':
		return skipWS(raw, i+1), false
	case raw[i] == closing:
		return i + 1, true
	}
	return -1, false
}

// endOf returns v when nothing but white space follows raw[i:], else the
// zero value and false.
func endOf[T any](v T, raw []byte, i int) (T, bool) {
	if skipWS(raw, i) != len(raw) {
		var zero T
		return zero, false
	}
	return v, true
}

// stringValue decodes raw, one valid JSON string (plain: without escapes),
// as encoding/json does: invalid UTF-8 becomes U+FFFD, and so does a \u
// escape of half a surrogate pair.
func stringValue(raw []byte, plain bool) (string, bool) {
	inner := raw[1 : len(raw)-1]
	if plain && utf8.Valid(inner) {
		return string(inner), true
	}
	return unquote(inner)
}

// unquote decodes s, the inside of a JSON string, as encoding/json does
// (FuzzScanObject compares them), or returns ok false when s is not the
// inside of a valid string literal: a bare quote or control character, an
// escape JSON does not have, a backslash at the end.
func unquote(s []byte) (string, bool) {
	b := make([]byte, 0, len(s)+2*utf8.UTFMax)
	for r := 0; r < len(s); {
		switch c := s[r]; {
		case c == '\\':
			if r+1 >= len(s) {
				return "", false
			}
			switch e := s[r+1]; e {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				b = append(b, shortEscapes[e])
				r += 2
			case 'u':
				rr := getu4(s[r:])
				if rr < 0 {
					return "", false
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						b = utf8.AppendRune(b, dec)
						r += 6
						break
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			default:
				return "", false
			}
		case c == '"' || c < ' ':
			return "", false
		case c < utf8.RuneSelf: // a run of printable ASCII, copied as it is
			end := codec.PlainASCIIEnd(s, r)
			b = append(b, s[r:end]...)
			r = end
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return unsafe.String(unsafe.SliceData(b), len(b)), true // b is the string's own: nothing else holds it
}

// shortEscapes maps the letter of a two-character escape to its byte.
var shortEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// skipWS returns the index of the first byte at or after i that is not
// JSON white space.
func skipWS(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the index just after the JSON value starting at b[i],
// or -1 when there is no valid value there.
func skipValue(b []byte, i int) int {
	var stack []byte // the closing brackets of the open arrays and objects
	for {
		if i >= len(b) {
			return -1
		}
		// A value.
		switch c := b[i]; {
		case c == '"':
			if i, _ = scanString(b, i); i < 0 {
				return -1
			}
		case c == '{' || c == '[':
			if len(stack) >= maxJSONDepth {
				return -1
			}
			closing := byte('}')
			if c == '[' {
				closing = ']'
			}
			stack = append(stack, closing)
			i = skipWS(b, i+1)
			if i < len(b) && b[i] == closing {
				stack = stack[:len(stack)-1]
				i++
				break
			}
			if c == '{' {
				if i = objectKey(b, i); i < 0 {
					return -1
				}
			}
			continue
		case c == '-' || c >= '0' && c <= '9':
			if i = scanNumber(b, i); i < 0 {
				return -1
			}
		case c == 't':
			if i = literal(b, i, "true"); i < 0 {
				return -1
			}
		case c == 'f':
			if i = literal(b, i, "false"); i < 0 {
				return -1
			}
		case c == 'n':
			if i = literal(b, i, "null"); i < 0 {
				return -1
			}
		default:
			return -1
		}
		// After a value: close what it ends, then the next element.
		for {
			if len(stack) == 0 {
				return i
			}
			i = skipWS(b, i)
			if i >= len(b) {
				return -1
			}
			top := stack[len(stack)-1]
			if b[i] == top {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return -1
			}
			i = skipWS(b, i+1)
			if top == '}' {
				if i = objectKey(b, i); i < 0 {
					return -1
				}
			}
			break
		}
	}
}

// objectKey skips a key and its colon at b[i] and the white space after
// them, returning the index of the value, or -1.
func objectKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i, _ = scanString(b, i); i < 0 {
		return -1
	}
	i = skipWS(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return skipWS(b, i+1)
}

// scanString returns the index just after the JSON string starting at
// b[i] (a quote), or -1 when it is not valid, and whether it has no
// escapes.
func scanString(b []byte, i int) (end int, plain bool) {
	plain = true
	for i++; ; i++ {
		if i = codec.PlainEnd(b, i); i >= len(b) {
			return -1, false
		}
		switch b[i] {
		case '"':
			return i + 1, plain
		case '\\':
			plain = false
			if i++; i >= len(b) {
				return -1, false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return -1, false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return -1, false
					}
				}
				i += 4
			default:
				return -1, false
			}
		default: // a control character
			return -1, false
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// maxExactDigits is the most integer digits a JSON number without an
// exponent can have and be sure to fit an f64: 10^308 < math.MaxFloat64.
const maxExactDigits = 308

// scanNumber returns the index just after the JSON number starting at
// b[i], or -1. A number serde_json rejects as out of range (an f64
// overflow: 1e400) is -1 too: AZUREAL cannot parse a line that holds one,
// so a parser that kept the line would store what AZUREAL never does.
func scanNumber(b []byte, i int) int {
	start := i
	if b[i] == '-' {
		if i++; i >= len(b) {
			return -1
		}
	}
	intStart := i
	switch {
	case b[i] == '0':
		i++
	case b[i] >= '1' && b[i] <= '9':
		i = digits(b, i)
	default:
		return -1
	}
	long := i-intStart > maxExactDigits
	if i < len(b) && b[i] == '.' {
		if i++; i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		i = digits(b, i)
	}
	exp := i < len(b) && (b[i] == 'e' || b[i] == 'E')
	if exp {
		if i++; i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || !isDigit(b[i]) {
			return -1
		}
		i = digits(b, i)
	}
	if (exp || long) && !inF64Range(b[start:i]) {
		return -1
	}
	return i
}

// inF64Range reports whether serde_json reads the number lit as a finite
// f64 (store.ParseSerdeFloat fails where it reports "number out of
// range").
func inF64Range(lit []byte) bool {
	_, err := codec.ParseSerdeFloat(string(lit))
	return err == nil
}

// ValidJSON reports whether b is one JSON value, with optional white
// space around it, that AZUREAL's serde_json parses: valid JSON without a
// number out of an f64's range.
func ValidJSON(b []byte) bool {
	end := skipValue(b, skipWS(b, 0))
	return end >= 0 && skipWS(b, end) == len(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// literal returns the index after word at b[i], or -1 when it is not there.
func literal(b []byte, i int, word string) int {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}
