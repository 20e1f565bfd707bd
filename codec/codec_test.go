package codec

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// goldenVectors are spec §2.9: AZUREAL's own output for each input event.
var goldenVectors = []struct {
	name    string
	in      Event
	kind    Kind
	charLen int64
	json    string
}{
	{"Init", Init("/w", "opus"), KindInit, 0, `{"Init":{"cwd":"/w","model":"opus"}}`},
	{"Hook", Hook("UserPromptSubmit", "ok"), KindHook, 2, `{"Hook":{"name":"UserPromptSubmit","output":"ok"}}`},
	{"Command", Command("/compact"), KindCommand, 8, `{"Command":{"name":"/compact"}}`},
	{"Compacting", Unit(KindCompacting), KindCompacting, 0, `"Compacting"`},
	{"Plan", Plan("P", "step"), KindPlan, 4, `{"Plan":{"name":"P","content":"step"}}`},
	{"AssistantText", AssistantText("hi"), KindAssistantText, 2, `{"AssistantText":{"text":"hi"}}`},
	{"Bash", ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"ls <x>","timeout":5}`)), KindToolCall, 24,
		`{"ToolCall":{"tool_use_id":"t1","tool_name":"Bash","file_path":null,"input":{"command":"ls <x>"}}}`},
	{"Write", ToolCall("t2", "Write", new("/a.rs"), json.RawMessage(`{"file_path":"/a.rs","content":"\n// Purpose here\nfn x(){}\n"}`)), KindToolCall, 66,
		`{"ToolCall":{"tool_use_id":"t2","tool_name":"Write","file_path":"/a.rs","input":{"file_path":"/a.rs","_lines":3,"_purpose":"// Purpose here"}}}`},
	{"Read", ToolCall("t3", "Read", new("/w/a.rs"), json.RawMessage(`{"file_path":"/w/a.rs","offset":3}`)), KindToolCall, 27,
		`{"ToolCall":{"tool_use_id":"t3","tool_name":"Read","file_path":"/w/a.rs","input":{"file_path":"/w/a.rs"}}}`},
	{"BashResult", ToolResult("t1", "Bash", nil, "a\nb\n\nc\n", false), KindToolResult, 3,
		`{"ToolResult":{"tool_use_id":"t1","tool_name":"Bash","file_path":null,"content":"b\nc","is_error":false}}`},
	{"ReadResult", ToolResult("t3", "Read", nil, "l1\nl2\nl3\nl4", false), KindToolResult, 17,
		`{"ToolResult":{"tool_use_id":"t3","tool_name":"Read","file_path":null,"content":"l1\n  (4 lines)\nl4","is_error":false}}`},
	{"Complete", Complete(true, 5000, 0), KindComplete, 0, `{"Complete":{"success":true,"duration_ms":5000,"cost_usd":0.0}}`},
	{"ModelSwitch", ModelSwitch("gpt-5.5"), KindModelSwitch, 0, `{"ModelSwitch":{"model":"gpt-5.5"}}`},
}

func TestGoldenVectors(t *testing.T) {
	for _, tc := range goldenVectors {
		t.Run(tc.name, func(t *testing.T) {
			c := CompactEvent(tc.in)
			if c.Kind != tc.kind {
				t.Errorf("kind = %s, want %s", c.Kind, tc.kind)
			}
			if got := CharLen(c); got != tc.charLen {
				t.Errorf("CharLen = %d, want %d", got, tc.charLen)
			}
			js, err := EncodeEventJSON(c)
			if err != nil {
				t.Fatal(err)
			}
			if string(js) != tc.json {
				t.Errorf("EncodeEventJSON =\n %s\nwant\n %s", js, tc.json)
			}
			back, err := DecodeEventJSON(js)
			if err != nil {
				t.Fatalf("DecodeEventJSON(%s): %v", js, err)
			}
			js2, _ := EncodeEventJSON(back)
			if string(js2) != string(js) {
				t.Errorf("round trip = %s, want %s", js2, js)
			}
		})
	}
}

func TestCharLenCountsBytes(t *testing.T) {
	if got := CharLen(UserMessage("héllo <b> & \u2028")); got != 16 {
		t.Errorf("CharLen = %d, want 16", got)
	}
}

func TestSerdeStringEscapes(t *testing.T) {
	got := string(AppendJSONString(nil, "a\"\\\b\f\n\r\t\x01\x1f<>&/\u2028é😀\x7f"))
	want := `"a\"\\\b\f\n\r\t\u0001\u001f<>&/` + "\u2028é😀\x7f" + `"`
	if got != want {
		t.Errorf("appendSerdeString = %s, want %s", got, want)
	}
	if got := string(AppendJSONString(nil, "ok\xffbad")); got != "\"ok\uFFFDbad\"" {
		t.Errorf("invalid UTF-8 = %q", got)
	}
}

func TestSerdeFloat(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {0.05, "0.05"}, {0.0123, "0.0123"},
		{0.4213, "0.4213"}, {1, "1.0"}, {100, "100.0"}, {2.4000000000000004, "2.4000000000000004"},
		{1e-7, "1e-7"}, {1.5e300, "1.5e300"}, {1e16, "1e16"}, {1e15, "1000000000000000.0"},
		{123456789012345680, "1.2345678901234568e17"}, {0.0001, "0.0001"}, {0.00001, "0.00001"}, {0.000001, "1e-6"},
		{-3.25, "-3.25"}, {math.NaN(), "null"},
	}
	for _, tc := range cases {
		if got := string(appendSerdeFloat(nil, tc.in)); got != tc.want {
			t.Errorf("appendSerdeFloat(%v) = %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestSerdeJSONKeepsOrderAndIntegers(t *testing.T) {
	in := `{ "z": 1, "a": [1.0, 2e2, -7, 18446744073709551615, 1e400], "m": {"\u003cb\u003e": "\u003c"}, "n": null }`
	got, err := SerdeJSON(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"z":1,"a":[1.0,200.0,-7,18446744073709551615,null],"m":{"<b>":"<"},"n":null}`
	if string(got) != want {
		t.Errorf("SerdeJSON = %s, want %s", got, want)
	}
	if _, err := SerdeJSON(json.RawMessage(`{"a":1} x`)); err == nil {
		t.Error("SerdeJSON accepted trailing garbage")
	}
}

