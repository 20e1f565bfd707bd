package claude

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// This file holds what both Claude parsers' tests share, and the tests of
// claude_shared.go.

// claudeLineCase is one table case for a Claude parser: the lines fed, and
// the events expected, each as its serde JSON (store.EncodeEventJSON).
type claudeLineCase struct {
	name  string
	lines []string
	want  []string
}

// claudeCheckCase feeds tc's lines to p and compares the events with tc.want.
func claudeCheckCase(t *testing.T, p parse.Parser, tc claudeLineCase) {
	t.Helper()
	var got []codec.Event
	for _, l := range tc.lines {
		got = append(got, p.Feed([]byte(l))...)
	}
	got = append(got, p.Finish()...)
	gotJSON := claudeEncodeAll(t, got)
	if strings.Join(gotJSON, "\n") != strings.Join(tc.want, "\n") {
		t.Errorf("Parse(%q) =\n%s\nwant\n%s", tc.lines, strings.Join(gotJSON, "\n"), strings.Join(tc.want, "\n"))
	}
}

func TestClaudeHookCommandOutput(t *testing.T) {
	tests := []struct{ cmd, want string }{
		{`echo 'Ensure this complies.'`, "Ensure this complies."},
		{`echo "double"`, "double"},
		{`echo '`, ""}, // AZUREAL's slice panics here
		{`echo ''`, ""},
		{`OUT='extracted'; echo '$OUT'`, "extracted"},
		{`OUT="dq"; echo "$OUT"`, "dq"},
		{`OUT='unclosed; echo "$OUT"`, ""},
		{`OUT='x'`, ""},
		{`cargo build 2>&1`, ""},
	}
	for _, tt := range tests {
		if got := claudeHookCommandOutput(tt.cmd); got != tt.want {
			t.Errorf("claudeHookCommandOutput(%q) = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

// TestClaudeObj checks that values of an unexpected type read as absent, as
// serde's as_str/as_u64/as_f64 do.
func TestClaudeObj(t *testing.T) {
	o, ok := parse.DecodeObject([]byte(`{"s":"x","n":5,"f":5.5,"neg":-1,"big":18446744073709551616,"b":true,"null":null,"o":{"k":"v"},"a":[1,{"k":2},"s"]}`))
	if !ok {
		t.Fatal("claudeDecode failed")
	}
	if s, ok := o.StrOK("s"); !ok || s != "x" {
		t.Errorf(`str("s") = %q, %v`, s, ok)
	}
	if _, ok := o.StrOK("n"); ok {
		t.Error(`str("n") ok, want absent`)
	}
	if n, ok := o.U64("n"); !ok || n != 5 {
		t.Errorf(`u64("n") = %d, %v`, n, ok)
	}
	for _, k := range []string{"f", "neg", "big", "s"} {
		if _, ok := o.U64(k); ok {
			t.Errorf("u64(%q) ok, want absent", k)
		}
	}
	if f, ok := o.FirstFloat("missing", "s", "f"); !ok || f != 5.5 {
		t.Errorf(`firstFloat = %v, %v`, f, ok)
	}
	if s, ok := o.FirstStr("null", "s"); ok {
		t.Errorf(`firstStr("null", "s") = %q, want absent: the first present key decides`, s)
	}
	if b, ok := o.Boolean("b"); !ok || !b {
		t.Errorf(`boolean("b") = %v, %v`, b, ok)
	}
	if v, _ := o.Obj("o").StrOK("k"); v != "v" {
		t.Errorf(`obj("o").strOK("k") = %q`, v)
	}
	if got := len(o.Objs("a")); got != 1 {
		t.Errorf(`len(objs("a")) = %d, want 1`, got)
	}
	for _, bad := range []string{`[1]`, `null`, `"s"`, `{"a":`, ``} {
		if _, ok := parse.DecodeObject([]byte(bad)); ok {
			t.Errorf("decodeObj(%q) ok, want failure", bad)
		}
	}
}

// TestClaudeParsers_MatchReference compares both parsers with what AZUREAL
// stored for every fixture it has a reference dump of: the same tool calls,
// commands, Init and Complete events, and the same user and assistant text
// apart from the documented differences (docs/compatibility.md).
func TestClaudeParsers_MatchReference(t *testing.T) {
	dir := claudeFixtureDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "transcripts", "[AB]_*.jsonl"))
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(name, func(t *testing.T) {
			format := parse.FormatClaudeTranscript
			if strings.HasPrefix(name, "A_") {
				format = parse.FormatClaudeStream
			}
			events, _, _, err := parseFile(path, format, parse.Options{ClaudeHome: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			claudeCompareReference(t, format, events, claudeReference(t, name))
		})
	}
}

// claudeCompareReference checks ours against AZUREAL's events ref.
func claudeCompareReference(t *testing.T, f parse.Format, ours, ref []codec.Event) {
	t.Helper()
	key := func(e codec.Event) string {
		switch e.Kind {
		case codec.KindUserMessage:
			return "user " + e.Content
		case codec.KindAssistantText:
			return "text " + strings.TrimPrefix(e.Text, "Error: ")
		case codec.KindToolCall:
			return "call " + e.ToolUseID
		case codec.KindCommand:
			return "command " + e.Name
		}
		return string(e.Kind)
	}
	pick := func(events []codec.Event, keep func(codec.Event) bool) []string {
		var out []string
		for _, e := range events {
			if keep(e) {
				out = append(out, key(e))
			}
		}
		return out
	}
	is := func(kinds ...codec.Kind) func(codec.Event) bool {
		return func(e codec.Event) bool { return slices.Contains(kinds, e.Kind) }
	}
	// Same turn skeleton; in the stream, ours lacks the sub-agents' calls.
	skeleton := is(codec.KindInit, codec.KindComplete, codec.KindCommand, codec.KindToolCall)
	if a, b := pick(ours, skeleton), pick(ref, skeleton); !(slices.Equal(a, b) || f == parse.FormatClaudeStream && claudeSubsequence(a, b)) {
		t.Errorf("tool calls, commands, Init, Complete differ from AZUREAL:\nours %.300q\nref  %.300q", a, b)
	}
	// Assistant text: AZUREAL's minus its whitespace-only blocks.
	nonBlank := func(e codec.Event) bool { return e.Kind == codec.KindAssistantText && strings.TrimSpace(e.Text) != "" }
	if a, b := pick(ours, is(codec.KindAssistantText)), pick(ref, nonBlank); !slices.Equal(a, b) {
		t.Errorf("assistant text differs from AZUREAL:\nours %.300q\nref  %.300q", a, b)
	}
	// Prompts: all of AZUREAL's, in order, plus those it lost.
	if a, b := pick(ours, is(codec.KindUserMessage)), pick(ref, is(codec.KindUserMessage)); !claudeSubsequence(b, a) {
		t.Errorf("prompts AZUREAL kept are missing:\nours %.300q\nref  %.300q", a, b)
	}
}

// claudeSubsequence reports whether a is a subsequence of b.
func claudeSubsequence(a, b []string) bool {
	i := 0
	for _, s := range b {
		if i < len(a) && a[i] == s {
			i++
		}
	}
	return i == len(a)
}

// claudeReference returns the events AZUREAL stored for fixture name (all
// sessions of its reference dump); a missing dump is a missing fixture.
func claudeReference(t *testing.T, name string) []codec.Event {
	t.Helper()
	b, err := os.ReadFile(fixtures.Dir(t, "reference", name+".dump.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dump struct {
		Events map[string][]struct {
			Event json.RawMessage `json:"event"`
		} `json:"events"`
	}
	if err := json.Unmarshal(b, &dump); err != nil {
		t.Fatalf("decode %s dump: %v", name, err)
	}
	var events []codec.Event
	for _, rows := range dump.Events {
		for _, r := range rows {
			e, err := codec.DecodeEventJSON(r.Event)
			if err != nil {
				t.Fatalf("decode %s event: %v", name, err)
			}
			events = append(events, e)
		}
	}
	return events
}

// claudeCounts counts the event kinds a fixture test asserts.
type claudeCounts struct {
	init, user, text, calls, results, complete, hooks, commands int
}

func claudeCount(events []codec.Event) claudeCounts {
	var c claudeCounts
	for _, e := range events {
		switch e.Kind {
		case codec.KindInit:
			c.init++
		case codec.KindUserMessage:
			c.user++
		case codec.KindAssistantText:
			c.text++
		case codec.KindToolCall:
			c.calls++
		case codec.KindToolResult:
			c.results++
		case codec.KindComplete:
			c.complete++
		case codec.KindHook:
			c.hooks++
		case codec.KindCommand:
			c.commands++
		}
	}
	return c
}

// claudeFixtureDir returns the shared fixtures folder (see
// internal/fixtures for what happens when it is missing).
func claudeFixtureDir(tb testing.TB) string {
	tb.Helper()
	return fixtures.Dir(tb)
}

// claudeFixtureName is a short subtest name for a fixture path.
func claudeFixtureName(path string) string {
	if strings.Contains(path, "real-cli") {
		rel := path[strings.Index(path, "real-cli"):]
		return strings.SplitN(filepath.ToSlash(rel), "/", 3)[1] + "/" + filepath.Base(path)
	}
	return filepath.Base(path)
}

// claudeEncodeAll encodes events as serde JSON, failing t on any error.
func claudeEncodeAll(tb testing.TB, events []codec.Event) []string {
	tb.Helper()
	out := make([]string, 0, len(events))
	for _, e := range events {
		b, err := codec.EncodeEventJSON(e)
		if err != nil {
			tb.Fatalf("EncodeEventJSON(%+v): %v", e, err)
		}
		out = append(out, string(b))
	}
	return out
}

// claudeField returns the raw JSON value of key on line n (1-based) of path.
func claudeField(tb testing.TB, path string, n int, key string) string {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	lines := bytes.Split(b, []byte("\n"))
	o, ok := parse.DecodeObject(lines[n-1])
	if !ok {
		tb.Fatalf("line %d of %s is not a JSON object", n, path)
	}
	return string(o[key])
}

// claudeSeedFuzz seeds f with the table cases and, when the shared fixtures
// are present, with short lines of the fixture files.
func claudeSeedFuzz(f *testing.F, cases []claudeLineCase, files func(testing.TB) []string) {
	for _, tc := range cases {
		f.Add([]byte(strings.Join(tc.lines, "\n")))
	}
	if _, err := fixtures.Path(); err != nil {
		return // the table cases still seed it; the fixture tests report the missing folder
	}
	for _, path := range files(f) {
		claudeSeedFile(f, path)
	}
}

// claudeSeedFile adds up to 40 lines of at most 4 KiB from path.
func claudeSeedFile(f *testing.F, path string) {
	fh, err := os.Open(path)
	if err != nil {
		return
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, parse.MaxLineSize)
	for n := 0; sc.Scan() && n < 40; {
		if len(sc.Bytes()) <= 4<<10 {
			f.Add(append([]byte(nil), sc.Bytes()...))
			n++
		}
	}
}

// claudeFuzzParser feeds data to p line by line and checks that every event
// encodes and that the stats add up.
func claudeFuzzParser(t *testing.T, p parse.Parser, data []byte) {
	lines := bytes.Split(data, []byte("\n"))
	var events []codec.Event
	for _, l := range lines {
		events = append(events, p.Feed(l)...)
	}
	events = append(events, p.Finish()...)
	for _, e := range events {
		if _, err := codec.EncodeEventJSON(e); err != nil {
			t.Fatalf("EncodeEventJSON(%+v): %v", e, err)
		}
	}
	if s := p.Stats(); s.Lines != len(lines) || s.Malformed+s.Ignored > s.Lines {
		t.Fatalf("Stats() = %+v after %d lines", s, len(lines))
	}
}

// claudeBenchParser reports how fast a fresh parser reads the file at path.
func claudeBenchParser(b *testing.B, path string, newParser func() parse.Parser) {
	data, err := os.ReadFile(path)
	if err != nil {
		fixtures.Missing(b, err)
	}
	lines := bytes.Split(data, []byte("\n"))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		p := newParser()
		n := 0
		for _, l := range lines {
			n += len(p.Feed(l))
		}
		n += len(p.Finish())
		b.ReportMetric(float64(n), "events/op")
	}
}

// parseFile parses the file at path with the Claude parser for format f.
func parseFile(path string, f parse.Format, opts parse.Options) ([]codec.Event, parse.Format, parse.Stats, error) {
	var p parse.Parser
	switch f {
	case parse.FormatClaudeStream:
		p = NewStreamParser(opts)
	case parse.FormatClaudeTranscript:
		p = NewTranscriptParser(opts)
	default:
		return nil, "", parse.Stats{}, fmt.Errorf("not a Claude format: %q", f)
	}
	events, stats, err := parse.ReadFile(path, p)
	return events, f, stats, err
}
