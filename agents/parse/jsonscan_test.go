package parse

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// jsonScanSeeds are inputs at the edges of JSON's grammar and of what the
// parsers meet: escapes, invalid UTF-8, numbers, nesting, duplicates.
var jsonScanSeeds = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":1,"a":2}`, `{"a" : [1, 2, {"b": null}] , "c":"x"}`,
	`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"ok\n\u00e9"}]}}`,
	`{"a":"\ud83d\ude00","\u00e9":true,"k\"q":false}`, `{"a":"` + "\xff\xfe" + `"}`, `{"` + "\xc3" + `":1}`,
	`{"a":-0.5e+10}`, `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":1e}`, `{"a":.5}`, `{"a":+1}`,
	`{"a":tru}`, `{"a":truex}`, `{"a":nul}`, `{"a":"x` + "\x01" + `"}`, `{"a":"\x"}`, `{"a":"\u12g4"}`,
	`{"a":[1,]}`, `{"a":{"b":1,}}`, `{"a":1,}`, `{,}`, `{"a"}`, `{"a":}`, `{"a":1 "b":2}`, `{"a":[1 2]}`,
	`{"a":1}x`, `{"a":1}{}`, `{"a":[}`, `{"a":{]}`, `{"a":[[[[]]]]}`, `null`, `[]`, `"a"`, `{`, `{"a":"`,
	`{"a":[` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `]}`,
	`{"a":` + strings.Repeat("[", 9998) + strings.Repeat("]", 9998) + `}`,
	"{\"a\":\t\r\n1\n}",
	`{"a":"\ud83d","b":"\ud83dA\u0041","c":"\ude00\ud83d","d":"\ud83d\ud83d\ude00"}`, `{"e":"\ud83d\u12"}`,
	`{"long":"` + strings.Repeat("abcdefgh", 5) + `\"` + strings.Repeat("é", 9) + `\\n\u00e9` + "\x80" + `tail"}`,
	// Numbers out of an f64's range, which serde_json rejects, and those at its edges.
	`{"a":{"b":"x\\\"y\\\\","c":{"d":[1,{"e":"]}"}]},"f":-1.5e3,"g":true,"h":null}}`, `{"a":{"\u00e9\"":1}}`,
	`{"a":{"b":"\\"}}`, `{"a":[{"text":"one\ntwo"},"s",{},[],{"text":"\\\\"}]}`,
	`{"c":[{"type":"text","text":"a\nb"},{"text":"x\"y","type":"text"},{"type":"image"},"s",{"type":"text"},{"type":"text","text":1},{"typ\u0065":"text","text":"esc"},{"type":"text","text":"first","text":"last"},{},[{"type":"text","text":"deep"}],{"type":"text","type":"x","text":"no"}]}`,
	`{"c":[]}`, `{"c":[ { "type" : "text" , "text" : "spaced" } ]}`,
	`{"a":1e400}`, `{"a":{"b":[1,-1E+309]}}`, `{"a":1e-400}`, `{"a":0e99999999999999999999}`,
	`{"a":1` + strings.Repeat("0", 400) + `}`, `{"a":1` + strings.Repeat("0", 308) + `.5}`,
	`{"a":1.7976931348623157e308}`, `{"a":1.7976931348623159e308}`, `{"a":-1e308,"b":"1e400"}`,
}

// referenceObj is what DecodeObject did with encoding/json, and what it
// does now: a number serde_json rejects (out of an f64's range) makes the
// object invalid.
func referenceObj(raw []byte) (Object, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var o Object
	if err := json.Unmarshal(raw, &o); err != nil || !numbersInRange(raw) {
		return nil, false
	}
	return o, true
}

// numbersInRange reports whether every number in the valid JSON raw is
// one serde_json reads (store.ParseSerdeFloat succeeds).
func numbersInRange(raw []byte) bool {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			return true // the end: Unmarshal found raw valid
		}
		if n, ok := tok.(json.Number); ok {
			if _, err := codec.ParseSerdeFloat(string(n)); err != nil {
				return false
			}
		}
	}
}

