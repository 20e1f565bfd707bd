package codex

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// codexExecCases is the line table of the exec parser; its lines also seed
// FuzzCodexExecParser.
var codexExecCases = []struct {
	name  string
	lines []string
	want  string
}{{
	name:  "thread.started gives one Init with the configured model",
	lines: []string{`{"type":"thread.started","thread_id":"abc"}`, `{"type":"thread.started","thread_id":"abc"}`, `{"type":"turn.started"}`},
	want:  `{"Init":{"cwd":"","model":"gpt-5.4"}}`,
}, {
	name:  "turn_context before the Init sets its model",
	lines: []string{`{"type":"turn_context","payload":{"model":"gpt-5.5-pro"}}`, `{"type":"session_meta","payload":{"id":"s","cwd":"/p"}}`},
	want:  `{"Init":{"cwd":"/p","model":"gpt-5.5-pro"}}`,
}, {
	name: "command started then completed",
	lines: []string{
		`{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"","exit_code":null,"status":"in_progress"}}`,
		`{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"ls","aggregated_output":"file1\nfile2\n","exit_code":0,"status":"completed"}}`,
	},
	want: `{"ToolCall":{"tool_use_id":"item_1","tool_name":"Bash","file_path":null,"input":{"command":"ls"}}}
{"ToolResult":{"tool_use_id":"item_1","tool_name":"Bash","file_path":null,"content":"file1\nfile2\n","is_error":false}}`,
}, {
	name:  "completed without started emits the call too; empty output shows the exit code",
	lines: []string{`{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"true","aggregated_output":"","exit_code":0,"status":"completed"}}`},
	want: `{"ToolCall":{"tool_use_id":"item_2","tool_name":"Bash","file_path":null,"input":{"command":"true"}}}
{"ToolResult":{"tool_use_id":"item_2","tool_name":"Bash","file_path":null,"content":"Exit code: 0","is_error":false}}`,
}, {
	name:  "failed command keeps output and exit code",
	lines: []string{`{"type":"item.completed","item":{"id":"item_5","type":"command_execution","command":"x","aggregated_output":"check failed\n","exit_code":1,"status":"failed"}}`},
	want: `{"ToolCall":{"tool_use_id":"item_5","tool_name":"Bash","file_path":null,"input":{"command":"x"}}}
{"ToolResult":{"tool_use_id":"item_5","tool_name":"Bash","file_path":null,"content":"check failed\nExit code: 1","is_error":true}}`,
}, {
	name:  "declined command is an error",
	lines: []string{`{"type":"item.completed","item":{"id":"i","type":"command_execution","command":"rm -rf /","aggregated_output":"","exit_code":null,"status":"declined"}}`},
	want: `{"ToolCall":{"tool_use_id":"i","tool_name":"Bash","file_path":null,"input":{"command":"rm -rf /"}}}
{"ToolResult":{"tool_use_id":"i","tool_name":"Bash","file_path":null,"content":"Command declined","is_error":true}}`,
}, {
	name:  "reasoning and agent messages; empty text dropped",
	lines: []string{`{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Thinking**"}}`, `{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":""}}`, `{"type":"item.completed","item":{"id":"item_2","type":"agent_message","text":"Done."}}`},
	want: `{"AssistantText":{"text":"**Thinking**"}}
{"AssistantText":{"text":"Done."}}`,
}, {
	name:  "file_change: one Edit per file, move and diff kept, empty path skipped",
	lines: []string{`{"type":"item.completed","item":{"id":"item_3","type":"file_change","changes":[{"path":"a.rs","kind":"update","move_path":"b.rs","unified_diff":"@@ -1 +1 @@\n-x\n+y\n"},{"path":"","kind":"add"},{"path":"c.rs"}],"status":"completed"}}`},
	want: `{"ToolCall":{"tool_use_id":"item_3-a.rs","tool_name":"Edit","file_path":"a.rs","input":{"file_path":"a.rs","kind":"update","move_path":"b.rs","unified_diff":"@@ -1 +1 @@\n-x\n+y\n"}}}
{"ToolResult":{"tool_use_id":"item_3-a.rs","tool_name":"Edit","file_path":"a.rs","content":"File update: a.rs -> b.rs","is_error":false}}
{"ToolCall":{"tool_use_id":"item_3-c.rs","tool_name":"Edit","file_path":"c.rs","input":{"file_path":"c.rs","kind":"update"}}}
{"ToolResult":{"tool_use_id":"item_3-c.rs","tool_name":"Edit","file_path":"c.rs","content":"File update: c.rs","is_error":false}}`,
}, {
	name:  "failed file_change is an error",
	lines: []string{`{"type":"item.completed","item":{"id":"i","type":"file_change","changes":[{"path":"a","kind":"add"}],"status":"failed"}}`},
	want: `{"ToolCall":{"tool_use_id":"i-a","tool_name":"Edit","file_path":"a","input":{"file_path":"a","kind":"add"}}}
{"ToolResult":{"tool_use_id":"i-a","tool_name":"Edit","file_path":"a","content":"File add: a","is_error":true}}`,
}, {
	name:  "mcp call with a string result",
	lines: []string{`{"type":"item.completed","item":{"id":"m","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"query":"help"},"result":"Found docs","error":null}}`},
	want: `{"ToolCall":{"tool_use_id":"m","tool_name":"docs:search","file_path":null,"input":{"query":"help"}}}
{"ToolResult":{"tool_use_id":"m","tool_name":"docs:search","file_path":null,"content":"Found docs","is_error":false}}`,
}, {
	name:  "mcp call with content blocks and an error object",
	lines: []string{`{"type":"item.completed","item":{"id":"m1","type":"mcp_tool_call","server":"s","tool":"t","arguments":{},"result":{"content":[{"type":"text","text":"one"},{"type":"text","text":"two"}],"structured_content":null},"error":null}}`, `{"type":"item.completed","item":{"id":"m2","type":"mcp_tool_call","server":"s","tool":"t","result":null,"error":{"message":"timeout"}}}`},
	want: `{"ToolCall":{"tool_use_id":"m1","tool_name":"s:t","file_path":null,"input":{}}}
{"ToolResult":{"tool_use_id":"m1","tool_name":"s:t","file_path":null,"content":"one\ntwo","is_error":false}}
{"ToolCall":{"tool_use_id":"m2","tool_name":"s:t","file_path":null,"input":null}}
{"ToolResult":{"tool_use_id":"m2","tool_name":"s:t","file_path":null,"content":"timeout","is_error":true}}`,
}, {
	name:  "turn.completed estimates the cost",
	lines: []string{`{"type":"turn.completed","usage":{"input_tokens":32607,"cached_input_tokens":32384,"output_tokens":87}}`},
	want:  `{"Complete":{"success":true,"duration_ms":0,"cost_usd":0.32868}}`,
}, {
	name: "fatal run: retry notices dropped, final error once, then failure",
	lines: []string{
		`{"type":"turn.started"}`,
		`{"type":"error","message":"Reconnecting... 1/2 (busy)"}`,
		`{"type":"error","message":"Reconnecting... 2/2 (busy)"}`,
		`{"type":"error","message":"busy"}`,
		`{"type":"turn.failed","error":{"message":"busy"}}`,
	},
	want: `{"AssistantText":{"text":"Error: busy"}}
{"Complete":{"success":false,"duration_ms":0,"cost_usd":0.0}}`,
}, {
	name:  "turn.failed with its own message",
	lines: []string{`{"type":"error","message":"warning"}`, `{"type":"turn.failed","error":{"message":"fatal"}}`, `{"type":"turn.failed"}`},
	want: `{"AssistantText":{"text":"Error: warning"}}
{"AssistantText":{"text":"Error: fatal"}}
{"Complete":{"success":false,"duration_ms":0,"cost_usd":0.0}}
{"AssistantText":{"text":"Error: Turn failed"}}
{"Complete":{"success":false,"duration_ms":0,"cost_usd":0.0}}`,
}, {
	name:  "blank, malformed, non-object and unknown lines give nothing; bad UTF-8 and a BOM are survived",
	lines: []string{``, `   `, `{"type":"item.completed"`, `[1,2]`, `"str"`, `{"type":"todo.whatever"}`, "{\"type\":\"item.completed\",\"item\":{\"id\":\"x\",\"type\":\"agent_message\",\"text\":\"caf\xe9\"}}", "\xef\xbb\xbf{\"type\":\"item.completed\",\"item\":{\"type\":\"reasoning\",\"text\":\"bom\"}}"},
	want:  `{"AssistantText":{"text":"caf` + "\uFFFD" + `"}}` + "\n" + `{"AssistantText":{"text":"bom"}}`,
}}

