package codex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// cxFixtures returns the shared fixtures folder (see internal/fixtures for
// what happens when it is missing).
func cxFixtures(tb testing.TB) string {
	tb.Helper()
	return fixtures.Dir(tb)
}

// cxFeed feeds lines to p and returns every event, Finish included.
func cxFeed(p parse.Parser, lines ...string) []codec.Event {
	var evs []codec.Event
	for _, l := range lines {
		evs = append(evs, p.Feed([]byte(l))...)
	}
	return append(evs, p.Finish()...)
}

// cxJSON encodes events as their stored JSON, one per line, for readable
// comparisons.
func cxJSON(tb testing.TB, evs []codec.Event) string {
	tb.Helper()
	var b strings.Builder
	for _, e := range evs {
		js, err := codec.EncodeEventJSON(e)
		if err != nil {
			tb.Fatalf("EncodeEventJSON(%+v): %v", e, err)
		}
		b.Write(js)
		b.WriteByte('\n')
	}
	return b.String()
}

// cxParseFixture parses a fixture file with format f.
func cxParseFixture(tb testing.TB, path string, f parse.Format) ([]codec.Event, parse.Stats) {
	tb.Helper()
	evs, _, st, err := parseFile(path, f, parse.Options{Model: "gpt-5.5"})
	if err != nil {
		tb.Fatalf("ParseFile(%s): %v", path, err)
	}
	cxJSON(tb, evs) // every event must encode
	return evs, st
}

// cxCounts counts events by kind.
func cxCounts(evs []codec.Event) map[codec.Kind]int {
	c := make(map[codec.Kind]int)
	for _, e := range evs {
		c[e.Kind]++
	}
	return c
}

// cxHasReference reports whether fixture name is one of the transcripts
// (A_… to D_…) that AZUREAL stored a reference dump of.
func cxHasReference(name string) bool {
	return len(name) > 2 && name[1] == '_' && name[0] >= 'A' && name[0] <= 'D'
}

