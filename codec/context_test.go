package codec_test

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// goldenContextPrompt is the §6.3 golden example, byte for byte.
const goldenContextPrompt = `<azureal-session-context>
[Previous conversation summary]
SUMMARY

[Conversation continues]

## User
fix it

## Assistant
ok

## Tool: Read (/a.rs)

[Result: Read] 1
2
3
(+1 more lines)
5
6
7

[Error: Bash] boom

## Plan: P
s1

## Command: /compact

[Session complete: 1.2s, $0.0123]
</azureal-session-context>

next`

func TestBuildContextPromptGolden(t *testing.T) {
	summary := "SUMMARY"
	p := &codec.ContextPayload{Summary: &summary, Events: []codec.Event{
		codec.Init("/w", "opus"),
		codec.UserMessage("fix it"),
		codec.AssistantText("ok"),
		codec.ToolCall("t1", "Read", new("/a.rs"), json.RawMessage(`{"file_path":"/a.rs"}`)),
		codec.ToolResult("t1", "Read", new("/a.rs"),
			"1\n2\n3\n4\n5\n6\n7\n<system-reminder>\nremember this\n</system-reminder>\n", false),
		codec.ToolResult("t2", "Bash", nil, "boom", true),
		codec.Plan("P", "s1"),
		codec.Command("/compact"),
		codec.Hook("UserPromptSubmit", "ok"),
		codec.ModelSwitch("gpt-5.5"),
		codec.Complete(true, 1234, 0.012345),
	}}
	if got := codec.BuildContextPrompt(p, "next"); got != goldenContextPrompt {
		t.Errorf("BuildContextPrompt(golden, %q) = %q, want %q", "next", got, goldenContextPrompt)
	}
}

// autoContinuePrompt is an auto-continue message as agents sends it: the
// store recognises it by its tags alone.
const autoContinuePrompt = codec.AutoContinueOpenTag + "\nCarry on with the work in progress.\n" + codec.AutoContinueCloseTag

// turns returns alternating "question i" / "answer i" events for i in [from, to].
func turns(from, to int) []codec.Event {
	var evs []codec.Event
	for i := from; i <= to; i++ {
		evs = append(evs, codec.UserMessage(fmt.Sprintf("question %d", i)),
			codec.AssistantText(fmt.Sprintf("answer %d", i)))
	}
	return evs
}

func TestBuildContextPromptVectors(t *testing.T) {
	summary := "Summary of q1-q3."
	empty := ""
	grep := []codec.Event{
		codec.ToolCall("t1", "Grep", nil, json.RawMessage(`{"pattern":"fn main","path":"src"}`)),
		codec.ToolResult("t1", "Grep", nil, "src/main.rs:1:fn main() {", false),
	}
	tests := []struct {
		name    string
		payload *codec.ContextPayload
		prompt  string
		want    []string // substrings, in order
		notWant []string
		exact   string // whole result when set
	}{
		{name: "17 nil payload", payload: nil, prompt: "first", exact: "first"},
		{name: "17 empty payload", payload: &codec.ContextPayload{}, prompt: "hello", exact: "hello"},
		{name: "only omitted events", prompt: "hi", exact: "hi",
			payload: &codec.ContextPayload{Events: []codec.Event{codec.Init("/w", "opus"), codec.Unit(codec.KindCompacting)}}},
		{name: "18 only summary", payload: &codec.ContextPayload{Summary: &summary}, prompt: "go on",
			exact: "<azureal-session-context>\n[Previous conversation summary]\nSummary of q1-q3.\n\n" +
				"[Conversation continues]\n</azureal-session-context>\n\ngo on"},
		{name: "empty summary still injects", payload: &codec.ContextPayload{Summary: &empty}, prompt: "p",
			exact: "<azureal-session-context>\n[Previous conversation summary]\n\n\n[Conversation continues]\n</azureal-session-context>\n\np"},
		{name: "23 user and assistant", prompt: "now fix the tests",
			payload: &codec.ContextPayload{Events: []codec.Event{
				codec.UserMessage("fix the bug"), codec.AssistantText("I'll look at it.")}},
			exact: "<azureal-session-context>\n## User\nfix the bug\n\n## Assistant\nI'll look at it.\n" +
				"</azureal-session-context>\n\nnow fix the tests"},
		{name: "14 after compaction", payload: &codec.ContextPayload{Summary: &summary, Events: turns(4, 6)},
			prompt: "new prompt",
			want: []string{"<azureal-session-context>\n", "[Previous conversation summary]", summary,
				"[Conversation continues]", "question 4", "answer 6", "\n\nnew prompt"},
			notWant: []string{"question 1"}},
		{name: "29 grep pair", payload: &codec.ContextPayload{Events: grep}, prompt: "x",
			want: []string{"## Tool: Grep (fn main)", "[Result: Grep]", "src/main.rs:1:fn main()"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := codec.BuildContextPrompt(tc.payload, tc.prompt)
			if tc.exact != "" && got != tc.exact {
				t.Fatalf("BuildContextPrompt(%q) = %q, want %q", tc.prompt, got, tc.exact)
			}
			rest := got
			for _, w := range tc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("BuildContextPrompt(%q) = %q, want it to contain %q (in order)", tc.prompt, got, w)
				}
				rest = rest[i+len(w):]
			}
			for _, w := range tc.notWant {
				if strings.Contains(got, w) {
					t.Errorf("BuildContextPrompt(%q) = %q, must not contain %q", tc.prompt, got, w)
				}
			}
			if !strings.HasSuffix(got, tc.prompt) {
				t.Errorf("BuildContextPrompt(%q) = %q, want it to end with the prompt", tc.prompt, got)
			}
			if s := codec.StripInjectedContext(got); s != tc.prompt {
				t.Errorf("StripInjectedContext(BuildContextPrompt(%q)) = %q, want the prompt back", tc.prompt, s)
			}
		})
	}
}

