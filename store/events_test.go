package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
)

// everyVariant is one event of each storable variant, with text that
// exercises escaping: unicode, <>&, control characters.
func everyVariant() []codec.Event {
	p := "/w/ünï<code>.rs"
	return []codec.Event{
		codec.Init("/w/📁", "opus"),
		codec.Hook("UserPromptSubmit", "ok <b> & \u2028 done"),
		codec.UserMessage("héllo <b> & \"quotes\" \\ tab\t nul\x00 emoji 🎉"),
		codec.Command("/compact"),
		codec.Unit(codec.KindCompacting),
		codec.Unit(codec.KindCompacted),
		codec.Plan("P", "step 1\nstep 2"),
		codec.AssistantText("**bold** <tag> &amp; \r\n日本語"),
		codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"ls <x> && echo \u00e9","timeout":5}`)),
		codec.ToolCall("t2", "Edit", &p, json.RawMessage(`{"file_path":"/w/a.rs","old_string":"a\n","new_string":"b\u2028","n":1.5e300,"z":-0.0}`)),
		codec.ToolCall("t3", "mcp__x__y", nil, nil),
		codec.ToolResult("t1", "Bash", nil, "a\nb\n\nc\n", false),
		codec.ToolResult("t2", "Edit", &p, "error <x>", true),
		codec.Complete(true, 5000, 0.0),
		codec.Complete(false, 18446744073709551615, 1e-7),
		codec.ModelSwitch("gpt-5.5"),
	}
}

// TestRoundTripEveryVariant: each variant of everyVariant, appended and
// loaded from a fresh connection, comes back as written down here (what
// the store keeps of it, compacted as AZUREAL compacts it: a Bash call's
// command only, a Bash result's lines; an input's JSON in serde's form)
// with its char_len (bytes, as AZUREAL counts them) and seq. The
// expected values are literals, not the store's own CompactEvent and
// CharLen.
func TestRoundTripEveryVariant(t *testing.T) {
	p := "/w/ünï<code>.rs"
	want := []struct {
		event   codec.Event
		charLen int64
	}{
		{codec.Init("/w/📁", "opus"), 0},
		{codec.Hook("UserPromptSubmit", "ok <b> & \u2028 done"), 17},
		{codec.UserMessage("héllo <b> & \"quotes\" \\ tab\t nul\x00 emoji 🎉"), 44},
		{codec.Command("/compact"), 8},
		{codec.Unit(codec.KindCompacting), 0},
		{codec.Unit(codec.KindCompacted), 0},
		{codec.Plan("P", "step 1\nstep 2"), 13},
		{codec.AssistantText("**bold** <tag> &amp; \r\n日本語"), 32},
		{codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"ls <x> && echo é"}`)), 35},
		{codec.ToolCall("t2", "Edit", &p, json.RawMessage("{\"file_path\":\"/w/a.rs\",\"old_string\":\"a\\n\",\"new_string\":\"b\u2028\",\"n\":1.5e300,\"z\":-0.0}")), 87},
		{codec.ToolCall("t3", "mcp__x__y", nil, json.RawMessage(`{}`)), 11},
		{codec.ToolResult("t1", "Bash", nil, "b\nc", false), 3},
		{codec.ToolResult("t2", "Edit", &p, "error <x>", true), 9},
		{codec.Complete(true, 5000, 0.0), 0},
		{codec.Complete(false, 18446744073709551615, 1e-7), 0},
		{codec.ModelSwitch("gpt-5.5"), 0},
	}
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	in := everyVariant()
	if len(in) != len(want) {
		t.Fatalf("everyVariant() has %d events, the table %d", len(in), len(want))
	}
	if n := mustAppend(t, s, sess.ID, in...); n != len(in) {
		t.Fatalf("AppendEvents() = %d, want %d", n, len(in))
	}
	fresh := mustOpenPath(t, s.Path())
	got := mustLoad(t, fresh, sess.ID)
	if len(got) != len(want) {
		t.Fatalf("LoadEvents() = %d events, want %d", len(got), len(want))
	}
	for i, w := range want {
		if !reflect.DeepEqual(got[i].Event, w.event) {
			t.Errorf("event %d: got %+v (input %s), want %+v (input %s)", i, got[i].Event, got[i].Event.Input, w.event, w.event.Input)
		}
		if got[i].Kind != w.event.Kind || got[i].CharLen != w.charLen || got[i].Seq != int64(i+1) {
			t.Errorf("event %d: kind %s char_len %d seq %d, want %s %d %d", i, got[i].Kind, got[i].CharLen, got[i].Seq, w.event.Kind, w.charLen, i+1)
		}
	}
}

func TestInvalidUTF8ComesBackValid(t *testing.T) {
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, codec.UserMessage("bad \xff\xfe bytes"), codec.AssistantText("\xc3"))
	for _, e := range mustLoad(t, s, sess.ID) {
		text := e.Event.Content + e.Event.Text
		if !utf8.ValidString(text) || !strings.Contains(text, "\uFFFD") {
			t.Errorf("loaded %q, want valid UTF-8 with U+FFFD", text)
		}
	}
}