// cxReference returns the events AZUREAL stored for a fixture transcript
// (reference/<name>.dump.json), or nil for a real CLI capture, which has no
// reference. A transcript's missing dump is a missing fixture.
func cxReference(tb testing.TB, name string) []codec.Event {
	tb.Helper()
	path := filepath.Join(cxFixtures(tb), "reference", strings.TrimSuffix(name, ".jsonl")+".dump.json")
	data, err := os.ReadFile(path)
	if err != nil {
		if cxHasReference(name) {
			fixtures.Missing(tb, err)
		}
		return nil // the real CLI captures have no AZUREAL dump
	}
	var dump struct {
		Events map[string][]struct {
			Event json.RawMessage `json:"event"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &dump); err != nil {
		tb.Fatalf("read %s: %v", path, err)
	}
	var evs []codec.Event
	for _, row := range dump.Events["1"] {
		e, err := codec.DecodeEventJSON(row.Event)
		if err != nil {
			tb.Fatalf("decode %s: %v", row.Event, err)
		}
		evs = append(evs, e)
	}
	return evs
}

// cxAdjacentDuplicates counts AssistantText events equal to the one before.
func cxAdjacentDuplicates(evs []codec.Event) int {
	n := 0
	for i := 1; i < len(evs); i++ {
		if evs[i].Kind == codec.KindAssistantText && evs[i-1].Kind == codec.KindAssistantText && evs[i].Text == evs[i-1].Text {
			n++
		}
	}
	return n
}

// cxFuzzParser feeds data line by line to p and checks that every event
// encodes and that the stats add up.
func cxFuzzParser(t *testing.T, p parse.Parser, data []byte) {
	lines := bytes.Split(data, []byte("\n"))
	var evs []codec.Event
	for _, l := range lines {
		evs = append(evs, p.Feed(l)...)
	}
	evs = append(evs, p.Finish()...)
	for _, e := range evs {
		if _, err := codec.EncodeEventJSON(e); err != nil {
			t.Fatalf("EncodeEventJSON(%+v): %v", e, err)
		}
	}
	st := p.Stats()
	if st.Lines != len(lines) || st.Malformed+st.Ignored > st.Lines || len(st.BadLines) > 20 {
		t.Fatalf("Stats() = %+v for %d lines", st, len(lines))
	}
}

func TestCodexToolVectors(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: /tmp/probe.txt\n@@\n-old\n+new\n*** End Patch"
	tests := []struct {
		name  string
		lines []string
		want  string
	}{{
		name:  "exec_command cmd becomes the Bash command",
		lines: []string{`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","call_id":"call_exec","arguments":"{\"cmd\":\"pwd\",\"workdir\":\"/tmp\",\"yield_time_ms\":1000}"}}`},
		want:  `{"ToolCall":{"tool_use_id":"call_exec","tool_name":"Bash","file_path":null,"input":{"cmd":"pwd","workdir":"/tmp","yield_time_ms":1000,"command":"pwd"}}}`,
	}, {
		name:  "write_stdin with no chars polls the session",
		lines: []string{`{"type":"response_item","payload":{"type":"function_call","name":"write_stdin","call_id":"call_poll","arguments":"{\"session_id\":98333,\"chars\":\"\",\"yield_time_ms\":1000}"}}`},
		want:  `{"ToolCall":{"tool_use_id":"call_poll","tool_name":"Bash","file_path":null,"input":{"session_id":98333,"chars":"","yield_time_ms":1000,"command":"poll session 98333"}}}`,
	}, {
		name: "Chunk ID envelope is unwrapped",
		lines: []string{
			`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","call_id":"call_exec","arguments":"{\"cmd\":\"pwd\"}"}}`,
			`{"type":"response_item","payload":{"type":"function_call_output","call_id":"call_exec","output":"Chunk ID: 6bf9d8\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 7\nOutput:\n/Users/macbookpro/AZUREAL\n"}}`,
		},
		want: `{"ToolCall":{"tool_use_id":"call_exec","tool_name":"Bash","file_path":null,"input":{"cmd":"pwd","command":"pwd"}}}` + "\n" +
			`{"ToolResult":{"tool_use_id":"call_exec","tool_name":"Bash","file_path":null,"content":"/Users/macbookpro/AZUREAL","is_error":false}}`,
	}, {
		name: "apply_patch custom call is an Edit of the patched file",
		lines: []string{
			`{"type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","call_id":"call_patch","input":"*** Begin Patch\n*** Update File: /tmp/probe.txt\n@@\n-old\n+new\n*** End Patch"}}`,
			`{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"call_patch","output":"{\"output\":\"Success. Updated the following files:\\nM /tmp/probe.txt\\n\",\"metadata\":{\"exit_code\":0}}"}}`,
		},
		want: `{"ToolCall":{"tool_use_id":"call_patch","tool_name":"Edit","file_path":"/tmp/probe.txt","input":{"patch":` + string(cxString(patch)) + `}}}` + "\n" +
			`{"ToolResult":{"tool_use_id":"call_patch","tool_name":"Edit","file_path":"/tmp/probe.txt","content":"Success. Updated the following files:\nM /tmp/probe.txt\n","is_error":false}}`,
	}, {
		name:  "legacy shell argv is joined into a Bash command",
		lines: []string{`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"rg \\\"TeamSheet\\\"\"],\"workdir\":\"/w\",\"timeout_ms\":120000}","call_id":"c1"}}`},
		want:  `{"ToolCall":{"tool_use_id":"c1","tool_name":"Bash","file_path":"/w","input":{"command":"bash -lc 'rg \"TeamSheet\"'","workdir":"/w","timeout_ms":120000}}}`,
	}, {
		name:  "shell_command keeps its arguments and takes workdir as the path",
		lines: []string{`{"type":"response_item","payload":{"type":"function_call","name":"shell_command","arguments":"{\"command\":\"ls\",\"workdir\":\"/w\"}","call_id":"c2"}}`},
		want:  `{"ToolCall":{"tool_use_id":"c2","tool_name":"Bash","file_path":"/w","input":{"command":"ls","workdir":"/w"}}}`,
	}, {
		name:  "bad arguments become an empty object, unknown tools keep their name",
		lines: []string{`{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{not json","call_id":"c3"}}`},
		want:  `{"ToolCall":{"tool_use_id":"c3","tool_name":"update_plan","file_path":null,"input":{}}}`,
	}, {
		name:  "arguments given as an object are used as is",
		lines: []string{`{"type":"response_item","payload":{"type":"function_call","name":"view_image","arguments":{"path":"/a.png"},"call_id":"c5"}}`},
		want:  `{"ToolCall":{"tool_use_id":"c5","tool_name":"view_image","file_path":null,"input":{"path":"/a.png"}}}`,
	}, {
		name:  "output of an unseen call falls back to unknown",
		lines: []string{`{"type":"response_item","payload":{"type":"function_call_output","call_id":"zz","output":"Plan updated"}}`},
		want:  `{"ToolResult":{"tool_use_id":"zz","tool_name":"unknown","file_path":null,"content":"Plan updated","is_error":false}}`,
	}, {
		name:  "array output keeps its text parts",
		lines: []string{`{"type":"response_item","payload":{"type":"function_call_output","call_id":"zz","output":[{"type":"input_text","text":"a.txt\nb.txt\n"}]}}`},
		want:  `{"ToolResult":{"tool_use_id":"zz","tool_name":"unknown","file_path":null,"content":"a.txt\nb.txt\n","is_error":false}}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, p := range []parse.Parser{NewRolloutParser(parse.Options{}), NewExecParser(parse.Options{})} {
				got := strings.TrimSpace(cxJSON(t, cxFeed(p, tc.lines...)))
				if got != tc.want {
					t.Errorf("%T: got\n%s\nwant\n%s", p, got, tc.want)
				}
			}
		})
	}
}

func TestCodexNormalizeOutput(t *testing.T) {
	tests := []struct {
		name, out, want string
		isErr           bool
	}{
		{"envelope success keeps inner text", `{"output":"Success. Updated\n","metadata":{"exit_code":0}}`, "Success. Updated\n", false},
		{"envelope failure keeps exit code", `{"output":"sed: x: No such file\n","metadata":{"exit_code":1,"duration_seconds":0.1}}`, "sed: x: No such file\nExit code: 1", true},
		{"envelope blank success", `{"output":"","metadata":{"exit_code":0}}`, "", false},
		{"envelope blank failure", `{"output":"  ","metadata":{"exit_code":2}}`, "Exit code: 2", true},
		{"envelope without code uses the error rule", `{"output":"Error: boom"}`, "Error: boom", true},
		{"chunk success", "Chunk ID: a\nWall time: 0.0 seconds\nProcess exited with code 0\nOriginal token count: 1\nOutput:\nhi\n\n", "hi", false},
		{"chunk failure keeps exit code", "Chunk ID: a\nWall time: 0.0 seconds\nProcess exited with code 1\nOriginal token count: 4\nOutput:\ncheck failed\n", "check failed\nExit code: 1", true},
		{"chunk blank success", "Chunk ID: a\nProcess exited with code 0\nOutput:\n", "", false},
		{"chunk blank failure", "Chunk ID: a\nProcess exited with code 3\nOutput:\n\n", "Exit code: 3", true},
		{"chunk still running", "Chunk ID: a\nWall time: 1 seconds\nProcess running with session ID 98333\nOutput:\n", "Process running with session ID 98333", false},
		{"apply_patch header unwrapped", "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA greet.py\n", "Success. Updated the following files:\nA greet.py", false},
		{"header failure", "Exit code: 1\nWall time: 0 seconds\nOutput:\nboom\n", "boom\nExit code: 1", true},
		{"plain exit code", "Exit code: 1", "Exit code: 1", true},
		{"plain text", "Plan updated", "Plan updated", false},
		{"sandbox failure", "failed in sandbox MacosSeatbelt with execution error: denied", "failed in sandbox MacosSeatbelt with execution error: denied", true},
		{"write_stdin failure", "write_stdin failed: no session", "write_stdin failed: no session", true},
		{"patch rejected", "patch rejected by user", "patch rejected by user", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, isErr := codexNormalizeOutput(tc.out)
			if got != tc.want || isErr != tc.isErr {
				t.Errorf("codexNormalizeOutput(%q) = %q, %v, want %q, %v", tc.out, got, isErr, tc.want, tc.isErr)
			}
		})
	}
}

func TestCodexDescribeStdin(t *testing.T) {
	tests := []struct{ args, want string }{
		{`{"session_id":98333,"chars":""}`, "poll session 98333"},
		{`{"session_id":"s1"}`, "poll session s1"},
		{`{"chars":""}`, "poll session"},
		{`{"session_id":7,"chars":"\u0003"}`, "send Ctrl-C to session 7"},
		{`{"session_id":7,"chars":"y\n"}`, `send "y\n" to session 7`},
		{`{"session_id":7,"chars":"a\tb\"c'\\dé"}`, `send "a\tb\"c\'\\d\u{e9}" to session 7`},
		{`{"session_id":7,"chars":"0123456789012345678901234567890123"}`, `send "01234567890123456789012345678..." to session 7`},
		{`{"session_id":7,"chars":"01234567890123456789012345678901"}`, `send "01234567890123456789012345678901" to session 7`},
	}
	for _, tc := range tests {
		o, _ := parse.DecodeObject([]byte(tc.args))
		if got := codexDescribeStdin(o); got != tc.want {
			t.Errorf("codexDescribeStdin(%s) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestCodexShellJoin(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"ls"}, "ls"},
		{[]string{"zsh", "-lc", "ls -la"}, "zsh -lc 'ls -la'"},
		{[]string{"echo", "it's", ""}, `echo 'it'\''s' ''`},
		{[]string{"sed", "-n", "1,200p", "a/b.ts"}, "sed -n 1,200p a/b.ts"},
	}
	for _, tc := range tests {
		if got := codexShellJoin(tc.argv); got != tc.want {
			t.Errorf("codexShellJoin(%q) = %q, want %q", tc.argv, got, tc.want)
		}
	}
}

