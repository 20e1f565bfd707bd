package parse

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// Fields is the members of one object under a few keys, picked from its
// bytes without a map (PickFields): a parser of a dense format (Pi's, most
// of whose lines are small messages) reads each line's objects this way,
// where an Object allocates a map and a string for every member of each.
// Its accessors read a value as Object's do; a key it was not asked for
// reads as absent.
type Fields struct {
	keys []string
	vals [maxFields]json.RawMessage
}

// maxFields is how many keys one PickFields reads at most.
const maxFields = 16

// PickFields reads the members of raw, one object of a line that was
// validated (see Stats.LineFields), whose keys are among keys (at most
// maxFields): each value as Object holds it, the last member of a key
// counting. ok is false when raw is not an object.
func PickFields(raw []byte, keys []string) (f Fields, ok bool) {
	if len(keys) > maxFields {
		panic("parse.PickFields: more than 16 keys")
	}
	f.keys = keys
	i := skipWS(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return f, false
	}
	i = skipWS(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return endOf(f, raw, i+1)
	}
	for {
		if i >= len(raw) || raw[i] != '"' {
			return Fields{keys: keys}, false
		}
		end := stringEnd(raw, i)
		if end < 0 {
			return Fields{keys: keys}, false
		}
		slot := f.slot(raw[i+1 : end-1])
		if i = skipWS(raw, end); i >= len(raw) || raw[i] != ':' {
			return Fields{keys: keys}, false
		}
		start := skipWS(raw, i+1)
		vend := valueEnd(raw, start)
		if vend < 0 {
			return Fields{keys: keys}, false
		}
		if slot >= 0 {
			f.vals[slot] = raw[start:vend:vend]
		}
		var closed bool
		if i, closed = afterElement(raw, vend, '}'); i < 0 {
			return Fields{keys: keys}, false
		} else if closed {
			return endOf(f, raw, i)
		}
	}
}

// slot returns the index in f.keys of the key whose literal's inside is
// lit, -1 for another key. A key is compared as Object decodes it: as it
// is unless it has an escape or is not valid UTF-8.
func (f *Fields) slot(lit []byte) int {
	if bytes.IndexByte(lit, '\\') >= 0 || !utf8.Valid(lit) {
		key, ok := unquote(lit)
		if !ok {
			return -1
		}
		lit = []byte(key)
	}
	for n, k := range f.keys {
		if string(lit) == k {
			return n
		}
	}
	return -1
}

// Raw returns the value at k, nil when absent.
func (f *Fields) Raw(k string) json.RawMessage {
	for n, key := range f.keys {
		if key == k {
			return f.vals[n]
		}
	}
	return nil
}

// StrOK returns the string at k and whether there is one.
func (f *Fields) StrOK(k string) (string, bool) { return strOK(f.Raw(k)) }

// Str returns the string at k, or "".
func (f *Fields) Str(k string) string {
	s, _ := strOK(f.Raw(k))
	return s
}

// Has reports whether k is present and not null (Object.Has).
func (f *Fields) Has(k string) bool {
	raw := f.Raw(k)
	return len(raw) > 0 && string(raw) != "null"
}

// FirstStr returns the value of the first of keys that is present, if it
// is a string (Object.FirstStr).
func (f *Fields) FirstStr(keys ...string) (string, bool) {
	for _, k := range keys {
		if raw := f.Raw(k); raw != nil {
			return strOK(raw)
		}
	}
	return "", false
}

// U64 returns the value of k if it is a non-negative integer literal
// (Object.U64).
func (f *Fields) U64(k string) (uint64, bool) {
	n, err := strconv.ParseUint(string(f.Raw(k)), 10, 64)
	return n, err == nil
}

// Boolean returns the boolean at k.
func (f *Fields) Boolean(k string) (value, ok bool) { return boolOf(f.Raw(k)) }

// Integer returns the JSON integer at k (serde's as_i64).
func (f *Fields) Integer(k string) (int64, bool) { return intOf(f.Raw(k)) }

// F64 returns the value of k if it is a finite number.
func (f *Fields) F64(k string) (float64, bool) { return f64Of(f.Raw(k)) }

// NonNeg reads a token count at k, as NonNeg reads an Object's.
func (f *Fields) NonNeg(k string) int64 { return nonNegOf(f.Raw(k)) }

// StrOf is StrOK of one raw value: the string raw is, and whether it is one.
func StrOf(raw []byte) (string, bool) { return strOK(raw) }

// Elements returns the elements of raw, a valid JSON array, nil when it
// is not one (Object.List of one value).
func Elements(raw []byte) []json.RawMessage {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	a, ok := splitArray(raw)
	if !ok {
		return nil
	}
	return a
}

// LineFields is Line for a parser that reads Fields: it counts line,
// validates it as one JSON object (a blank line is false, anything else
// that is not an object is counted as malformed) and picks keys from a
// copy of it.
func (s *Stats) LineFields(line []byte, keys []string) (Fields, bool) {
	s.Lines++
	raw := bytes.TrimSpace(line)
	if len(raw) == 0 {
		return Fields{keys: keys}, false
	}
	if raw[0] != '{' || !ValidJSON(raw) {
		s.NoteMalformed()
		return Fields{keys: keys}, false
	}
	return PickFields(bytes.Clone(raw), keys)
}