func TestBuildTranscriptBlocks(t *testing.T) {
	tests := []struct {
		name  string
		event codec.Event
		want  string
	}{
		{"user", codec.UserMessage("hello"), "## User\nhello"},
		{"empty user", codec.UserMessage(""), "## User"},
		{"assistant", codec.AssistantText("hi"), "## Assistant\nhi"},
		{"26 tool call with param", codec.ToolCall("t", "Read", new("/src/main.rs"),
			json.RawMessage(`{"file_path":"/src/main.rs"}`)), "## Tool: Read (/src/main.rs)"},
		{"26 tool call without param", codec.ToolCall("t", "Custom", nil, json.RawMessage(`{}`)), "## Tool: Custom"},
		{"tool call null input", codec.ToolCall("t", "Bash", nil, nil), "## Tool: Bash"},
		{"26 result ok", codec.ToolResult("t", "Bash", nil, "OK", false), "[Result: Bash] OK"},
		{"26 result error", codec.ToolResult("t", "Bash", nil, "not found", true), "[Error: Bash] not found"},
		{"empty result", codec.ToolResult("t", "Glob", nil, "", false), "[Result: Glob]"},
		{"26 plan", codec.Plan("refactor", "step 1"), "## Plan: refactor\nstep 1"},
		{"26 command", codec.Command("/compact"), "## Command: /compact"},
		{"26 complete", codec.Complete(true, 5000, 0.05), "[Session complete: 5.0s, $0.0500]"},
		{"complete rounding", codec.Complete(false, 1234, 0.012345), "[Session complete: 1.2s, $0.0123]"},
		{"complete exact tie to even", codec.Complete(true, 1250, 0.00005), "[Session complete: 1.2s, $0.0001]"},
		{"complete above tie", codec.Complete(true, 1350, 0.00015), "[Session complete: 1.4s, $0.0001]"},
		{"complete zero", codec.Complete(true, 0, 0), "[Session complete: 0.0s, $0.0000]"},
		{"complete large", codec.Complete(true, 123456789, 1e6), "[Session complete: 123456.8s, $1000000.0000]"},
		{"complete negative cost", codec.Complete(true, 1, -0.5), "[Session complete: 0.0s, $-0.5000]"},
		{"complete NaN", codec.Complete(true, 1, math.NaN()), "[Session complete: 0.0s, $NaN]"},
		{"complete inf", codec.Complete(true, 1, math.Inf(1)), "[Session complete: 0.0s, $inf]"},
		{"26 init omitted", codec.Init("/w", "opus"), ""},
		{"26 filtered omitted", codec.Unit(codec.KindFiltered), ""},
		{"26 compacting omitted", codec.Unit(codec.KindCompacting), ""},
		{"compacted omitted", codec.Unit(codec.KindCompacted), ""},
		{"may be compacting omitted", codec.Unit(codec.KindMayBeCompacting), ""},
		{"26 hook omitted", codec.Hook("x", "y"), ""},
		{"26 model switch omitted", codec.ModelSwitch("opus"), ""},
		{"unicode trailing space trimmed", codec.AssistantText("done\u3000\u00a0\n\t "), "## Assistant\ndone"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := codec.BuildTranscript(codec.ContextPayload{Events: []codec.Event{tc.event}})
			if got != tc.want {
				t.Errorf("BuildTranscript(%v) = %q, want %q", tc.event.Kind, got, tc.want)
			}
		})
	}
}

