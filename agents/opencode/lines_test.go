package opencode

import (
	"bytes"
	"encoding/json"
	"testing"
)

// oldMessageLine is how Lines wrote a message line before it built the
// line by hand: the oracle of TestMessageLine and FuzzMessageLine.
func oldMessageLine(id string, info []byte, parts [][]byte) ([]byte, error) {
	valid := func(data []byte) json.RawMessage {
		if !json.Valid(data) {
			return json.RawMessage("null")
		}
		return data
	}
	line := struct {
		Type  string            `json:"type"`
		ID    string            `json:"id"`
		Info  json.RawMessage   `json:"info"`
		Parts []json.RawMessage `json:"parts"`
	}{Type: LineMessage, ID: id, Info: valid(info)}
	for _, p := range parts {
		line.Parts = append(line.Parts, valid(p))
	}
	return marshal(line)
}

// newMessageLine is Lines' way: each row compacted once, the line built
// from them.
func newMessageLine(id string, info []byte, parts [][]byte) []byte {
	var ps []json.RawMessage
	for _, p := range parts {
		ps = append(ps, compacted(bytes.Clone(p)))
	}
	return messageLine(id, compacted(bytes.Clone(info)), ps)
}

var lineCases = []struct {
	id    string
	info  string
	parts []string
}{
	{"msg_01", `{"role":"user","time":{"created":1}}`, []string{`{"type":"text","text":"hi"}`, `{"type":"tool","state":{"output":"a\nb"}}`}},
	{"msg_02", `{ "role" : "assistant" ,"x": [ 1, 2 ,{ } ] }`, nil},
	{"msg_03", `{"a":"<b> & \u2028 é \"q\""}`, []string{"", `not json`, `  {"k": "v"}  `, `null`}},
	{`id "quoted" \ é <&>` + "\u2028\x01", `{}`, []string{`[]`}},
	{`msg "q"`, `{}`, nil},
	{"msg\x7f", `{}`, nil},
	{"", ``, nil},
	{"msg_04", `{"n":1e400,"s":"\ud800"}`, []string{`{"bad":"\x"}`, "{\"ctl\":\"\x01\"}"}},
}

// TestMessageLine: a message line is byte for byte what marshalling the
// old struct gave, for compact and spaced rows, rows that are not JSON,
// no parts and ids encoding/json escapes.
func TestMessageLine(t *testing.T) {
	for _, c := range lineCases {
		var parts [][]byte
		for _, p := range c.parts {
			parts = append(parts, []byte(p))
		}
		want, err := oldMessageLine(c.id, []byte(c.info), parts)
		if err != nil {
			t.Fatal(err)
		}
		if got := newMessageLine(c.id, []byte(c.info), parts); !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", c.id, got, want)
		}
	}
}

func FuzzMessageLine(f *testing.F) {
	for _, c := range lineCases {
		p := ""
		if len(c.parts) > 0 {
			p = c.parts[0]
		}
		f.Add(c.id, []byte(c.info), []byte(p), len(c.parts))
	}
	f.Fuzz(func(t *testing.T, id string, info, part []byte, n int) {
		var parts [][]byte
		for i := 0; i < n%4; i++ {
			parts = append(parts, part)
		}
		want, err := oldMessageLine(id, info, parts)
		if err != nil {
			t.Skip()
		}
		if got := newMessageLine(id, info, parts); !bytes.Equal(got, want) {
			t.Errorf("got %s\nwant %s", got, want)
		}
	})
}
