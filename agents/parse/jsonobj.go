package parse

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
)

// Object is a JSON object decoded one level deep, for the Claude and Codex
// parsers. Its accessors are lenient: a missing key or a value of another
// type reads as absent (the zero value, or ok false), so one odd field
// never costs the rest of a line.
type Object map[string]json.RawMessage

// DecodeObject decodes raw as a JSON object; ok is false for anything else
// (null included). The object keeps none of raw: its values are slices of
// one copy of it, so raw may be a reused buffer.
func DecodeObject(raw []byte) (Object, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	return scanObject(bytes.Clone(raw))
}

// Line counts line in s and decodes it as one JSON object: the start of
// every line parser's Feed. ok is false for a blank line, and for one that
// is not an object, which is counted as malformed.
func (s *Stats) Line(line []byte) (Object, bool) {
	s.Lines++
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, false
	}
	o, ok := DecodeObject(line)
	if !ok {
		s.NoteMalformed()
	}
	return o, ok
}

// subObject decodes a value of an object as an object, without a copy:
// the value is already a slice of the object's own copy, and valid JSON.
func subObject(raw []byte) (Object, bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	return splitObject(raw)
}

// StrOK returns the string at k and whether there is one.
//
// unquote checks what it decodes (escapes, no bare quote or control
// character), so the string is read once: its plain start by PlainEnd,
// the rest, from its first escape, by unquote.
func (o Object) StrOK(k string) (string, bool) {
	return strOK(o[k])
}

// strOK is StrOK of one raw value.
func strOK(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if codec.PlainEnd(inner, 0) == len(inner) && utf8.Valid(inner) {
		return string(inner), true
	}
	return unquote(inner)
}

// Str returns the string at k, or "".
func (o Object) Str(k string) string {
	s, _ := o.StrOK(k)
	return s
}

// FirstStr returns the value of the first of keys that is present, if it is
// a string (serde's get(a).or_else(get(b)).and_then(as_str)).
func (o Object) FirstStr(keys ...string) (string, bool) {
	for _, k := range keys {
		if _, ok := o[k]; ok {
			return o.StrOK(k)
		}
	}
	return "", false
}

// Obj returns the object at k, or nil.
func (o Object) Obj(k string) Object {
	v, _ := subObject(o[k])
	return v
}

// List returns the elements of the array at k, or nil.
func (o Object) List(k string) []json.RawMessage { return Elements(o[k]) }

// Objs returns the objects in the array at k; other elements are skipped.
func (o Object) Objs(k string) []Object {
	raws := o.List(k)
	if raws == nil {
		return nil
	}
	objs := make([]Object, 0, len(raws))
	for _, r := range raws {
		if sub, ok := subObject(r); ok {
			objs = append(objs, sub)
		}
	}
	return objs
}

// Boolean returns the boolean at k.
func (o Object) Boolean(k string) (value, ok bool) { return boolOf(o[k]) }

// boolOf is Boolean of one raw value.
func boolOf(raw []byte) (value, ok bool) {
	switch string(raw) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// Integer returns the JSON integer at k (serde's as_i64).
func (o Object) Integer(k string) (int64, bool) { return intOf(o[k]) }

// intOf is Integer of one raw value.
func intOf(raw []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return n, err == nil
}

// U64 returns the value of k if it is a non-negative integer literal
// (serde's as_u64).
func (o Object) U64(k string) (uint64, bool) {
	n, err := strconv.ParseUint(string(o[k]), 10, 64)
	return n, err == nil
}

// F64 returns the value of k if it is a finite number.
func (o Object) F64(k string) (float64, bool) { return f64Of(o[k]) }

// f64Of is F64 of one raw value.
func f64Of(v []byte) (float64, bool) {
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, false
	}
	f, err := codec.ParseSerdeFloat(string(v)) // AZUREAL's serde_json rounding: stored bytes match
	return f, err == nil
}

// FirstFloat returns the first of keys whose value is a number.
func (o Object) FirstFloat(keys ...string) (float64, bool) {
	for _, k := range keys {
		if f, ok := o.F64(k); ok {
			return f, true
		}
	}
	return 0, false
}

// Has reports whether k is present and not null.
func (o Object) Has(k string) bool {
	raw := o[k]
	return len(raw) > 0 && string(raw) != "null"
}