func TestCodexExecParser(t *testing.T) {
	for _, tc := range codexExecCases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewExecParser(parse.Options{Model: "gpt-5.4"})
			got := strings.TrimSpace(cxJSON(t, cxFeed(p, tc.lines...)))
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestCodexExecParserDefaultModel(t *testing.T) {
	evs := cxFeed(NewExecParser(parse.Options{}), `{"type":"thread.started","thread_id":"t"}`)
	if len(evs) != 1 || evs[0].Model != "codex" {
		t.Errorf("Init with no model = %+v, want model codex", evs)
	}
}

func TestCodexExecParserStats(t *testing.T) {
	p := NewExecParser(parse.Options{})
	cxFeed(p, `{"type":"turn.started"}`, ``, `{bad`, `[]`, `{"type":"mystery"}`, `{"type":"item.completed","item":{"type":"todo_list"}}`)
	p.SkipLine()
	want := parse.Stats{Lines: 7, Malformed: 3, BadLines: []int{3, 4, 7}, Ignored: 2}
	got := p.Stats()
	if got.Lines != want.Lines || got.Malformed != want.Malformed || got.Ignored != want.Ignored || !slices.Equal(got.BadLines, want.BadLines) {
		t.Errorf("Stats() = %+v, want %+v", got, want)
	}
}

// codexExecFixtures are every format C file: transcripts/C_* and the real
// CLI stdout captures.
func codexExecFixtures(t *testing.T) []string {
	files := append(fixtures.Glob(t, "transcripts/C_*.jsonl"), fixtures.Glob(t, "real-cli/codex-*/stdout.jsonl")...)
	if len(files) == 0 {
		fixtures.Missing(t, errors.New("no format C files (transcripts/C_*.jsonl, real-cli/codex-*/stdout.jsonl)"))
	}
	return files
}

func TestCodexExecFixtures(t *testing.T) {
	for _, path := range codexExecFixtures(t) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			evs, st := cxParseFixture(t, path, parse.FormatCodexExec)
			if st.Malformed != 0 || st.Ignored != 0 {
				t.Errorf("Stats() = %+v, want no malformed or ignored lines", st)
			}
			c := cxCounts(evs)
			if c[codec.KindInit] != 1 {
				t.Errorf("%d Init events, want 1", c[codec.KindInit])
			}
			cxCheckKeepsReference(t, filepath.Base(path), evs)
		})
	}
}

