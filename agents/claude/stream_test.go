package claude

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// claudeStreamCases are the stream parser's table, shared with its fuzz seeds.
var claudeStreamCases = []claudeLineCase{
	{
		name: "a number out of an f64's range makes the line unreadable, as to serde_json",
		lines: []string{
			`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Foo","input":{"keep":"x","big":1e400}}]}}`,
			`{"type":"result","session_id":"s","duration_ms":5,"total_cost_usd":-1E+309}`,
			`{"type":"assistant","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Foo","input":{"keep":"x","tiny":1e-400,"huge":1e308}}]}}`,
		},
		want: []string{`{"ToolCall":{"tool_use_id":"t2","tool_name":"Foo","file_path":null,"input":{"keep":"x","tiny":0.0,"huge":1e308}}}`},
	},
	{
		name:  "init without model is unknown",
		lines: []string{`{"type":"system","subtype":"init","session_id":"s1","cwd":"/test"}`},
		want:  []string{`{"Init":{"cwd":"/test","model":"unknown"}}`},
	},
	{
		name:  "init after a byte order mark",
		lines: []string{"\xef\xbb\xbf" + `{"type":"system","subtype":"init","session_id":"s1","model":"claude-opus-4-5"}`},
		want:  []string{`{"Init":{"cwd":"","model":"claude-opus-4-5"}}`},
	},
	{
		name:  "result without session_id gives nothing",
		lines: []string{`{"type":"result","subtype":"success","is_error":false,"duration_ms":10,"total_cost_usd":0.1}`},
	},
	{
		name:  "result defaults",
		lines: []string{`{"type":"result","session_id":"s1"}`},
		want:  []string{`{"Complete":{"success":true,"duration_ms":0,"cost_usd":0.0}}`},
	},
	{
		name:  "result error",
		lines: []string{`{"type":"result","subtype":"success","is_error":true,"duration_ms":2000,"session_id":"s","total_cost_usd":0.25}`},
		want:  []string{`{"Complete":{"success":false,"duration_ms":2000,"cost_usd":0.25}}`},
	},
	{
		name: "result cost of early builds",
		lines: []string{
			`{"type":"result","session_id":"s","duration_ms":5,"total_cost":0.5,"cost_usd":0.1}`,
			`{"type":"result","session_id":"s","duration_ms":5,"cost_usd":0.1}`,
		},
		want: []string{
			`{"Complete":{"success":true,"duration_ms":5,"cost_usd":0.5}}`,
			`{"Complete":{"success":true,"duration_ms":5,"cost_usd":0.1}}`,
		},
	},
	{
		name:  "progress hook with OUT variable",
		lines: []string{`{"type":"progress","data":{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Edit","command":"OUT='extracted'; echo '$OUT'"}}`},
		want:  []string{`{"Hook":{"name":"PostToolUse:Edit","output":"extracted"}}`},
	},
	{
		name:  "progress hook without output shows its name",
		lines: []string{`{"type":"progress","data":{"type":"hook_progress","hookEvent":"Stop","hookName":"BuildHook","command":"cargo build 2>&1"}}`},
		want:  []string{`{"Hook":{"name":"BuildHook","output":"[BuildHook]"}}`},
	},
	{
		name:  "progress hook echo",
		lines: []string{`{"type":"progress","data":{"type":"hook_progress","hookEvent":"PreToolUse","command":"echo 'Ensure this complies.'"}}`},
		want:  []string{`{"Hook":{"name":"PreToolUse","output":"Ensure this complies."}}`},
	},
	{
		name: "hook_response needs a name and output",
		lines: []string{
			`{"type":"system","subtype":"hook_response","hook_name":"SessionStart:startup","output":"Read CLAUDE.md.\n","session_id":"s"}`,
			`{"type":"system","subtype":"hook_response","hook_name":"","output":"data"}`,
			`{"type":"system","subtype":"hook_response","hook":"Build","stdout":"  "}`,
			`{"type":"system","subtype":"hook_started","hook_name":"SessionStart:startup"}`,
		},
		want: []string{`{"Hook":{"name":"SessionStart:startup","output":"Read CLAUDE.md."}}`},
	},
	{
		name:  "top-level hook line",
		lines: []string{`{"type":"hook_result","result":"ok"}`},
		want:  []string{`{"Hook":{"name":"hook","output":"ok"}}`},
	},
	{
		name: "blank assistant text is dropped",
		lines: []string{
			`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"\n\n"}]}}`,
			`{"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Hello!"}]}}`,
			`{"type":"assistant","message":{"content":[{"type":"text","text":"no message id"}]}}`,
		},
		want: []string{`{"Thinking":{"text":"hmm"}}`, `{"AssistantText":{"text":"Hello!"}}`},
	},
	{
		name: "thinking is kept, blank and redacted thinking is not",
		lines: []string{
			`{"type":"assistant","message":{"id":"m1","content":[{"type":"thinking","thinking":"  ","signature":"x"},{"type":"redacted_thinking","data":"abc"}]}}`,
			`{"type":"assistant","message":{"id":"m2","content":[{"type":"thinking","thinking":"first <b> & \"quoted\"\nsecond"}]}}`,
		},
		want: []string{`{"Thinking":{"text":"first <b> & \"quoted\"\nsecond"}}`},
	},
	{
		name: "tool call and result",
		lines: []string{
			`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"/a.go"}}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"l1"},{"type":"image"},{"type":"text","text":"l2"}]}]}}`,
			`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t2","name":"Glob","input":{"path":"/src"}}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"EISDIR","is_error":true}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"zz","content":"orphan"},{"type":"tool_result","tool_use_id":"t2","content":""}]}}`,
			`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t3","name":"X","input":{"file_path":null,"path":"/p"}},{"type":"tool_use","id":"t4","name":"Y"}]}}`,
		},
		want: []string{
			`{"ToolCall":{"tool_use_id":"t1","tool_name":"Read","file_path":"/a.go","input":{"file_path":"/a.go"}}}`,
			`{"ToolResult":{"tool_use_id":"t1","tool_name":"Read","file_path":"/a.go","content":"l1\nl2","is_error":false}}`,
			`{"ToolCall":{"tool_use_id":"t2","tool_name":"Glob","file_path":"/src","input":{"path":"/src"}}}`,
			`{"ToolResult":{"tool_use_id":"t2","tool_name":"Glob","file_path":"/src","content":"EISDIR","is_error":true}}`,
			`{"ToolResult":{"tool_use_id":"zz","tool_name":"Unknown","file_path":null,"content":"orphan","is_error":false}}`,
			`{"ToolCall":{"tool_use_id":"t3","tool_name":"X","file_path":null,"input":{"file_path":null,"path":"/p"}}}`,
		},
	},
	{
		name: "Agent tool suppresses the sub-agent prompt until its result",
		lines: []string{
			`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"a1","name":"Agent","input":{"prompt":"go"}}]}}`,
			`{"type":"user","message":{"content":"sub-agent prompt"}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a1","content":"report"}]}}`,
			`{"type":"user","message":{"content":"next prompt"}}`,
		},
		want: []string{
			`{"ToolCall":{"tool_use_id":"a1","tool_name":"Agent","file_path":null,"input":{"prompt":"go"}}}`,
			`{"ToolResult":{"tool_use_id":"a1","tool_name":"Agent","file_path":null,"content":"report","is_error":false}}`,
			`{"UserMessage":{"content":"next prompt"}}`,
		},
	},
	{
		name: "sub-agent lines are dropped",
		lines: []string{
			`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"a1","name":"Task","input":{}}]},"parent_tool_use_id":null}`,
			`{"type":"user","message":{"content":[{"type":"text","text":"SUB PROMPT"}]},"parent_tool_use_id":"a1"}`,
			`{"type":"assistant","message":{"id":"s","content":[{"type":"text","text":"sub text"},{"type":"tool_use","id":"b1","name":"Bash","input":{"command":"ls"}}]},"parent_tool_use_id":"a1"}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"b1","content":"x"}]},"parent_tool_use_id":"a1"}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a1","content":"done"}]},"parent_tool_use_id":null}`,
		},
		want: []string{
			`{"ToolCall":{"tool_use_id":"a1","tool_name":"Task","file_path":null,"input":{}}}`,
			`{"ToolResult":{"tool_use_id":"a1","tool_name":"Task","file_path":null,"content":"done","is_error":false}}`,
		},
	},
	{
		name:  "reminder hooks come before the prompt",
		lines: []string{`{"type":"user","message":{"content":"<system-reminder>\nUserPromptSubmit hook success: Follow CLAUDE.md.\n</system-reminder>\nHello"}}`},
		want: []string{
			`{"Hook":{"name":"UserPromptSubmit","output":"Follow CLAUDE.md."}}`,
			`{"UserMessage":{"content":"<system-reminder>\nUserPromptSubmit hook success: Follow CLAUDE.md.\n</system-reminder>\nHello"}}`,
		},
	},
	{
		name: "failed hook in a tool result",
		lines: []string{
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"ok<system-reminder>Lint hook failed: bad\n</system-reminder>"}]}}`,
		},
		want: []string{
			`{"Hook":{"name":"Lint","output":"FAILED: bad"}}`,
			`{"ToolResult":{"tool_use_id":"t","tool_name":"Unknown","file_path":null,"content":"ok<system-reminder>Lint hook failed: bad\n</system-reminder>","is_error":false}}`,
		},
	},
	{
		name: "compaction markers and caveats",
		lines: []string{
			`{"type":"user","message":{"content":"This session is being continued from a previous conversation that ran out of context."}}`,
			`{"type":"user","message":{"content":"<local-command-stdout>Compacted (ctrl+o to see full summary)</local-command-stdout>"}}`,
			`{"type":"user","message":{"content":"<local-command-stdout>Set model to opus</local-command-stdout>"}}`,
			`{"type":"user","message":{"content":"<local-command-caveat>Caveat: ...</local-command-caveat>"}}`,
		},
		want: []string{`"Compacting"`, `"Compacted"`},
	},
	{
		name: "context is stripped and blank prompts dropped",
		lines: []string{
			`{"type":"user","message":{"content":"<azureal-session-context>\nold\n</azureal-session-context>\n\nreal prompt"}}`,
			`{"type":"user","message":{"content":"<azureal-session-context>\nonly context"}}`,
			`{"type":"user","message":{"content":"  "}}`,
		},
		want: []string{`{"UserMessage":{"content":"real prompt"}}`},
	},
	{
		name: "array prompt blocks are joined",
		lines: []string{
			`{"type":"user","message":{"content":[{"type":"text","text":"look at this"},{"type":"image","source":{"type":"base64","data":"AAAA"}},{"type":"text","text":"and fix it"}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":"r"},{"type":"text","text":"[Request interrupted by user for tool use]"}]}}`,
		},
		want: []string{
			`{"UserMessage":{"content":"look at this\n[image]\nand fix it"}}`,
			`{"ToolResult":{"tool_use_id":"t","tool_name":"Unknown","file_path":null,"content":"r","is_error":false}}`,
			`{"UserMessage":{"content":"[Request interrupted by user for tool use]"}}`,
		},
	},
	{
		name: "synthetic messages",
		lines: []string{
			`{"type":"assistant","message":{"id":"x","model":"<synthetic>","content":[{"type":"text","text":"API Error: 529 {\"type\":\"overloaded_error\"}"}]}}`,
			`{"type":"assistant","message":{"id":"y","model":"<synthetic>","content":[{"type":"text","text":"No response requested."}]}}`,
			`{"type":"assistant","message":{"id":"z","model":"<synthetic>","content":"Prompt is too long"},"isApiErrorMessage":true}`,
		},
		want: []string{
			`{"AssistantText":{"text":"Error: API Error: 529 {\"type\":\"overloaded_error\"}"}}`,
			`{"AssistantText":{"text":"Error: Prompt is too long"}}`,
		},
	},
	{
		name:  "api_retry becomes a hook",
		lines: []string{`{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":515,"error_status":529,"error":"overloaded","session_id":"s"}`},
		want:  []string{`{"Hook":{"name":"API error","output":"529 overloaded (retry 1 of 10)"}}`},
	},
	{
		name: "text lines announcing hooks",
		lines: []string{
			"PreToolUse:Bash hook success: allowed",
			"Stop hook failed",
			"just plain text",
		},
		want: []string{
			`{"Hook":{"name":"PreToolUse:Bash","output":"allowed"}}`,
			`{"Hook":{"name":"Stop","output":""}}`,
		},
	},
	{
		name: "malformed and unknown lines give nothing",
		lines: []string{
			`{not valid json}`,
			`{"type":"user","message":{"content":"trunc`,
			"{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"\xff\xfe\"}]}}",
			`{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}}`,
			`{"no_type":true}`,
			``,
		},
		want: []string{"{\"AssistantText\":{\"text\":\"\uFFFD\uFFFD\"}}"},
	},
}