func TestDecodeTolerance(t *testing.T) {
	ok := []struct{ in, want string }{
		{`{"AssistantText":{"text":"hi","_uuid":"u"}}`, `{"AssistantText":{"text":"hi"}}`},
		{`{"ToolResult":{"tool_use_id":"a","tool_name":"B","content":"c","is_error":true}}`,
			`{"ToolResult":{"tool_use_id":"a","tool_name":"B","file_path":null,"content":"c","is_error":true}}`},
		{`{"Compacting":null}`, `"Compacting"`},
		{`{"Complete":{"success":false,"duration_ms":0,"cost_usd":0}}`, `{"Complete":{"success":false,"duration_ms":0,"cost_usd":0.0}}`},
		{`{"ToolCall":{"tool_use_id":"a","tool_name":"X","file_path":null,"input":null}}`,
			`{"ToolCall":{"tool_use_id":"a","tool_name":"X","file_path":null,"input":null}}`},
	}
	for _, tc := range ok {
		e, err := DecodeEventJSON([]byte(tc.in))
		if err != nil {
			t.Errorf("DecodeEventJSON(%s): %v", tc.in, err)
			continue
		}
		if got, _ := EncodeEventJSON(e); string(got) != tc.want {
			t.Errorf("DecodeEventJSON(%s) re-encodes as %s, want %s", tc.in, got, tc.want)
		}
	}
	bad := []string{
		``, `"Init"`, `"Bogus"`, `{"Compacting":{}}`, `{"userMessage":{"content":"x"}}`,
		`{"UserMessage":{}}`, `{"UserMessage":{"content":null}}`, `{"UserMessage":{"content":1}}`,
		`{"Complete":{"success":true,"duration_ms":5000.0,"cost_usd":0}}`,
		`{"Complete":{"success":true,"duration_ms":-1,"cost_usd":0}}`,
		`{"Complete":{"success":true,"duration_ms":1,"cost_usd":null}}`,
		`{"ToolCall":{"tool_use_id":"a","tool_name":"X","file_path":null}}`,
		`{"ToolResult":{"tool_use_id":"a","tool_name":"B","content":"c"}}`,
		`{"Init":{"cwd":"a","model":"b"},"Hook":{"name":"a","output":"b"}}`, `[1]`, `{"Init":`,
	}
	for _, in := range bad {
		if e, err := DecodeEventJSON([]byte(in)); err == nil {
			t.Errorf("DecodeEventJSON(%s) = %+v, want error", in, e)
		}
	}
}