// cxCheckKeepsReference checks that evs keep every tool call and tool result
// and every assistant text AZUREAL stored for the fixture (its doubled
// reasoning and retry notices aside), and that prompt counts only differ by
// the context AZUREAL showed as prompts.
func cxCheckKeepsReference(t *testing.T, name string, evs []codec.Event) {
	t.Helper()
	ref := cxReference(t, name)
	if ref == nil {
		return
	}
	calls, results, texts := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, e := range evs {
		switch e.Kind {
		case codec.KindToolCall:
			calls[e.ToolUseID+" "+e.ToolName] = true
		case codec.KindToolResult:
			results[e.ToolUseID] = true
		case codec.KindAssistantText:
			texts[e.Text] = true
		}
	}
	for _, e := range ref {
		switch {
		case e.Kind == codec.KindToolCall && !calls[e.ToolUseID+" "+e.ToolName] && !calls[e.ToolUseID+" Bash"]:
			t.Errorf("lost %s call %s", e.ToolName, e.ToolUseID)
		case e.Kind == codec.KindToolResult && !results[e.ToolUseID]:
			t.Errorf("lost %s result %s", e.ToolName, e.ToolUseID)
		case e.Kind == codec.KindAssistantText && e.Text != "" && !texts[e.Text] && !strings.HasPrefix(e.Text, "Error: Reconnecting..."):
			t.Errorf("lost assistant text %.80q", e.Text)
		}
	}
}

