package agents

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/lazuli-app/lazuli/store"
)

// jsonObj is a JSON object decoded one level deep, for the Claude and Codex
// parsers. Its accessors are lenient: a missing key or a value of another
// type reads as absent (the zero value, or ok false), so one odd field
// never costs the rest of a line.
type jsonObj map[string]json.RawMessage

// decodeObj decodes raw as a JSON object; ok is false for anything else
// (null included).
func decodeObj(raw []byte) (jsonObj, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var o jsonObj
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, false
	}
	return o, true
}

// strOK returns the string at k and whether there is one.
func (o jsonObj) strOK(k string) (string, bool) {
	raw := o[k]
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// str returns the string at k, or "".
func (o jsonObj) str(k string) string {
	s, _ := o.strOK(k)
	return s
}

// firstStr returns the value of the first of keys that is present, if it is
// a string (serde's get(a).or_else(get(b)).and_then(as_str)).
func (o jsonObj) firstStr(keys ...string) (string, bool) {
	for _, k := range keys {
		if _, ok := o[k]; ok {
			return o.strOK(k)
		}
	}
	return "", false
}

// obj returns the object at k, or nil.
func (o jsonObj) obj(k string) jsonObj {
	v, _ := decodeObj(o[k])
	return v
}

// list returns the elements of the array at k, or nil.
func (o jsonObj) list(k string) []json.RawMessage {
	raw := o[k]
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil
	}
	return a
}

// objs returns the objects in the array at k; other elements are skipped.
func (o jsonObj) objs(k string) []jsonObj {
	raws := o.list(k)
	if raws == nil {
		return nil
	}
	objs := make([]jsonObj, 0, len(raws))
	for _, r := range raws {
		if sub, ok := decodeObj(r); ok {
			objs = append(objs, sub)
		}
	}
	return objs
}

// boolean returns the boolean at k.
func (o jsonObj) boolean(k string) (value, ok bool) {
	switch string(o[k]) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// integer returns the JSON integer at k (serde's as_i64).
func (o jsonObj) integer(k string) (int64, bool) {
	n, err := strconv.ParseInt(string(o[k]), 10, 64)
	return n, err == nil
}

// u64 returns the value of k if it is a non-negative integer literal
// (serde's as_u64).
func (o jsonObj) u64(k string) (uint64, bool) {
	n, err := strconv.ParseUint(string(o[k]), 10, 64)
	return n, err == nil
}

// f64 returns the value of k if it is a finite number.
func (o jsonObj) f64(k string) (float64, bool) {
	v := o[k]
	if len(v) == 0 || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, false
	}
	f, err := store.ParseSerdeFloat(string(v)) // AZUREAL's serde_json rounding: stored bytes match
	return f, err == nil
}

// firstFloat returns the first of keys whose value is a number.
func (o jsonObj) firstFloat(keys ...string) (float64, bool) {
	for _, k := range keys {
		if f, ok := o.f64(k); ok {
			return f, true
		}
	}
	return 0, false
}

// has reports whether k is present and not null.
func (o jsonObj) has(k string) bool {
	raw := o[k]
	return len(raw) > 0 && string(raw) != "null"
}