// TestStoredRows checks the raw columns of a Lazuli-written file against
// spec §2.9's golden vectors and §1.5's storage classes.
func TestStoredRows(t *testing.T) {
	p := "/a.rs"
	tests := []struct {
		in      codec.Event
		charLen int64
		json    string
	}{
		{codec.Init("/w", "opus"), 0, `{"Init":{"cwd":"/w","model":"opus"}}`},
		{codec.Hook("UserPromptSubmit", "ok"), 2, `{"Hook":{"name":"UserPromptSubmit","output":"ok"}}`},
		{codec.Command("/compact"), 8, `{"Command":{"name":"/compact"}}`},
		{codec.Unit(codec.KindCompacting), 0, `"Compacting"`},
		{codec.Plan("P", "step"), 4, `{"Plan":{"name":"P","content":"step"}}`},
		{codec.AssistantText("hi"), 2, `{"AssistantText":{"text":"hi"}}`},
		{codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"ls <x>","timeout":5}`)), 24,
			`{"ToolCall":{"tool_use_id":"t1","tool_name":"Bash","file_path":null,"input":{"command":"ls <x>"}}}`},
		{codec.ToolCall("t1", "Read", &p, json.RawMessage(`{"file_path":"/w/a.rs","offset":3}`)), 27,
			`{"ToolCall":{"tool_use_id":"t1","tool_name":"Read","file_path":"/a.rs","input":{"file_path":"/w/a.rs"}}}`},
		{codec.ToolResult("t1", "Bash", nil, "a\nb\n\nc\n", false), 3,
			`{"ToolResult":{"tool_use_id":"t1","tool_name":"Bash","file_path":null,"content":"b\nc","is_error":false}}`},
		{codec.Complete(true, 5000, 0.0), 0, `{"Complete":{"success":true,"duration_ms":5000,"cost_usd":0.0}}`},
		{codec.ModelSwitch("gpt-5.5"), 0, `{"ModelSwitch":{"model":"gpt-5.5"}}`},
	}
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	for _, tt := range tests {
		mustAppend(t, s, sess.ID, tt.in)
	}
	s.Close()
	db, err := sql.Open("sqlite", "file:"+s.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT seq, kind, typeof(data), data, char_len, typeof(char_len) FROM events ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cd, _ := codec.New()
	defer cd.Close()
	for i := 0; rows.Next(); i++ {
		var (
			seq, charLen          int64
			kind, class, lenClass string
			data                  []byte
		)
		if err := rows.Scan(&seq, &kind, &class, &data, &charLen, &lenClass); err != nil {
			t.Fatal(err)
		}
		tt := tests[i]
		js, err := cd.Payload(data)
		if class != "blob" || !bytes.HasPrefix(data, codec.ZstdMagic) || err != nil || lenClass != "integer" {
			t.Errorf("row %d: data is %s %x… (%v), char_len %s", seq, class, data[:4], err, lenClass)
		}
		if kind != string(tt.in.Kind) || charLen != tt.charLen || string(js) != tt.json {
			t.Errorf("row %d: kind %s char_len %d json %s\nwant kind %s char_len %d json %s", seq, kind, charLen, js, tt.in.Kind, tt.charLen, tt.json)
		}
	}
}

func TestSchemaMatchesAZUREAL(t *testing.T) {
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, codec.UserMessage("x"))
	s.Compactions().Add(context.Background(), sess.ID, 1, "y")
	const q = "SELECT group_concat(type || ' ' || name || ' ' || COALESCE(sql, ''), char(10)) FROM (SELECT * FROM sqlite_master ORDER BY name)"
	got := rawQueryString(t, s.Path(), q)
	want := rawQueryString(t, filepath.Join(fixtureDir(t, "azs"), "i_basic.azs"), q)
	if got != want {
		t.Errorf("sqlite_master differs from AZUREAL's:\n%s\nwant:\n%s", got, want)
	}
}

func TestAppendEventsErrors(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	bad := codec.Event{Kind: "Bogus"}
	if _, err := s.Events().Append(ctx, sess.ID, []codec.Event{codec.UserMessage("a"), bad}); err == nil || !strings.Contains(err.Error(), "Bogus") {
		t.Errorf("AppendEvents with an unknown kind: error = %v", err)
	}
	if _, err := s.Events().Append(ctx, 99, []codec.Event{codec.UserMessage("a")}); !errors.Is(err, ErrNotFound) {
		t.Errorf("AppendEvents(missing session) error = %v, want ErrNotFound", err)
	}
	if got, _ := s.Sessions().Get(ctx, sess.ID); got.EventCount != 0 {
		t.Errorf("failed appends stored %d rows", got.EventCount)
	}
	if n, err := s.Events().Append(ctx, sess.ID, nil); n != 0 || err != nil {
		t.Errorf("AppendEvents(nil) = %d, %v", n, err)
	}
}

func TestAppendLargeBatch(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	evs := newBenchGen(9).events(3000)
	evs[1500] = codec.Event{Kind: "Bogus"}
	if _, err := s.Events().Append(ctx, sess.ID, evs); err == nil {
		t.Fatal("a bad event in a later chunk did not fail the batch")
	}
	if got, _ := s.Sessions().Get(ctx, sess.ID); got.EventCount != 0 {
		t.Fatalf("the failed batch stored %d rows", got.EventCount)
	}
	evs = append(newBenchGen(9).events(3000), codec.Unit(codec.KindFiltered))
	if n := mustAppend(t, s, sess.ID, evs...); n != 3000 {
		t.Fatalf("AppendEvents() = %d, want 3000", n)
	}
	loaded := mustLoad(t, s, sess.ID)
	for i, e := range loaded {
		if e.Seq != int64(i+1) || e.Kind != e.Event.Kind {
			t.Fatalf("event %d: seq %d kind %s/%s", i, e.Seq, e.Kind, e.Event.Kind)
		}
	}
}

// fastDecodeCases are payloads for TestDecodeEventFastAgrees and the seeds
// of FuzzDecodeEventFast.
var fastDecodeCases = []string{
	`"Compacting"`, `"Filtered"`, `"Init"`, `{"Compacting":null}`, `{"Compacting":{}}`,
	`{"Init":{"cwd":"/w","model":"opus"}}`, `{"Init":{"model":"opus","cwd":"/w"}}`,
	`{"Init":{"cwd":"/w"}}`, `{"Init":{"cwd":"/w","model":"opus","extra":1}}`,
	`{"Init":{"cwd":"/w","cwd":"/x","model":"m"}}`, `{ "Init":{"cwd":"/w","model":"opus"}}`,
	`{"UserMessage":{"content":"a\"b\\c\/d\b\f\n\r\t\u00e9\u2028"}}`, `{"UserMessage":{"content":"\ud83c\udf89"}}`,
	`{"UserMessage":{"content":"\ud800"}}`, `{"UserMessage":{"content":"\x"}}`, `{"UserMessage":{"content":5}}`,
	`{"ToolCall":{"tool_use_id":"t","tool_name":"Read","file_path":null,"input":{"a":[1,-2.5e3,true,null,{"b":"\ud800"}]}}}`,
	`{"ToolCall":{"tool_use_id":"t","tool_name":"Read","input":null}}`,
	`{"ToolCall":{"tool_use_id":"t","tool_name":"Read","file_path":"/p","input":01}}`,
	`{"ToolCall":{"tool_use_id":"t","tool_name":"Read","file_path":"/p","input":{"a":1,}}}`,
	`{"ToolResult":{"tool_use_id":"t","tool_name":"Bash","file_path":null,"content":"x","is_error":true}}`,
	`{"ToolResult":{"tool_use_id":"t","tool_name":"Bash","file_path":null,"content":"x"}}`,
	`{"Complete":{"success":true,"duration_ms":5000,"cost_usd":0.0}}`,
	`{"Complete":{"success":true,"duration_ms":5000.0,"cost_usd":0}}`,
	`{"Complete":{"success":true,"duration_ms":-1,"cost_usd":0}}`,
	`{"Complete":{"success":true,"duration_ms":18446744073709551616,"cost_usd":0}}`,
	`{"Complete":{"success":false,"duration_ms":1,"cost_usd":1e400}}`,
	`{"Complete":{"success":false,"duration_ms":1,"cost_usd":-0.0123}}`,
	`{"Complete":{"success":1,"duration_ms":1,"cost_usd":1}}`,
	`{"ModelSwitch":{"model":"gpt-5.5"}}trailing`, `{"Bogus":{"x":1}}`, `{"Plan":{"name":"P","content":"s"}}`,
}

func TestDecodeEventFastAgrees(t *testing.T) {
	payloads := fastDecodeCases
	for _, e := range append(everyVariant(), newBenchGen(5).events(500)...) {
		js, _ := codec.EncodeEventJSON(codec.CompactEvent(e))
		payloads = append(payloads, string(js))
	}
	accepted := 0
	for _, p := range payloads {
		if checkFastDecode(t, []byte(p)) {
			accepted++
		}
	}
	if accepted < len(payloads)-len(fastDecodeCases) {
		t.Errorf("the fast path accepted %d of %d payloads, want at least every canonical one", accepted, len(payloads))
	}
}

// checkFastDecode fails t when decodeEventFast accepts js differently from
// DecodeEventJSON, and reports whether it accepted it.
func checkFastDecode(t *testing.T, js []byte) bool {
	t.Helper()
	fast, ok := codec.DecodeEventFast(js)
	if !ok {
		return false
	}
	slow, err := codec.DecodeEventJSON(js)
	if err != nil || !reflect.DeepEqual(fast, slow) {
		t.Errorf("decodeEventFast(%s) = %+v, DecodeEventJSON = %+v, %v", js, fast, slow, err)
	}
	return true
}

func FuzzDecodeEventFast(f *testing.F) {
	for _, c := range fastDecodeCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, js []byte) {
		if utf8.Valid(js) {
			checkFastDecode(t, js)
		}
	})
}
