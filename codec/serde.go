package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file writes JSON the way AZUREAL's serde_json does, so that stored
// payloads and char_len match AZUREAL byte for byte: strings escape only '"',
// '\' and U+0000–U+001F; floats use ryu's shortest form with a '.' or an
// exponent; integers keep their integer text; object key order is kept.

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string literal the way serde_json
// (and so AZUREAL) writes it: only '"', '\\' and U+0000–U+001F are escaped,
// nothing is HTML-escaped, and invalid UTF-8 becomes U+FFFD, because AZUREAL
// rejects payloads that are not UTF-8.
func AppendJSONString(dst []byte, s string) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"':
			dst = append(dst, '\\', '"')
		case '\\':
			dst = append(dst, '\\', '\\')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// appendSerdeFloat appends f as serde_json (ryu) prints an f64. Non-finite
// values are written as null, as serde_json does.
func appendSerdeFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	if f == 0 {
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, 64) // -d.ddde±xx
	neg := e[0] == '-'
	if neg {
		e = e[1:]
		dst = append(dst, '-')
	}
	ePos := bytes.IndexByte(e, 'e')
	mant, expText := e[:ePos], e[ePos+1:]
	exp, _ := strconv.Atoi(string(expText))
	digits := make([]byte, 0, 17)
	for _, c := range mant {
		if c != '.' {
			digits = append(digits, c)
		}
	}
	length := len(digits)
	kk := exp + 1    // 10^(kk-1) <= v < 10^kk
	k := kk - length // v = digits × 10^k
	switch {
	case k >= 0 && kk <= 16:
		dst = append(dst, digits...)
		for range k {
			dst = append(dst, '0')
		}
		return append(dst, '.', '0')
	case kk > 0 && kk <= 16:
		dst = append(dst, digits[:kk]...)
		dst = append(dst, '.')
		return append(dst, digits[kk:]...)
	case kk > -5 && kk <= 0:
		dst = append(dst, '0', '.')
		for range -kk {
			dst = append(dst, '0')
		}
		return append(dst, digits...)
	case length == 1:
		dst = append(dst, digits[0], 'e')
		return strconv.AppendInt(dst, int64(kk-1), 10)
	default:
		dst = append(dst, digits[0], '.')
		dst = append(dst, digits[1:]...)
		dst = append(dst, 'e')
		return strconv.AppendInt(dst, int64(kk-1), 10)
	}
}

// appendSerdeNumber re-prints a JSON number literal as serde_json would after
// parsing it without arbitrary precision: integers that fit u64, or i64
// when negative, keep their text; everything else becomes an f64, parsed
// the way serde_json parses it (see ParseSerdeFloat), and "-0" too, which
// serde_json reads as the float -0.0. A number serde_json rejects as out
// of range is written as null.
func appendSerdeNumber(dst []byte, lit string) []byte {
	if !strings.ContainsAny(lit, ".eE") {
		if u, err := strconv.ParseUint(lit, 10, 64); err == nil {
			return strconv.AppendUint(dst, u, 10)
		}
		if i, err := strconv.ParseInt(lit, 10, 64); err == nil && i != 0 {
			return strconv.AppendInt(dst, i, 10)
		}
	}
	f, err := ParseSerdeFloat(lit)
	if err != nil {
		return append(dst, "null"...)
	}
	return appendSerdeFloat(dst, f)
}

// errBadJSON reports JSON that could not be re-encoded.
var errBadJSON = errors.New("invalid JSON value")

// appendSerdeValue re-encodes one JSON value from raw in serde_json's compact
// form, keeping object key order. raw must hold exactly one JSON value.
func appendSerdeValue(dst []byte, raw []byte) ([]byte, error) {
	if canonEnd(raw, 0, 0) == len(raw) {
		return append(dst, raw...), nil // already in that form
	}
	return appendSerdeTokensOf(dst, raw)
}

// appendSerdeTokensOf is appendSerdeValue re-encoding every token.
func appendSerdeTokensOf(dst []byte, raw []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	dst, err := appendSerdeTokens(dst, d)
	if err != nil {
		return dst, err
	}
	if len(bytes.TrimSpace(raw[d.InputOffset():])) != 0 {
		return dst, errBadJSON
	}
	return dst, nil
}