func TestClaudeStreamParser_Lines(t *testing.T) {
	for _, tc := range claudeStreamCases {
		t.Run(tc.name, func(t *testing.T) {
			claudeCheckCase(t, NewStreamParser(parse.Options{}), tc)
		})
	}
}

func TestClaudeStreamParser_Stats(t *testing.T) {
	p := NewStreamParser(parse.Options{})
	for _, l := range []string{
		`{"type":"system","subtype":"init","session_id":"s"}`,
		``,
		`{bad`,
		`plain stderr text`,
		`{"type":"stream_event","event":{}}`,
		`{"type":"system","subtype":"task_started"}`,
	} {
		p.Feed([]byte(l))
	}
	p.SkipLine()
	got := p.Stats()
	if got.Lines != 7 || got.Malformed != 3 || got.Ignored != 2 {
		t.Errorf("Stats() = %+v, want 7 lines, 3 malformed, 2 ignored", got)
	}
	if want := []int{3, 4, 7}; !slices.Equal(got.BadLines, want) {
		t.Errorf("Stats().BadLines = %v, want %v", got.BadLines, want)
	}
}

// TestClaudeStreamParser_NoResult checks that a run cut off before its
// result line ends without a Complete: completion stays unknown.
func TestClaudeStreamParser_NoResult(t *testing.T) {
	p := NewStreamParser(parse.Options{})
	p.Feed([]byte(`{"type":"system","subtype":"init","session_id":"s","model":"m"}`))
	p.Feed([]byte(`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"sleep 9"}}]}}`))
	if got := p.Finish(); len(got) != 0 {
		t.Errorf("Finish() = %v, want nothing", got)
	}
}

