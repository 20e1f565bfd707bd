package codec

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// The JSON an agent writes is usually already in serde_json's compact form:
// JSON.stringify and serde escape strings alike and write no white space.
// Re-encoding such a value token by token with encoding/json (what
// appendSerdeValue does) was most of the cost of compacting tool inputs, a
// twentieth of an import's CPU. canonEnd recognises the values that are
// already in that form, which are then copied as they are;
// FuzzSerdeCanonical checks that the re-encoding leaves every one of them
// unchanged.

// canonDepth and canonKeys bound what canonEnd accepts: deeper values and
// larger objects take the general path.
const (
	canonDepth = 64
	canonKeys  = 32
)

// canonEnd returns the index just after the JSON value at b[i] when that
// value is exactly what appendSerdeValue would write for it, else -1. It
// accepts no white space, integers only in their shortest form that fit
// 18 digits, strings in valid UTF-8 with serde's escapes only, and objects
// without repeated keys.
func canonEnd(b []byte, i, depth int) int {
	if i >= len(b) || depth > canonDepth {
		return -1
	}
	switch c := b[i]; {
	case c == '"':
		return canonString(b, i)
	case c == '{':
		i++
		if i < len(b) && b[i] == '}' {
			return i + 1
		}
		var keys [canonKeys][2]int
		for n := 0; ; n++ {
			end := canonString(b, i)
			if end < 0 || n == canonKeys || end >= len(b) || b[end] != ':' {
				return -1
			}
			for _, k := range keys[:n] {
				if bytes.Equal(b[k[0]:k[1]], b[i:end]) {
					return -1 // serde keeps one of them
				}
			}
			keys[n] = [2]int{i, end}
			if i = canonEnd(b, end+1, depth+1); i < 0 || i >= len(b) {
				return -1
			}
			switch b[i] {
			case ',':
				i++
			case '}':
				return i + 1
			default:
				return -1
			}
		}
	case c == '[':
		i++
		if i < len(b) && b[i] == ']' {
			return i + 1
		}
		for {
			if i = canonEnd(b, i, depth+1); i < 0 || i >= len(b) {
				return -1
			}
			switch b[i] {
			case ',':
				i++
			case ']':
				return i + 1
			default:
				return -1
			}
		}
	case c == '-' || c >= '0' && c <= '9':
		return canonInt(b, i)
	case c == 't':
		return canonLiteral(b, i, "true")
	case c == 'f':
		return canonLiteral(b, i, "false")
	case c == 'n':
		return canonLiteral(b, i, "null")
	}
	return -1
}

// canonString returns the index just after the string at b[i] when serde
// would write its value the same way, else -1.
func canonString(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	start := i + 1
	for i = start; ; {
		switch i = PlainEnd(b, i); {
		case i >= len(b) || b[i] < 0x20:
			return -1
		case b[i] == '"':
			if !utf8.Valid(b[start:i]) {
				return -1
			}
			return i + 1
		}
		// A backslash.
		if i+1 >= len(b) {
			return -1
		}
		switch b[i+1] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			// serde writes \u00XX, lower-case, for the control characters
			// without a short escape, and nothing else.
			if i+5 >= len(b) || b[i+2] != '0' || b[i+3] != '0' || b[i+4] > '1' || b[i+4] < '0' {
				return -1
			}
			h := b[i+5]
			var v byte
			switch {
			case h >= '0' && h <= '9':
				v = h - '0'
			case h >= 'a' && h <= 'f':
				v = h - 'a' + 10
			default:
				return -1
			}
			switch v += (b[i+4] - '0') << 4; v {
			case '\b', '\f', '\n', '\r', '\t':
				return -1
			}
			i += 6
		default:
			return -1
		}
	}
}

// canonInt returns the index just after the integer at b[i] when it is in
// its shortest form with at most 18 digits (so it fits an int64 either
// way), else -1; other numbers take the general path.
func canonInt(b []byte, i int) int {
	if b[i] == '-' {
		i++
		if i >= len(b) || b[i] < '1' || b[i] > '9' {
			return -1 // not a number, or -0
		}
	}
	start := i
	if i < len(b) && b[i] == '0' {
		i++
	} else {
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i == start || i-start > 18 {
		return -1
	}
	if i < len(b) {
		switch b[i] {
		case '.', 'e', 'E', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return -1
		}
	}
	return i
}

func canonLiteral(b []byte, i int, lit string) int {
	if !bytes.HasPrefix(b[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

// canonMembers is objectMembers for an object canonEnd accepts whose keys
// have no escapes; ok is false for anything else.
func canonMembers(raw []byte) (members, bool) {
	if len(raw) == 0 || raw[0] != '{' || canonEnd(raw, 0, 0) != len(raw) {
		return nil, false
	}
	var ms members
	for i := 1; raw[i] != '}'; {
		end := canonString(raw, i)
		key := raw[i+1 : end-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return nil, false
		}
		vend := canonEnd(raw, end+1, 1)
		ms = append(ms, member{string(key), json.RawMessage(raw[end+1 : vend : vend])})
		if i = vend; raw[i] == ',' {
			i++
		}
	}
	return ms, true
}