func TestCodecRoundTripAndBounds(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e := ToolResult("id", "Bash", new("/p"), strings.Repeat("output line\n", 1000), true)
	js, _ := EncodeEventJSON(e)
	blob := c.Compress(js)
	if !reflect.DeepEqual(blob[:4], ZstdMagic) {
		t.Fatalf("blob starts %x, want zstd magic", blob[:4])
	}
	got, err := c.Decode(blob)
	if err != nil || !reflect.DeepEqual(got, e) {
		t.Fatalf("decode = %+v, %v; want %+v", got, err, e)
	}
	// v1 files hold plain JSON text.
	if got, err := c.Decode(js); err != nil || got.Content != e.Content {
		t.Errorf("plain JSON decode = %v", err)
	}
	// Two concatenated frames decode to the concatenation, as zstd::decode_all does.
	half := len(js) / 2
	multi := append(c.Compress(js[:half]), c.Compress(js[half:])...)
	if got, err := c.Decode(multi); err != nil || got.Content != e.Content {
		t.Errorf("multi-frame decode = %v", err)
	}
	if _, err := c.Decode(append(append([]byte{}, ZstdMagic...), 0xff, 0x00, 0x01)); err == nil {
		t.Error("decode of a corrupt frame succeeded")
	}
}

func TestCompactEventVectors(t *testing.T) {
	var read100 strings.Builder
	for i := range 100 {
		read100.WriteString("line " + strconv.Itoa(i) + "\n")
	}
	cases := []struct {
		name, tool, in string
		check          func(string) bool
	}{
		{"Read100", "Read", read100.String(), func(s string) bool {
			return strings.Contains(s, "line 0") && strings.Contains(s, "(100 lines)") && strings.Contains(s, "line 99") && !strings.Contains(s, "line 50")
		}},
		{"ReadOne", "Read", "only line", func(s string) bool { return s == "only line" }},
		{"Bash", "Bash", "line1\n\nline2\nline3\nline4", func(s string) bool { return s == "line3\nline4" }},
		{"Grep", "Grep", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10", func(s string) bool { return s == "1\n2\n3\n  (+7 more)" }},
		{"Glob", "Glob", "a\nb\nc\nd\ne", func(s string) bool { return s == "5 files" }},
		{"GlobEmpty", "Glob", "", func(s string) bool { return s == "0 files" }},
		{"Task", "Task", strings.Repeat("x\n", 20), func(s string) bool { return s == "x\nx\nx\nx\nx\n  (+15 more lines)" }},
		{"Default", "WebFetch", "a\nb\nc\nd\ne", func(s string) bool { return s == "a\nb\nc\n  (+2 more)" }},
		{"Reminder", "Edit", "real output\n<system-reminder>secret</system-reminder>", func(s string) bool { return s == "real output" }},
	}
	for _, tc := range cases {
		got := CompactEvent(ToolResult("t", tc.tool, nil, tc.in, false)).Content
		if !tc.check(got) {
			t.Errorf("%s: compact(%q) = %q", tc.name, tc.in, got)
		}
	}
	inputs := []struct{ tool, in, want string }{
		{"Edit", `{"file_path":"/a","old_string":"x","new_string":"y","replace_all":false}`, `{"file_path":"/a","old_string":"x","new_string":"y","replace_all":false}`},
		{"Bash", `{"command":"ls","description":"d"}`, `{"command":"ls"}`},
		{"Read", `{"file_path":"/a","limit":5}`, `{"file_path":"/a"}`},
		{"TodoWrite", `{"todos":[]}`, `{}`},
		{"mcp__x__y", `{"query":"q","other":1}`, `{"query":"q"}`},
		{"Grep", `"not an object"`, `{}`},
		{"Write", `{"path":"/p","content":"\n\nx"}`, `{"file_path":"/p","_lines":3}`},
		{"Write", `{"path":"/p","content":"x\n# why\n"}`, `{"file_path":"/p","_lines":2,"_purpose":"# why"}`},
		{"Write", `{"file_path":"/p","content":""}`, `{"file_path":"/p","_lines":0}`},
	}
	for _, tc := range inputs {
		got := CompactEvent(ToolCall("t", tc.tool, nil, json.RawMessage(tc.in))).Input
		if string(got) != tc.want {
			t.Errorf("compact %s input %s = %s, want %s", tc.tool, tc.in, got, tc.want)
		}
	}
}

func FuzzEventCodec(f *testing.F) {
	for _, v := range goldenVectors {
		js, _ := EncodeEventJSON(v.in)
		f.Add(js)
	}
	f.Add([]byte(`{"ToolCall":{"tool_use_id":"a","tool_name":"X","input":{"k":[1,2.5,"\u00e9"]}}}`))
	c, err := New()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := c.Decode(c.Compress(data))
		if err != nil {
			return
		}
		js, err := EncodeEventJSON(e)
		if err != nil {
			t.Fatalf("decoded event does not encode: %v", err)
		}
		back, err := DecodeEventJSON(js)
		if err != nil {
			t.Fatalf("re-decode of %s: %v", js, err)
		}
		js2, _ := EncodeEventJSON(back)
		if string(js) != string(js2) {
			t.Fatalf("unstable encoding:\n%s\n%s", js, js2)
		}
		_ = CharLen(CompactEvent(e))
	})
}