func TestCodexExecRealCLI(t *testing.T) {
	dir := filepath.Join(cxFixtures(t), "real-cli")
	tests := []struct {
		folder                               string
		assistant, calls, results, completes int
		success                              bool
	}{
		{"codex-a-multitool", 3, 7, 7, 1, true},
		{"codex-d2-api-error-fatal", 1, 0, 0, 1, false},
		{"codex-f-compaction", 1, 0, 0, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.folder, func(t *testing.T) {
			evs, _ := cxParseFixture(t, filepath.Join(dir, tc.folder, "stdout.jsonl"), parse.FormatCodexExec)
			c := cxCounts(evs)
			if c[codec.KindAssistantText] != tc.assistant || c[codec.KindToolCall] != tc.calls ||
				c[codec.KindToolResult] != tc.results || c[codec.KindComplete] != tc.completes {
				t.Errorf("counts = %v, want %d assistant, %d calls, %d results, %d complete",
					c, tc.assistant, tc.calls, tc.results, tc.completes)
			}
			if last := evs[len(evs)-1]; last.Kind != codec.KindComplete || last.Success != tc.success || last.DurationMS != 0 {
				t.Errorf("last event = %+v, want Complete success=%v with duration 0", last, tc.success)
			}
		})
	}
}

func TestCodexExecFailedCommandKeepsExitCode(t *testing.T) {
	path := filepath.Join(cxFixtures(t), "real-cli", "codex-a-multitool", "stdout.jsonl")
	evs, _ := cxParseFixture(t, path, parse.FormatCodexExec)
	for _, e := range evs {
		if e.Kind == codec.KindToolResult && e.ToolUseID == "item_5" {
			if e.Content != "check failed\nExit code: 1" || !e.IsError {
				t.Errorf("item_5 result = %q, is_error %v; want output with exit code, error", e.Content, e.IsError)
			}
			return
		}
	}
	t.Error("no result for item_5")
}

func TestCodexExecFatalErrorOnce(t *testing.T) {
	path := filepath.Join(cxFixtures(t), "real-cli", "codex-d2-api-error-fatal", "stdout.jsonl")
	evs, _ := cxParseFixture(t, path, parse.FormatCodexExec)
	want := `{"Init":{"cwd":"","model":"gpt-5.5"}}
{"AssistantText":{"text":"Error: We’re currently experiencing high demand, which may cause temporary errors."}}
{"Complete":{"success":false,"duration_ms":0,"cost_usd":0.0}}
`
	if got := cxJSON(t, evs); got != want {
		t.Errorf("got\n%swant\n%s", got, want)
	}
}

func FuzzCodexExecParser(f *testing.F) {
	for _, tc := range codexExecCases {
		f.Add([]byte(strings.Join(tc.lines, "\n")))
	}
	fixtures.Seed(f, "transcripts/C_*.jsonl", "real-cli/codex-*/stdout.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		cxFuzzParser(t, NewExecParser(parse.Options{Model: "m"}), data)
	})
}