func TestBuildTranscriptSeparators(t *testing.T) {
	summary := "S\n"
	p := codec.ContextPayload{Summary: &summary, Events: []codec.Event{
		codec.UserMessage("a\n"), codec.Hook("h", "x"), codec.Command("c"), codec.AssistantText("  \n"),
	}}
	want := "[Previous conversation summary]\nS\n\n\n[Conversation continues]\n\n## User\na\n\n\n## Command: c\n\n## Assistant"
	if got := codec.BuildTranscript(p); got != want {
		t.Errorf("BuildTranscript(%+v) = %q, want %q", p, got, want)
	}
}

func TestCompactResult(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"27 three lines unchanged", "one\ntwo\nthree", "one\ntwo\nthree"},
		{"27 eight lines", "a\nb\nc\nd\ne\nf\ng\nh", "a\nb\nc\n(+2 more lines)\nf\ng\nh"},
		{"27 reminder stripped", "actual content<system-reminder>secret stuff</system-reminder>", "actual content"},
		{"empty", "", ""},
		{"only reminder", "<system-reminder>x</system-reminder>", ""},
		{"six lines unchanged", "1\n2\n3\n4\n5\n6", "1\n2\n3\n4\n5\n6"},
		{"seven lines", "1\n2\n3\n4\n5\n6\n7", "1\n2\n3\n(+1 more lines)\n5\n6\n7"},
		{"cut at first reminder", "1\n2\n3\n4\n5\n6\n7\n<system-reminder>a</system-reminder>\n8\n9",
			"1\n2\n3\n(+1 more lines)\n5\n6\n7"},
		{"trailing blank lines trimmed before counting", "1\n2\n3\n4\n5\n6\n\n\n  \n", "1\n2\n3\n4\n5\n6"},
		{"leading space kept", "     line 1\n  x", "     line 1\n  x"},
		{"crlf kept when short", "a\r\nb\r\n", "a\r\nb"},
		{"crlf joined with lf when long", "a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\n", "a\nb\nc\n(+1 more lines)\ne\nf\ng"},
		{"bare cr does not split", "a\rb\rc\rd\re\rf\rg", "a\rb\rc\rd\re\rf\rg"},
		{"blank lines count", "a\n\n\n\n\n\nb", "a\n\n\n(+1 more lines)\n\n\nb"},
		{"unicode right trim", "x\u2003\u3000", "x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := codec.CompactResult(tc.in); got != tc.want {
				t.Errorf("CompactResult(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestToolKeyParam(t *testing.T) {
	tests := []struct{ name, tool, input, want string }{
		{"bash", "Bash", `{"command":"cargo test","timeout":5}`, "cargo test"},
		{"bash lower", "bash", `{"command":"ls"}`, "ls"},
		{"read", "Read", `{"file_path":"/src/main.rs"}`, "/src/main.rs"},
		{"edit", "edit", `{"file_path":"/e.go","old_string":"a"}`, "/e.go"},
		{"write", "Write", `{"file_path":"/w.go","_lines":3}`, "/w.go"},
		{"glob", "Glob", `{"pattern":"**/*.rs"}`, "**/*.rs"},
		{"29 grep", "grep", `{"pattern":"fn main"}`, "fn main"},
		{"webfetch", "WebFetch", `{"url":"https://x"}`, "https://x"},
		{"websearch", "websearch", `{"query":"q"}`, "q"},
		{"agent", "Agent", `{"description":"Review","subagent_type":"r"}`, "Review"},
		{"task", "task", `{"description":"Find"}`, "Find"},
		{"lsp", "LSP", `{"operation":"hover","filePath":"/a"}`, "hover"},
		{"case sensitive name", "BASH", `{"command":"ls","file_path":"/f"}`, "/f"},
		{"28 path fallback", "Unknown", `{"path":"/fallback"}`, "/fallback"},
		{"28 missing", "Read", `{}`, ""},
		{"path fallback for known tool", "Read", `{"path":"/p"}`, "/p"},
		{"present non-string does not fall back", "Read", `{"file_path":null,"path":"/p"}`, ""},
		{"number value", "Bash", `{"command":42}`, ""},
		{"fallback non-string", "Read", `{"path":["x"]}`, ""},
		{"duplicate key last wins", "Bash", `{"command":"a","command":"b"}`, "b"},
		{"escaped key and value", "Bash", `{"comm\u0061nd":"echo \"hi\"\n"}`, "echo \"hi\"\n"},
		{"null input", "Bash", `null`, ""},
		{"nil input", "Bash", ``, ""},
		{"array input", "Bash", `["command"]`, ""},
		{"string input", "Bash", `"command"`, ""},
		{"invalid json", "Bash", `{"command":`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var in json.RawMessage
			if tc.input != "" {
				in = json.RawMessage(tc.input)
			}
			if got := codec.ToolKeyParam(tc.tool, in); got != tc.want {
				t.Errorf("ToolKeyParam(%q, %q) = %q, want %q", tc.tool, tc.input, got, tc.want)
			}
		})
	}
}

