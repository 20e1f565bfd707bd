package parse

import (
	"bytes"
	"encoding/json"
)

// Splitting what was validated. DecodeObject validates a whole line once;
// every value of the Object it returns is then valid JSON, and so is every
// value of an Object split from one of them. Descending into them (Obj,
// Objs, List) only has to find where each value ends: strings are skipped
// by looking for their closing quote (bytes.IndexByte, which does not stop
// at every escape as validating does), nesting by counting brackets. On
// bytes that are not valid JSON, which no Object holds, the splitters
// return ok false or some split of them, and never read out of bounds.

// splitObject splits raw, one valid JSON object, into its keys and raw
// values (slices of raw with no room to grow).
func splitObject(raw []byte) (Object, bool) { return objectMembers(raw, true) }

// memberKey reads the key of the object member at raw[i] and its colon:
// the key and the index of the value. With valid, raw is known to be
// valid JSON and the key's end is only looked for; else it is validated.
func memberKey(raw []byte, i int, valid bool) (key string, value int, ok bool) {
	if i >= len(raw) || raw[i] != '"' {
		return "", 0, false
	}
	var end int
	var plain bool
	if valid {
		end = stringEnd(raw, i)
		plain = end >= 0 && bytes.IndexByte(raw[i+1:end-1], '\\') < 0
	} else {
		end, plain = scanString(raw, i)
	}
	if end < 0 {
		return "", 0, false
	}
	if key, ok = stringValue(raw[i:end], plain); !ok {
		return "", 0, false
	}
	i = skipWS(raw, end)
	if i >= len(raw) || raw[i] != ':' {
		return "", 0, false
	}
	return key, skipWS(raw, i+1), true
}

// splitArray splits raw, one valid JSON array, into its elements' raw
// bytes (slices of raw with no room to grow).
func splitArray(raw []byte) ([]json.RawMessage, bool) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	a := []json.RawMessage{}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return a, true
	}
	for {
		end := valueEnd(raw, i)
		if end < 0 {
			return nil, false
		}
		a = append(a, raw[i:end:end])
		var closed bool
		if i, closed = afterElement(raw, end, ']'); i < 0 {
			return nil, false
		} else if closed {
			return a, true
		}
	}
}

// valueEnd returns the index just after the valid JSON value that starts
// at b[i], or -1 when b ends first.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				if i = stringEnd(b, i); i < 0 {
					return -1
				}
				i-- // the loop steps past the closing quote
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for ; i < len(b); i++ { // a number or a literal runs to a delimiter
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// stringEnd returns the index just after the string literal that starts
// at b[i] (a quote): after the first quote that an even run of
// backslashes (none included) precedes. -1 when there is none.
func stringEnd(b []byte, i int) int {
	for from := i + 1; ; {
		q := bytes.IndexByte(b[from:], '"')
		if q < 0 {
			return -1
		}
		q += from
		k := q // b[from-1] is a quote, so the run of backslashes starts at from at the earliest
		for k > from && b[k-1] == '\\' {
			k--
		}
		if (q-k)%2 == 0 {
			return q + 1
		}
		from = q + 1
	}
}

// TextParts returns the "text" of each object element of the array raw (a
// valid JSON value, as an Object's values are) whose "type" is typ, in
// order; such a part whose text is missing or not a string gives "". ok is
// false when raw is not an array. It is Objs and Str over a message's
// content parts without an Object per part: each part's fields are read as
// they come and its text is found once and decoded once (a tool result's
// text is most of its line).
func TextParts(raw []byte, typ string) (parts []string, ok bool) {
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return nil, false
	}
	parts = []string{}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return parts, true
	}
	for {
		var end int
		if i < len(raw) && raw[i] == '{' {
			var text []byte
			var match bool
			if end, text, match = textPart(raw, i, typ); end < 0 {
				return nil, false
			}
			if match {
				s, _ := strOK(text)
				parts = append(parts, s)
			}
		} else if end = valueEnd(raw, i); end < 0 {
			return nil, false
		}
		var closed bool
		if i, closed = afterElement(raw, end, ']'); i < 0 {
			return nil, false
		} else if closed {
			return parts, true
		}
	}
}

// textPart reads the object at raw[i]: the index after it (-1 when it is
// not one), the raw value of its "text", and whether its "type" is typ (a
// missing or non-string type reads as "", as Str reads it; the last of
// repeated keys counts, as in an Object).
func textPart(raw []byte, i int, typ string) (end int, text []byte, match bool) {
	var partType string
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return i + 1, nil, typ == ""
	}
	for {
		key, start, ok := memberKey(raw, i, true)
		if !ok {
			return -1, nil, false
		}
		vEnd := valueEnd(raw, start)
		if vEnd < 0 {
			return -1, nil, false
		}
		switch key {
		case "type":
			partType, _ = strOK(raw[start:vEnd])
		case "text":
			text = raw[start:vEnd]
		}
		var closed bool
		if i, closed = afterElement(raw, vEnd, '}'); i < 0 {
			return -1, nil, false
		} else if closed {
			return i, text, partType == typ
		}
	}
}