func TestEncodeCompactedMatchesEncodeEventJSON(t *testing.T) {
	for _, v := range goldenVectors {
		c := CompactEvent(v.in)
		js, n, err := EncodeCompacted(c)
		want, _ := EncodeEventJSON(c)
		if err != nil || string(js) != string(want) || n != CharLen(c) {
			t.Errorf("%s: encodeCompacted = %s, %d, %v; want %s, %d", v.name, js, n, err, want, CharLen(c))
		}
	}
}

// literalsType returns the Literals_Block_Type (RFC 8878 §3.1.1.3.1.1) of
// the first block of a single zstd frame: 0 raw, 1 RLE, 2 Huffman-coded,
// 3 treeless; -1 when the block is not a compressed block.
func literalsType(t *testing.T, frame []byte) int {
	t.Helper()
	if len(frame) < 6 || !reflect.DeepEqual(frame[:4], ZstdMagic) {
		t.Fatalf("not a zstd frame: %x", frame)
	}
	fhd := frame[4]
	single := fhd&0x20 != 0
	i := 5
	if !single {
		i++ // Window_Descriptor
	}
	i += []int{0, 1, 2, 4}[fhd&3] // Dictionary_ID
	fcs := []int{0, 2, 4, 8}[fhd>>6]
	if fcs == 0 && single {
		fcs = 1
	}
	i += fcs
	if i+4 > len(frame) {
		t.Fatalf("short frame: %x", frame)
	}
	if blockType := (frame[i] >> 1) & 3; blockType != 2 {
		return -1
	}
	return int(frame[i+3] & 3)
}

// Payloads under entropyMin are written without Huffman-coded literals (a
// frame that decodes without building a table); larger ones keep them. Both
// are standard frames that decode back to the payload.
func TestCodecEntropyByPayloadSize(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	text := func(n int) string { // compressible but not repetitive, as prose is
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			b.WriteString(strconv.Itoa(i*i%977) + " the quick brown fox jumps over " + strconv.Itoa(i) + " lazy dogs\n")
		}
		return b.String()[:n]
	}
	for _, tc := range []struct {
		size    int
		huffman bool
	}{{rawMax, false}, {300, false}, {800, false}, {1200, true}, {20000, true}} {
		js, _ := EncodeEventJSON(AssistantText(text(tc.size)))
		frame := c.Compress(js)
		lt := literalsType(t, frame)
		if got := lt == 2 || lt == 3; got != tc.huffman {
			t.Errorf("%d-byte payload: literals type %d, Huffman-coded %v; want %v", len(js), lt, got, tc.huffman)
		}
		if lt == -1 {
			t.Errorf("%d-byte payload: first block not compressed", len(js))
		}
		got, err := c.Payload(frame)
		if err != nil || string(got) != string(js) {
			t.Errorf("%d-byte payload does not round-trip: %v", len(js), err)
		}
	}
}

// Payloads under rawMax are stored as they are, in a raw block of a frame
// that klauspost's decoder and the frame's own header agree on; rawMax
// bytes and more are compressed.
func TestCodecRawFrameUnderRawMax(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, n := range []int{1, 40, 127, 200, rawMax - 1} {
		js := []byte(strings.Repeat("x", n))
		frame := c.Compress(js)
		if len(frame) != len(js)+rawFrameOverhead {
			t.Errorf("%d bytes: frame of %d bytes, want %d", len(js), len(frame), len(js)+rawFrameOverhead)
		}
		if !bytes.Equal(frame[len(frame)-len(js):], js) {
			t.Errorf("%d bytes: the payload is not stored as it is", len(js))
		}
		var h zstd.Header
		if err := h.Decode(frame); err != nil || !h.SingleSegment || !h.HasFCS || h.FrameContentSize != uint64(len(js)) || h.HasCheckSum || !h.FirstBlock.OK || !h.FirstBlock.Last {
			t.Errorf("%d bytes: header %+v, %v", len(js), h, err)
		}
		dec, err := zstd.NewReader(nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dec.DecodeAll(frame, nil)
		dec.Close()
		if err != nil || !bytes.Equal(got, js) {
			t.Errorf("%d bytes: klauspost decodes %q, %v", len(js), got, err)
		}
		if got, err := c.Payload(frame); err != nil || !bytes.Equal(got, js) {
			t.Errorf("%d bytes: Payload gives %q, %v", len(js), got, err)
		}
	}
	if lt := literalsType(t, c.Compress([]byte(strings.Repeat("ab", rawMax/2)))); lt == -1 {
		t.Errorf("a %d-byte payload was not compressed", rawMax)
	}
}