// claudeStreamFixtures lists the format A files: the shared transcripts and
// the real CLI captures.
func claudeStreamFixtures(tb testing.TB) []string {
	dir := claudeFixtureDir(tb)
	files, _ := filepath.Glob(filepath.Join(dir, "transcripts", "A_*"))
	more, _ := filepath.Glob(filepath.Join(dir, "real-cli", "claude-*", "stdout.jsonl"))
	return append(files, more...)
}

func TestClaudeStreamParser_Fixtures(t *testing.T) {
	for _, path := range claudeStreamFixtures(t) {
		t.Run(claudeFixtureName(path), func(t *testing.T) {
			events, _, stats, err := parseFile(path, parse.FormatClaudeStream, parse.Options{})
			if err != nil {
				t.Fatalf("ParseFile: %v", err)
			}
			claudeEncodeAll(t, events)
			if stats.Lines == 0 {
				t.Errorf("Stats().Lines = 0")
			}
		})
	}
}

func TestClaudeStreamParser_FixtureCounts(t *testing.T) {
	tests := []struct {
		file string
		want claudeCounts
	}{
		{"transcripts/A_claude-agent-sdk-gleam_basic_query.jsonl", claudeCounts{init: 1, text: 1, complete: 1}},
		// Five runs in one log, the last one cut off: 5 Init, 4 Complete.
		{"transcripts/A_github.gg_claude_output.jsonl", claudeCounts{init: 5, text: 50, calls: 103, results: 96, complete: 4}},
		// No result line: no Complete. AZUREAL also stores the Task's
		// sub-agent calls (79 calls, 78 results).
		{"transcripts/A_sandbox_ai_compiler_repomirror--claude_output.jsonl", claudeCounts{init: 1, text: 50, calls: 60, results: 59}},
		{"transcripts/A_sandbox_ai_compiler_claude-debug--claude_output.jsonl", claudeCounts{init: 9, text: 59, calls: 157, results: 129, complete: 5}},
		{"real-cli/claude-a-multitool/stdout.jsonl", claudeCounts{init: 1, text: 3, calls: 7, results: 7, complete: 1}},
		{"real-cli/claude-g-subagent/stdout.jsonl", claudeCounts{init: 1, text: 2, calls: 1, results: 1, complete: 1}},
		{"real-cli/claude-d-api-error-retry/stdout.jsonl", claudeCounts{init: 1, text: 1, hooks: 1, complete: 1}},
		// A pretty-printed JSON array, not JSONL: nothing is read from it.
		{"transcripts/A_claude-code-action_sample-turns.json", claudeCounts{}},
	}
	dir := claudeFixtureDir(t)
	for _, tt := range tests {
		t.Run(claudeFixtureName(tt.file), func(t *testing.T) {
			events, _, _, err := parseFile(filepath.Join(dir, tt.file), parse.FormatClaudeStream, parse.Options{})
			if err != nil {
				t.Fatalf("ParseFile: %v", err)
			}
			if got := claudeCount(events); got != tt.want {
				t.Errorf("counts = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestClaudeStreamParser_Subagent checks the real sub-agent capture: the
// sub-agent's Bash call and its prompt stay out of the parent's turn.
func TestClaudeStreamParser_Subagent(t *testing.T) {
	path := filepath.Join(claudeFixtureDir(t), "real-cli", "claude-g-subagent", "stdout.jsonl")
	events, _, _, err := parseFile(path, parse.FormatClaudeStream, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if e.ToolName == "Bash" || (e.Kind == codec.KindUserMessage && strings.Contains(e.Content, "SUBAGENT-INVENTORY")) {
			t.Errorf("sub-agent event in the parent's turn: %+v", e)
		}
	}
}

// TestClaudeStreamParser_APIRetry checks the real 529-then-success capture.
func TestClaudeStreamParser_APIRetry(t *testing.T) {
	path := filepath.Join(claudeFixtureDir(t), "real-cli", "claude-d-api-error-retry", "stdout.jsonl")
	events, _, _, err := parseFile(path, parse.FormatClaudeStream, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := claudeEncodeAll(t, events)
	want := []string{
		`{"Init":{"cwd":"/tmp/fakemodel-scratch/claude-d-api-error-retry/work","model":"claude-opus-5-5"}}`,
		`{"Hook":{"name":"API error","output":"529 overloaded (retry 1 of 10)"}}`,
		`{"AssistantText":{"text":"Hello after the overload cleared."}}`,
		`{"Complete":{"success":true,"duration_ms":` + claudeField(t, path, 4, "duration_ms") + `,"cost_usd":0.0008}}`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func FuzzClaudeStreamParser(f *testing.F) {
	claudeSeedFuzz(f, claudeStreamCases, claudeStreamFixtures)
	f.Fuzz(func(t *testing.T, data []byte) {
		claudeFuzzParser(t, NewStreamParser(parse.Options{}), data)
	})
}

func BenchmarkClaudeStreamParser(b *testing.B) {
	path := filepath.Join(claudeFixtureDir(b), "transcripts", "A_sandbox_ai_compiler_claude-debug--claude_output.jsonl")
	claudeBenchParser(b, path, func() parse.Parser { return NewStreamParser(parse.Options{}) })
}