func appendSerdeTokens(dst []byte, d *json.Decoder) ([]byte, error) {
	tok, err := d.Token()
	if err != nil {
		return dst, errBadJSON
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			return appendSerdeObject(dst, d)
		case '[':
			dst = append(dst, '[')
			for first := true; d.More(); first = false {
				if !first {
					dst = append(dst, ',')
				}
				if dst, err = appendSerdeTokens(dst, d); err != nil {
					return dst, err
				}
			}
			if _, err := d.Token(); err != nil {
				return dst, errBadJSON
			}
			return append(dst, ']'), nil
		}
		return dst, errBadJSON
	case string:
		return AppendJSONString(dst, v), nil
	case json.Number:
		return appendSerdeNumber(dst, string(v)), nil
	case bool:
		if v {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case nil:
		return append(dst, "null"...), nil
	}
	return dst, errBadJSON
}

// appendSerdeObject writes the rest of an object whose '{' d has read. A
// key that comes again keeps its first place and takes the last value, as
// in the serde_json::Value AZUREAL parses an input into (its map keeps
// insertion order).
func appendSerdeObject(dst []byte, d *json.Decoder) ([]byte, error) {
	var keys []string
	var values [][]byte
	var index map[string]int // key to place, once there are many keys
	for d.More() {
		kt, err := d.Token()
		if err != nil {
			return dst, errBadJSON
		}
		key, ok := kt.(string)
		if !ok {
			return dst, errBadJSON
		}
		v, err := appendSerdeTokens(nil, d)
		if err != nil {
			return dst, err
		}
		i := -1
		if index != nil {
			if j, ok := index[key]; ok {
				i = j
			}
		} else if i = slices.Index(keys, key); len(keys) >= 16 {
			index = make(map[string]int, 2*len(keys))
			for j, k := range keys {
				index[k] = j
			}
		}
		if i >= 0 {
			values[i] = v
			continue
		}
		if index != nil {
			index[key] = len(keys)
		}
		keys, values = append(keys, key), append(values, v)
	}
	if _, err := d.Token(); err != nil {
		return dst, errBadJSON
	}
	dst = append(dst, '{')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendJSONString(dst, k)
		dst = append(dst, ':')
		dst = append(dst, values[i]...)
	}
	return append(dst, '}'), nil
}

// SerdeFloat is a float64 that encodes to JSON as serde_json writes an
// f64 (always with a '.' or an exponent: 0.0, 1.0, 2.4000000000000004),
// the way AZUREAL's dumps show costs; NaN and infinities as null.
type SerdeFloat float64

// MarshalJSON implements json.Marshaler.
func (f SerdeFloat) MarshalJSON() ([]byte, error) {
	return appendSerdeFloat(nil, float64(f)), nil
}

// SerdeJSON returns raw re-encoded in serde_json's compact form, or "null"
// when raw is empty. It is the form AZUREAL stores and measures.
func SerdeJSON(raw json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return []byte("null"), nil
	}
	return appendSerdeValue(nil, raw)
}

// SortedJSONAt re-prints one JSON value, depth levels deep in the
// document, the way AZUREAL's fixture dumps are printed: serde_json's
// pretty form (two-space indentation, "key": value), with the keys of
// every object sorted byte-wise at every depth (a key that comes again
// takes the last value), strings escaped as serde_json escapes them, and
// number literals kept as they are; without a trailing newline.
func SortedJSONAt(raw []byte, depth int) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("%w: %w", errBadJSON, err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errBadJSON
	}
	return appendSorted(nil, v, depth), nil
}

func appendSorted(dst []byte, v any, depth int) []byte {
	indent := func(n int) {
		dst = append(dst, '\n')
		for range n {
			dst = append(dst, ' ', ' ')
		}
	}
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			return append(dst, '{', '}')
		}
		dst = append(dst, '{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				dst = append(dst, ',')
			}
			indent(depth + 1)
			dst = AppendJSONString(dst, k)
			dst = append(dst, ':', ' ')
			dst = appendSorted(dst, v[k], depth+1)
		}
		indent(depth)
		return append(dst, '}')
	case []any:
		if len(v) == 0 {
			return append(dst, '[', ']')
		}
		dst = append(dst, '[')
		for i, x := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			indent(depth + 1)
			dst = appendSorted(dst, x, depth+1)
		}
		indent(depth)
		return append(dst, ']')
	case string:
		return AppendJSONString(dst, v)
	case json.Number:
		return append(dst, v...)
	case bool:
		return strconv.AppendBool(dst, v)
	}
	return append(dst, "null"...)
}
