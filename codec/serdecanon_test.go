package codec

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var serdeCanonSeeds = []string{
	`{"command":"go test ./...","description":"Run the tests","timeout":120000}`,
	`{"file_path":"/a/b.go","offset":-3,"limit":0,"flags":[true,false,null],"x":{}}`,
	`{"a":"tab\tnew\nline \"q\" back\\slash \u0001 \u001f é 日本 😀"}`,
	`{"a":"\u0008"}`, `{"a":"\u000a"}`, `{"a":"\u001F"}`, `{"a":"\u0020"}`, `{"a":"\/"}`, `{"a":"\u00e9"}`,
	`{"a":"\ud83d\ude00"}`, `{"a":"` + "\xff" + `"}`, `{"a":"` + "\x7f" + `"}`,
	`{"a":1,"a":2}`, `{"a":1,"b":{"a":2}}`, `{"a":01}`, `{"a":-0}`, `{"a":0}`, `{"a":1.0}`, `{"a":1e3}`,
	`{"a":123456789012345678}`, `{"a":1234567890123456789}`, `{"a":-123456789012345678}`, `{"a":18446744073709551615}`,
	`{"a": 1}`, ` {"a":1}`, `{"a":1} `, `[1,2,[3,[4]]]`, `[]`, `"x"`, `true`, `nul`, `{"a":[1,]}`, `{"a":1,}`, `{"a"}`,
	`{"` + strings.Repeat("k", 40) + `":1}`, strings.Repeat("[", 70) + strings.Repeat("]", 70),
	`{"a1":1,"a2":1,"a3":1,"a4":1,"a5":1,"a6":1,"a7":1,"a8":1,"a9":1,"b1":1,"b2":1,"b3":1,"b4":1,"b5":1,"b6":1,"b7":1,"b8":1,"b9":1,"c1":1,"c2":1,"c3":1,"c4":1,"c5":1,"c6":1,"c7":1,"c8":1,"c9":1,"d1":1,"d2":1,"d3":1,"d4":1,"d5":1,"d6":1}`,
	`{"k\"ey":1,"k\u0001":2}`,
}

// checkSerdeCanon: a value canonEnd accepts is what re-encoding it token
// by token writes, and objectMembers gives what the decoder gives.
func checkSerdeCanon(t *testing.T, in []byte) {
	t.Helper()
	if canonEnd(in, 0, 0) == len(in) {
		got, err := appendSerdeTokensOf(nil, in)
		if err != nil || !bytes.Equal(got, in) {
			t.Fatalf("canonEnd accepts %q, but serde writes %q (%v)", in, got, err)
		}
	}
	raw := bytes.TrimSpace(in)
	if len(raw) == 0 || raw[0] != '{' {
		return
	}
	fast, fastOK := objectMembers(raw)
	slow, slowOK := decodedMembers(raw)
	if fastOK != slowOK || len(fast) != len(slow) {
		t.Fatalf("objectMembers(%q) = %q, %v; decoder: %q, %v", raw, fast, fastOK, slow, slowOK)
	}
	for i := range fast {
		if fast[i].key != slow[i].key || !bytes.Equal(fast[i].value, slow[i].value) {
			t.Fatalf("objectMembers(%q)[%d] = %q; decoder: %q", raw, i, fast[i], slow[i])
		}
	}
}

func TestSerdeCanonical(t *testing.T) {
	for _, s := range serdeCanonSeeds {
		checkSerdeCanon(t, []byte(s))
	}
	// The copy is taken for what agents write, or it saves nothing.
	for _, s := range serdeCanonSeeds[:3] {
		if canonEnd([]byte(s), 0, 0) != len(s) {
			t.Errorf("canonEnd does not accept %q", s)
		}
	}
	if _, ok := canonMembers([]byte(serdeCanonSeeds[0])); !ok {
		t.Errorf("canonMembers does not split %q", serdeCanonSeeds[0])
	}
}

func FuzzSerdeCanonical(f *testing.F) {
	for _, s := range serdeCanonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) && len(in) > 0 && in[0] != '{' {
			return
		}
		checkSerdeCanon(t, in)
	})
}
