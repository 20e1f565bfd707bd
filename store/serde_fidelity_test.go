package store

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// storedRow appends e to a new session of a fresh store and returns the
// row as stored: its payload JSON and char_len.
func storedRow(t *testing.T, e codec.Event) (string, int64) {
	t.Helper()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, e)
	db, _, err := s.reader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var data []byte
	var charLen int64
	if err := db.QueryRow("SELECT data, char_len FROM events WHERE session_id = ?", sess.ID).Scan(&data, &charLen); err != nil {
		t.Fatal(err)
	}
	js, err := s.codec.Payload(data)
	if err != nil {
		t.Fatal(err)
	}
	return string(js), charLen
}

// TestWriteWhitespacePurpose: a Write whose first line is only white space
// stores "_purpose":"" as AZUREAL does (it tests the line before trimming
// it); an empty first line stores none (issue 14 item 4).
func TestWriteWhitespacePurpose(t *testing.T) {
	for _, c := range []struct {
		content, input string
	}{
		{"   \nfn main() {}\n", `{"file_path":"/a.rs","_lines":2,"_purpose":""}`},
		{"\t\n", `{"file_path":"/a.rs","_lines":1,"_purpose":""}`},
		{"\nfn main() {}\n", `{"file_path":"/a.rs","_lines":2}`},
		{"  fn main() {}  \n", `{"file_path":"/a.rs","_lines":1,"_purpose":"fn main() {}"}`},
	} {
		in, _ := json.Marshal(map[string]string{"file_path": "/a.rs", "content": c.content})
		js, charLen := storedRow(t, codec.ToolCall("t1", "Write", nil, in))
		want := `{"ToolCall":{"tool_use_id":"t1","tool_name":"Write","file_path":null,"input":` + c.input + `}}`
		if js != want || charLen != int64(len("Write")+len(c.input)) {
			t.Errorf("content %q stored\n%s (char_len %d)\nwant\n%s (char_len %d)", c.content, js, charLen, want, len("Write")+len(c.input))
		}
	}
}

// TestEditInputAsSerde: an Edit input is stored as AZUREAL's serde_json
// re-serializes it: a literal -0 is the float -0.0, a key that comes again
// keeps its first place with the last value (at every depth), and char_len
// measures exactly the stored input (issue 14 item 4).
func TestEditInputAsSerde(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"file_path":"/a","n":-0,"m":[-0,0,-0.0,-0e0,-1]}`, `{"file_path":"/a","n":-0.0,"m":[-0.0,0,-0.0,-0.0,-1]}`},
		{`{"a":1,"b":{"x":1,"y":2,"x":3},"a":"last"}`, `{"a":"last","b":{"x":3,"y":2}}`},
		{`{"old_string":"x","new_string":"y","old_string":"z"}`, `{"old_string":"z","new_string":"y"}`},
		{`{"n":0.9500000000000001,"big":18446744073709551616,"neg":-9223372036854775809}`,
			`{"n":0.95,"big":1.8446744073709552e19,"neg":-9.223372036854776e18}`},
	} {
		js, charLen := storedRow(t, codec.ToolCall("t1", "Edit", nil, json.RawMessage(c.in)))
		want := `{"ToolCall":{"tool_use_id":"t1","tool_name":"Edit","file_path":null,"input":` + c.want + `}}`
		if js != want || charLen != int64(len("Edit")+len(c.want)) {
			t.Errorf("input %s stored\n%s (char_len %d)\nwant\n%s (char_len %d)", c.in, js, charLen, want, len("Edit")+len(c.want))
		}
	}
	// Many keys take the indexed path.
	in, want := []byte{'{'}, []byte{'{'}
	for i := range 40 {
		in = append(in, `"k`+strconv.Itoa(i)+`":1,`...)
		want = append(want, `"k`+strconv.Itoa(i)+`":`+strconv.Itoa(min(i, 1)+min(i/39, 1))+`,`...)
	}
	in = append(in, `"k0":0,"k39":2}`...)
	want[len(want)-1] = '}'
	if got, err := codec.SerdeJSON(in); err != nil || string(got) != string(want) {
		t.Errorf("SerdeJSON(40 keys, 2 again) = %s, %v; want %s", got, err, want)
	}
}

// TestParseSerdeFloat checks the f64 serde_json (without float_roundtrip,
// as AZUREAL builds it) makes of number literals. AZUREAL's own dump of
// ii_compaction.azs reads the stored 0.9500000000000001 as 0.95: the
// significand 9500000000000001 is above 2^53 and rounds to even first.
func TestParseSerdeFloat(t *testing.T) {
	for _, c := range []struct {
		lit  string
		want float64
	}{
		{"0.9500000000000001", 0.95},
		{"1.1500000000000001", 1.15},
		{"0.8500000000000001", 0.8500000000000001}, // below 2^53: exact
		{"3.9893617999999993", 3.9893617999999993}, // real captures' costs
		{"0.34160664999999996", 0.34160664999999996},
		{"0.005600000000000001", 0.005600000000000001},
		{"0", 0}, {"0.0", 0}, {"-1.5", -1.5}, {"1e-7", 1e-7}, {"1.5e300", 1.5e300}, {"2.5E+3", 2500},
		{"18446744073709551616", 18446744073709551616},
		{"123456789012345678901234567890.5e-10", 12345678901234567890.0},
		{"1e-400", 0}, {"0e999999999999", 0},
	} {
		got, err := codec.ParseSerdeFloat(c.lit)
		if err != nil || got != c.want {
			t.Errorf("ParseSerdeFloat(%q) = %v, %v; want %v", c.lit, got, err, c.want)
		}
	}
	if f, err := codec.ParseSerdeFloat("-0"); err != nil || f != 0 || !math.Signbit(f) {
		t.Errorf("ParseSerdeFloat(-0) = %v, %v; want -0", f, err)
	}
	for _, lit := range []string{"1e400", "1e99999999999", "1.8e308"} {
		if _, err := codec.ParseSerdeFloat(lit); !errors.Is(err, codec.ErrNumberRange) {
			t.Errorf("ParseSerdeFloat(%q) = %v, want out of range", lit, err)
		}
	}
	for _, lit := range []string{"", "-", "1.", ".5", "1e", "1e+", "01x", "1.5.5", "abc"} {
		if _, err := codec.ParseSerdeFloat(lit); err == nil || errors.Is(err, codec.ErrNumberRange) {
			t.Errorf("ParseSerdeFloat(%q) = %v, want a syntax error", lit, err)
		}
	}
}

// TestCompleteCostAsSerde: a cost AZUREAL's serde_json rounds is stored
// and read back rounded the same way, and written as serde writes an f64.
func TestCompleteCostAsSerde(t *testing.T) {
	cost, err := codec.ParseSerdeFloat("1.4000000000000001")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := storedRow(t, codec.Complete(true, 5, cost))
	if want := `{"Complete":{"success":true,"duration_ms":5,"cost_usd":1.4}}`; js != want {
		t.Errorf("stored %s, want %s", js, want)
	}
	for _, c := range []struct {
		f    codec.SerdeFloat
		want string
	}{{0, "0.0"}, {1, "1.0"}, {0.4213, "0.4213"}, {codec.SerdeFloat(math.Copysign(0, -1)), "-0.0"}} {
		if got, err := json.Marshal(c.f); err != nil || string(got) != c.want {
			t.Errorf("json.Marshal(SerdeFloat(%v)) = %s, %v; want %s", float64(c.f), got, err, c.want)
		}
	}
}