func TestSanitizeInjectedContext(t *testing.T) {
	open, closeTag := codec.ContextOpenTag, codec.ContextCloseTag
	hidden := "# AGENTS.md instructions for /tmp/project\n<INSTRUCTIONS>\nKeep this hidden.\n</INSTRUCTIONS>\n" +
		"<environment_context>\n  <cwd>/tmp/project</cwd>\n</environment_context>"
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"24 plain unchanged", "hello world", "hello world", true},
		{"24 wrapped", open + "\nsome context\n" + closeTag + "\n\nactual prompt", "actual prompt", true},
		{"24 multi-line prompt", open + "\nctx\n" + closeTag + "\n\nline 1\nline 2\nline 3", "line 1\nline 2\nline 3", true},
		{"24 malformed", open + "\nctx without close", "", false},
		{"24 hidden codex", hidden, "", false},
		{"24 hidden codex truncated", "# AGENTS.md instructions for /tmp/p\n<INSTRUCTIONS>\nKeep", "", false},
		{"24 bare auto-continue", autoContinuePrompt, "", false},
		{"24 wrapped auto-continue", open + "\nctx\n" + closeTag + "\n\n" + autoContinuePrompt, "", false},
		{"all leading newlines removed", open + closeTag + "\n\n\n\nx", "x", true},
		{"first close tag wins", open + "\n" + closeTag + "\n\nsee " + closeTag + " here", "see " + closeTag + " here", true},
		{"wrapped empty prompt", open + "\nctx\n" + closeTag + "\n\n", "", false},
		{"empty plain kept", "", "", true},
		{"blank after tag kept", open + closeTag + "  ", "  ", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := codec.SanitizeUserMessage(tc.in)
			if got != tc.want || ok != tc.ok {
				t.Errorf("SanitizeUserMessage(%q) = %q, %v, want %q, %v", tc.in, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// FuzzSanitize checks SanitizeUserMessage, the strip round trip through
// BuildContextPrompt, and that CompactResult and ToolKeyParam never panic.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", "hello", "a\nb\nc\nd\ne\nf\ng<system-reminder>x", "{\"path\":\"/p\"}",
		codec.ContextOpenTag + "\nctx\n" + codec.ContextCloseTag + "\n\nprompt", autoContinuePrompt,
		" \u00a0# AGENTS.md instructions for /x\n<INSTRUCTIONS>", "\n\n" + codec.ContextCloseTag} {
		f.Add(s)
	}
	summary := "S"
	p := &codec.ContextPayload{Summary: &summary, Events: turns(1, 2)}
	f.Fuzz(func(t *testing.T, content string) {
		s, ok := codec.SanitizeUserMessage(content)
		if !ok && s != "" || !strings.HasSuffix(content, s) {
			t.Fatalf("SanitizeUserMessage(%q) = %q, %v, want a suffix of the input, or \"\", false", content, s, ok)
		}
		plain := !strings.Contains(content, codec.ContextOpenTag) && !strings.Contains(content, codec.ContextCloseTag)
		if plain && !codec.IsHiddenCodexContext(content) && !codec.IsInternalAutoContinue(content) && (s != content || !ok) {
			t.Fatalf("SanitizeUserMessage(%q) = %q, %v, want it unchanged", content, s, ok)
		}
		if got, want := codec.StripInjectedContext(codec.BuildContextPrompt(p, content)), strings.TrimLeft(content, "\n"); got != want {
			t.Fatalf("StripInjectedContext(BuildContextPrompt(p, %q)) = %q, want %q", content, got, want)
		}
		if r := codec.CompactResult(content); strings.Contains(r, "<system-reminder>") {
			t.Fatalf("CompactResult(%q) = %q, still has a reminder", content, r)
		}
		_ = codec.ToolKeyParam("Bash", json.RawMessage(content)) // must not panic on any input
	})
}

// benchPayload returns stored (compacted) events of realistic coding turns
// whose char_len totals at least chars, the compaction threshold's worth of
// history a prompt can carry.
func benchPayload(chars int64) (*codec.ContextPayload, int64) {
	line := func(i int) string { return fmt.Sprintf("    line %d: value := compute(input[%d]) // keep going", i, i) }
	block := func(n int) string {
		lines := make([]string, n)
		for i := range lines {
			lines[i] = line(i)
		}
		return strings.Join(lines, "\n")
	}
	edit, _ := json.Marshal(map[string]string{"file_path": "/repo/internal/parser/parser.go",
		"old_string": block(25), "new_string": block(30)})
	var p codec.ContextPayload
	var total int64
	for turn := 0; total < chars; turn++ {
		path := new(fmt.Sprintf("/repo/internal/pkg%d/file.go", turn))
		raw := []codec.Event{
			codec.UserMessage(strings.Repeat("Please refactor the parser so that errors carry positions. ", 5)),
			codec.AssistantText(strings.Repeat("I'll read the file first, then change the error type. ", 20)),
			codec.ToolCall("r", "Read", path, json.RawMessage(`{"file_path":"`+*path+`","offset":1}`)),
			codec.ToolResult("r", "Read", path, block(200)+"\n<system-reminder>ignore</system-reminder>", false),
			codec.ToolCall("e", "Edit", path, edit),
			codec.ToolResult("e", "Edit", path, "The file has been updated.\n"+block(30), false),
			codec.ToolCall("b", "Bash", nil, json.RawMessage(`{"command":"go test ./...","timeout":120000}`)),
			codec.ToolResult("b", "Bash", nil, block(50)+"\nok  \tgithub.com/x/y\t0.5s", turn%7 == 0),
			codec.ToolCall("g", "Grep", nil, json.RawMessage(`{"pattern":"ErrSyntax","path":"/repo"}`)),
			codec.ToolResult("g", "Grep", nil, block(12), false),
			codec.AssistantText(strings.Repeat("The tests pass and errors now include line and column. ", 10)),
			codec.Complete(true, uint64(40000+turn*1234), 0.0123*float64(turn)),
		}
		for _, e := range raw {
			c := codec.CompactEvent(e)
			p.Events = append(p.Events, c)
			total += codec.CharLen(c)
		}
	}
	return &p, total
}

func BenchmarkBuildContext400K(b *testing.B) {
	p, total := benchPayload(400_000) // AZUREAL's compaction threshold (store.CompactionThreshold)
	b.SetBytes(total)
	b.ReportAllocs()
	var out string
	for b.Loop() {
		out = codec.BuildContextPrompt(p, "next prompt")
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
	b.ReportMetric(float64(len(p.Events)), "events")
	b.ReportMetric(float64(len(out)), "prompt-bytes")
}
