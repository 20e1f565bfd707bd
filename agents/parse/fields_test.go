package parse

import (
	"bytes"
	"slices"
	"testing"
)

// checkFieldsAgree: a line read as Fields (LineFields, then PickFields of
// its values) holds what an Object of it holds under every key asked for,
// and counts the same lines, malformed ones and all.
func checkFieldsAgree(t *testing.T, in []byte) {
	t.Helper()
	var so, sf Stats
	o, ok := so.Line(in)
	keys := []string{"absent", "a", "é", "k\"q", "type", "message", "content"}
	for k := range o {
		if len(keys) < maxFields && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	f, fok := sf.LineFields(bytes.Clone(in), keys)
	if ok != fok || so.Lines != sf.Lines || so.Malformed != sf.Malformed || !slices.Equal(so.BadLines, sf.BadLines) {
		t.Fatalf("%q: Line %v %+v, LineFields %v %+v", in, ok, so, fok, sf)
	}
	if !ok {
		return
	}
	for _, k := range keys {
		if got, want := f.Raw(k), o[k]; !bytes.Equal(got, want) || (got == nil) != (want == nil) {
			t.Errorf("%q: key %q: Fields %q, Object %q", in, k, got, want)
		}
		// One level down, as the parsers descend.
		sub, sok := PickFields(o[k], keys)
		want, wok := subObject(o[k])
		if sok != wok {
			t.Errorf("%q: %q as an object: PickFields %v, Object %v", in, k, sok, wok)
			continue
		}
		for _, kk := range keys {
			if !bytes.Equal(sub.Raw(kk), want[kk]) {
				t.Errorf("%q: %q.%q: Fields %q, Object %q", in, k, kk, sub.Raw(kk), want[kk])
			}
		}
	}
}

func TestFieldsAgree(t *testing.T) {
	for _, s := range append(jsonScanSeeds, "", "  ", `{"a":{"a":1,"a":{"x":2}},"a":{"b":"c"}}`,
		`{"message":{"role":"user","\u0063ontent":"x"}}`, `{"type":"a","type":"b"}`) {
		checkFieldsAgree(t, []byte(s))
	}
	var f Fields
	if f.Str("x") != "" || f.NonNeg("x") != 0 {
		t.Error("an empty Fields reads a value")
	}
}

func FuzzFieldsAgree(f *testing.F) {
	for _, s := range jsonScanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) { checkFieldsAgree(t, in) })
}