// TestValidJSON: what AZUREAL's serde_json parses as JSON.
func TestValidJSON(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{`{"a":1}`, true}, {` [1, 2.5e3, "x"] `, true}, {`1e308`, true}, {`1e-400`, true},
		{`{"a":1e400}`, false}, {`[1,-1e309]`, false}, {`1e400`, false}, {`{"a":1}x`, false}, {``, false},
	}
	for _, tc := range tests {
		if got := ValidJSON([]byte(tc.in)); got != tc.want {
			t.Errorf("ValidJSON(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func checkScanAgrees(t *testing.T, in []byte) {
	t.Helper()
	want, wantOK := referenceObj(in)
	got, gotOK := DecodeObject(in)
	if gotOK != wantOK || !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
		t.Fatalf("DecodeObject(%.200q) = %v, %v; encoding/json: %v, %v", in, got, gotOK, want, wantOK)
	}
	for k, v := range got {
		var wantList []json.RawMessage
		if len(v) == 0 || v[0] != '[' || json.Unmarshal(v, &wantList) != nil {
			wantList = nil
		}
		if gotList := got.List(k); !slicesEqualRaw(gotList, wantList) {
			t.Fatalf("list(%q) of %.200q = %q; encoding/json: %q", k, in, gotList, wantList)
		}
		var wantObj Object
		if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &wantObj) != nil {
			wantObj = nil
		}
		if gotObj := got.Obj(k); (gotObj == nil) != (wantObj == nil) || !maps.EqualFunc(gotObj, wantObj, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
			t.Fatalf("obj(%q) of %.200q = %q; encoding/json: %q", k, in, gotObj, wantObj)
		}
		for sk := range wantObj { // one level further down, through the split object
			if sub := got.Obj(k); !bytes.Equal(sub[sk], wantObj[sk]) {
				t.Fatalf("obj(%q)[%q] of %.200q = %q; encoding/json: %q", k, sk, in, sub[sk], wantObj[sk])
			}
			var s string
			sOK := len(wantObj[sk]) > 0 && wantObj[sk][0] == '"' && json.Unmarshal(wantObj[sk], &s) == nil
			if gs, ok := got.Obj(k).StrOK(sk); ok != sOK || gs != s {
				t.Fatalf("obj(%q).strOK(%q) of %.200q = %q, %v; encoding/json: %q, %v", k, sk, in, gs, ok, s, sOK)
			}
		}
		wantParts, wantPartsOK := referenceTextParts(v, "text")
		if gotParts, ok := TextParts(v, "text"); ok != wantPartsOK || !slices.Equal(gotParts, wantParts) {
			t.Fatalf("TextParts(%q) of %.200q = %q, %v; encoding/json: %q, %v", k, in, gotParts, ok, wantParts, wantPartsOK)
		}
		var wantStr string
		wantStrOK := len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &wantStr) == nil
		if gotStr, ok := got.StrOK(k); ok != wantStrOK || gotStr != wantStr {
			t.Fatalf("strOK(%q) of %.200q = %q, %v; encoding/json: %q, %v", k, in, gotStr, ok, wantStr, wantStrOK)
		}
	}
}

// referenceTextParts is TextParts by encoding/json: Objs, then Str of
// "type" and "text".
func referenceTextParts(v json.RawMessage, typ string) ([]string, bool) {
	var els []json.RawMessage
	if len(v) == 0 || v[0] != '[' || json.Unmarshal(v, &els) != nil {
		return nil, false
	}
	str := func(raw json.RawMessage) string {
		var s string
		if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
			return s
		}
		return ""
	}
	parts := []string{}
	for _, el := range els {
		var o map[string]json.RawMessage
		if len(el) > 0 && el[0] == '{' && json.Unmarshal(el, &o) == nil && str(o["type"]) == typ {
			parts = append(parts, str(o["text"]))
		}
	}
	return parts, true
}

func slicesEqualRaw(a, b []json.RawMessage) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestScanObjectAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range jsonScanSeeds {
		checkScanAgrees(t, []byte(s))
	}
}

// TestDecodeObjectOwnsItsValues: a parser's line buffer is reused for the
// next line, so nothing DecodeObject returns may point into it, and a value
// appended to must not overwrite the next one.
func TestDecodeObjectOwnsItsValues(t *testing.T) {
	line := []byte(`{"a":"first","b":[1,2],"c":"x"}`)
	o, ok := DecodeObject(line)
	if !ok {
		t.Fatal("not decoded")
	}
	copy(line, bytes.Repeat([]byte{'#'}, len(line)))
	_ = append(o["a"], "!!!!"...)
	if got := o.Str("a") + string(o["b"]) + o.Str("c"); got != "first[1,2]x" {
		t.Fatalf("values after the buffer was reused and a value appended to: %q", got)
	}
}

func FuzzScanObject(f *testing.F) {
	for _, s := range jsonScanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkScanAgrees(t, in) })
}