func TestCodexPatchPath(t *testing.T) {
	tests := []struct {
		patch string
		want  *string
	}{
		{"*** Begin Patch\n*** Add File: a.go\n+x\n*** End Patch", new("a.go")},
		{"*** Begin Patch\r\n*** Delete File: src/old.rs \r\n*** End Patch", new("src/old.rs")},
		{"no patch here", nil},
	}
	for _, tc := range tests {
		got := codexPatchPath(tc.patch)
		if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("codexPatchPath(%q) = %v, want %v", tc.patch, got, tc.want)
		}
	}
}

func TestCodexEstimateCost(t *testing.T) {
	if got := estimateCodexCost(1_000_000, 1_000_000); got != 40.0 {
		t.Errorf("estimateCodexCost(1M, 1M) = %v, want 40", got)
	}
	if got := estimateCodexCost(0, 0); got != 0 {
		t.Errorf("estimateCodexCost(0, 0) = %v, want 0", got)
	}
}

// parseFile parses the file at path with the Codex parser for format f.
func parseFile(path string, f parse.Format, opts parse.Options) ([]codec.Event, parse.Format, parse.Stats, error) {
	var p parse.Parser
	switch f {
	case parse.FormatCodexExec:
		p = NewExecParser(opts)
	case parse.FormatCodexRollout:
		p = NewRolloutParser(opts)
	default:
		return nil, "", parse.Stats{}, fmt.Errorf("not a Codex format: %q", f)
	}
	events, stats, err := parse.ReadFile(path, p)
	return events, f, stats, err
}
