package claude

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// claudeTranscriptCases are the transcript parser's table, shared with its
// fuzz seeds.
var claudeTranscriptCases = []claudeLineCase{
	{
		name: "a number out of an f64's range makes the line unreadable, as to serde_json",
		lines: []string{
			`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Foo","input":{"keep":"x","big":1e400}}]}}`,
			`{"type":"result","durationMs":1e400,"costUsd":0.05}`,
			`{"type":"result","durationMs":5,"costUsd":0.05,"x":[1,2e999]}`,
		},
	},
	{
		name:  "result line after a byte order mark",
		lines: []string{"\xef\xbb\xbf" + `{"type":"result","durationMs":5000,"costUsd":0.05,"sessionId":"s1","timestamp":"2026-01-01T00:00:00Z"}`},
		want:  []string{`{"Complete":{"success":true,"duration_ms":5000,"cost_usd":0.05}}`},
	},
	{
		name: "result needs a numeric durationMs",
		lines: []string{
			`{"type":"result","duration_ms":5000,"total_cost_usd":0.05,"session_id":"s1"}`,
			`{"type":"result","durationMs":"5000"}`,
			`{"type":"result","durationMs":12.9}`,
		},
		want: []string{`{"Complete":{"success":true,"duration_ms":12,"cost_usd":0.0}}`},
	},
	{
		name: "slash commands",
		lines: []string{
			`{"type":"user","message":{"content":"<command-name>crt</command-name>"},"uuid":"u1"}`,
			`{"type":"system","subtype":"local_command","content":"<command-name>compact</command-name>","timestamp":"2026-01-01T00:00:00Z"}`,
			`{"type":"user","message":{"content":"<command-name>/clear</command-name>\n<command-message>clear</command-message>"},"parentUuid":"p"}`,
		},
		want: []string{`{"Command":{"name":"crt"}}`, `{"Command":{"name":"compact"}}`, `{"Command":{"name":"/clear"}}`},
	},
	{
		name: "hidden user lines",
		lines: []string{
			`{"type":"user","message":{"content":"<task-notification><task-id>b1</task-id></task-notification>"}}`,
			`{"type":"user","message":{"content":"meta content"},"isMeta":true}`,
			`{"type":"user","message":{"content":[{"type":"text","text":"Base directory for this skill"}]},"isMeta":true}`,
			`{"type":"user","message":{"content":"<local-command-caveat>Caveat</local-command-caveat>"}}`,
			`{"type":"user","message":{"content":"<local-command-stdout>Bye!</local-command-stdout>"}}`,
		},
	},
	{
		name: "compaction",
		lines: []string{
			`{"type":"user","message":{"content":"This session is being continued from a previous conversation..."},"isMeta":true}`,
			`{"type":"user","message":{"content":"<local-command-stdout>Compacted. ctrl+o for history</local-command-stdout>"}}`,
		},
		want: []string{`"Compacting"`, `"Compacted"`},
	},
	{
		name: "array prompts are kept",
		lines: []string{
			`{"type":"user","message":{"content":[{"type":"text","text":"<ide_opened_file>a.go</ide_opened_file>"},{"type":"text","text":"fix the bug"}]},"uuid":"u1"}`,
			`{"type":"user","message":{"content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}},{"type":"text","text":"[Image #1] what is this?"}]}}`,
			`{"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}`,
		},
		want: []string{
			`{"UserMessage":{"content":"<ide_opened_file>a.go</ide_opened_file>\nfix the bug"}}`,
			`{"UserMessage":{"content":"[image]\n[Image #1] what is this?"}}`,
			`{"UserMessage":{"content":"[Request interrupted by user for tool use]"}}`,
		},
	},
	{
		name: "a later prompt with the same parentUuid replaces the earlier one",
		lines: []string{
			`{"type":"user","message":{"content":"first try"},"parentUuid":"p","timestamp":"2026-01-01T00:00:00Z"}`,
			`{"type":"assistant","message":{"content":[{"type":"text","text":"answer 1"}]}}`,
			`{"type":"user","message":{"content":"second try"},"parentUuid":"p","timestamp":"2026-01-01T00:01:00Z"}`,
			`{"type":"user","message":{"content":"stale copy"},"parentUuid":"p","timestamp":"2025-12-31T00:00:00Z"}`,
			`{"type":"user","message":{"content":"unrelated"},"parentUuid":"q","timestamp":"2026-01-01T00:02:00Z"}`,
		},
		want: []string{
			`{"AssistantText":{"text":"answer 1"}}`,
			`{"UserMessage":{"content":"second try"}}`,
			`{"UserMessage":{"content":"unrelated"}}`,
		},
	},
	{
		name: "tool results guess is_error when it is absent",
		lines: []string{
			`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Edit","input":{"file_path":"/a"}}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"<tool_use_error>File has not been read</tool_use_error>"}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"Error: not an error by the heuristic"}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t3","content":"ENOENT: no such file"}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t4","content":"error reading","is_error":false}]}}`,
		},
		want: []string{
			`{"ToolCall":{"tool_use_id":"t1","tool_name":"Edit","file_path":"/a","input":{"file_path":"/a"}}}`,
			`{"ToolResult":{"tool_use_id":"t1","tool_name":"Edit","file_path":"/a","content":"<tool_use_error>File has not been read</tool_use_error>","is_error":true}}`,
			`{"ToolResult":{"tool_use_id":"t2","tool_name":"Unknown","file_path":null,"content":"Error: not an error by the heuristic","is_error":false}}`,
			`{"ToolResult":{"tool_use_id":"t3","tool_name":"Unknown","file_path":null,"content":"ENOENT: no such file","is_error":true}}`,
			`{"ToolResult":{"tool_use_id":"t4","tool_name":"Unknown","file_path":null,"content":"error reading","is_error":false}}`,
		},
	},
	{
		name: "UserPromptSubmit hook stays where it was found",
		lines: []string{
			`{"type":"user","message":{"content":"do it"},"timestamp":"2026-01-01T00:00:00Z"}`,
			`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a\n<system-reminder>\nUserPromptSubmit hook success: Be careful.\n</system-reminder>"}]}}`,
			`{"type":"assistant","message":{"content":[{"type":"text","text":"done"}]}}`,
		},
		want: []string{
			`{"UserMessage":{"content":"do it"}}`,
			`{"ToolCall":{"tool_use_id":"t1","tool_name":"Bash","file_path":null,"input":{"command":"ls"}}}`,
			`{"Hook":{"name":"UserPromptSubmit","output":"Be careful."}}`,
			`{"ToolResult":{"tool_use_id":"t1","tool_name":"Bash","file_path":null,"content":"a\n<system-reminder>\nUserPromptSubmit hook success: Be careful.\n</system-reminder>","is_error":false}}`,
			`{"AssistantText":{"text":"done"}}`,
		},
	},
	{
		name: "reminder hooks in the transcript variant",
		lines: []string{
			`{"type":"user","message":{"content":"<system-reminder>Startup hook success: ...</system-reminder><system-reminder>\\nLint hook success: ok\\n</system-reminder><system-reminder> hook success: unnamed</system-reminder>hi"}}`,
			`{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"<system-reminder>Guard hook failed: no</system-reminder>"}]}}`,
		},
		want: []string{
			`{"Hook":{"name":"Startup","output":"[Startup]"}}`,
			`{"Hook":{"name":"Lint","output":"ok"}}`,
			`{"UserMessage":{"content":"<system-reminder>Startup hook success: ...</system-reminder><system-reminder>\\nLint hook success: ok\\n</system-reminder><system-reminder> hook success: unnamed</system-reminder>hi"}}`,
			`{"Hook":{"name":"Guard","output":"FAILED: no"}}`,
		},
	},
	{
		name: "assistant blocks",
		lines: []string{
			`{"type":"assistant","message":{"content":[{"type":"text","text":"\n\n"},{"type":"text","text":"Let me look."},{"type":"tool_use"}]}}`,
		},
		want: []string{
			`{"AssistantText":{"text":"Let me look."}}`,
			`{"ToolCall":{"tool_use_id":"","tool_name":"","file_path":null,"input":null}}`,
		},
	},
	{
		name: "Task suppresses the sub-agent prompt until its result",
		lines: []string{
			`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"a1","name":"Task","input":{"description":"d"}}]}}`,
			`{"type":"user","message":{"content":"sub prompt"}}`,
			`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"a1","content":[{"type":"text","text":"report"}]}]}}`,
			`{"type":"user","message":{"content":"next"}}`,
		},
		want: []string{
			`{"ToolCall":{"tool_use_id":"a1","tool_name":"Task","file_path":null,"input":{"description":"d"}}}`,
			`{"ToolResult":{"tool_use_id":"a1","tool_name":"Task","file_path":null,"content":"report","is_error":false}}`,
			`{"UserMessage":{"content":"next"}}`,
		},
	},
	{
		name: "API errors",
		lines: []string{
			`{"type":"system","subtype":"api_error","level":"error","error":{"message":"529 {}","status":529,"formatted":"529 Overloaded"},"retryInMs":515,"retryAttempt":1,"maxRetries":10}`,
			`{"type":"system","subtype":"api_error","error":{"status":0,"type":"authentication_error"},"retryAttempt":0,"maxRetries":0}`,
			`{"type":"assistant","message":{"id":"x","model":"<synthetic>","content":[{"type":"text","text":"API Error: Request was aborted."}]},"isApiErrorMessage":true}`,
			`{"type":"assistant","message":{"model":"<synthetic>","content":"No response requested."}}`,
		},
		want: []string{
			`{"Hook":{"name":"API error","output":"529 Overloaded (retry 1 of 10)"}}`,
			`{"Hook":{"name":"API error","output":"authentication_error"}}`,
			`{"AssistantText":{"text":"Error: API Error: Request was aborted."}}`,
		},
	},
	{
		name:  "progress hook",
		lines: []string{`{"type":"progress","data":{"type":"hook_progress","hookEvent":"PostToolUse","hookName":"PostToolUse:Read","command":"callback"}}`},
		want:  []string{`{"Hook":{"name":"PostToolUse:Read","output":"[PostToolUse:Read]"}}`},
	},
	{
		name: "malformed and unknown lines give nothing",
		lines: []string{
			`{"type":"summary","summary":"S","leafUuid":"l"}`,
			`not json`,
			`{"type":"user","message":{"content":"cut`,
			`[1,2]`,
			`null`,
			"{\"type\":\"user\",\"message\":{\"content\":\"bad \xff utf8\"}}",
		},
		want: []string{"{\"UserMessage\":{\"content\":\"bad \uFFFD utf8\"}}"},
	},
}

func TestClaudeTranscriptParser_Lines(t *testing.T) {
	for _, tc := range claudeTranscriptCases {
		t.Run(tc.name, func(t *testing.T) {
			claudeCheckCase(t, NewTranscriptParser(parse.Options{ClaudeHome: t.TempDir()}), tc)
		})
	}
}

// TestClaudeTranscriptParser_HoldsBack checks that events come out of
// Finish, once, since a later line may still replace a prompt.
func TestClaudeTranscriptParser_HoldsBack(t *testing.T) {
	p := NewTranscriptParser(parse.Options{})
	if got := p.Feed([]byte(`{"type":"user","message":{"content":"hi"},"parentUuid":"p"}`)); len(got) != 0 {
		t.Errorf("Feed() = %v, want nothing before Finish", got)
	}
	if got := p.Finish(); len(got) != 1 || got[0].Content != "hi" {
		t.Errorf("Finish() = %v, want the prompt", got)
	}
	if got := p.Finish(); len(got) != 0 {
		t.Errorf("second Finish() = %v, want nothing", got)
	}
	p.Feed([]byte(`{"type":"user","message":{"content":"again"},"parentUuid":"p"}`))
	if got := p.Finish(); len(got) != 1 || got[0].Content != "again" {
		t.Errorf("Finish() after more lines = %v, want the new prompt", got)
	}
	if s := p.Stats(); s.Lines != 2 || s.Malformed != 0 {
		t.Errorf("Stats() = %+v, want 2 lines", s)
	}
}

func TestClaudeTranscriptParser_Plan(t *testing.T) {
	write := `{"type":"assistant","slug":"%s","message":{"content":[{"type":"tool_use","id":"w","name":"Write","input":{"file_path":"/home/u/.claude/plans/%s.md","content":"x"}}]}}`
	result := `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"w","content":"File created"%s}]}}`
	tests := []struct {
		name, slug, file, isError string
		want                      []string
	}{
		{"OK", "zippy-wadler", "# Plan: Fix the parser\r\n\nSteps", "", []string{`{"Plan":{"name":"Fix the parser","content":"# Plan: Fix the parser\r\n\nSteps"}}`}},
		{"TitleOnly", "zippy-wadler", "# Refactor\nmore", "", []string{`{"Plan":{"name":"Refactor","content":"# Refactor\nmore"}}`}},
		{"NoTitle", "zippy-wadler", "steps only", "", []string{`{"Plan":{"name":"zippy-wadler","content":"steps only"}}`}},
		{"MissingFile", "other-slug", "", "", nil},
		{"FailedWrite", "zippy-wadler", "# Plan: P", `,"is_error":true`, nil},
		{"SlugLeavesFolder", "../secret", "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.MkdirAll(filepath.Join(home, "plans"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, "plans", "zippy-wadler.md"), []byte(tt.file), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(home, "secret.md"), []byte("# Plan: secret"), 0o644); err != nil {
				t.Fatal(err)
			}
			p := NewTranscriptParser(parse.Options{ClaudeHome: home})
			p.Feed([]byte(strings.ReplaceAll(write, "%s", tt.slug)))
			p.Feed([]byte(strings.Replace(result, "%s", tt.isError, 1)))
			var plans []codec.Event
			for _, e := range p.Finish() {
				if e.Kind == codec.KindPlan {
					plans = append(plans, e)
				}
			}
			if got := claudeEncodeAll(t, plans); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("plans = %v, want %v", got, tt.want)
			}
		})
	}
}

// claudeTranscriptFixtures lists the format B files: the shared transcripts
// and the real CLI captures' own transcripts (sub-agents included).
func claudeTranscriptFixtures(tb testing.TB) []string {
	dir := claudeFixtureDir(tb)
	files, _ := filepath.Glob(filepath.Join(dir, "transcripts", "B_*"))
	_ = filepath.WalkDir(filepath.Join(dir, "real-cli"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") &&
			strings.Contains(path, "claude-") && strings.Contains(filepath.ToSlash(path), "/transcripts/") {
			files = append(files, path)
		}
		return nil
	})
	return files
}

func TestClaudeTranscriptParser_Fixtures(t *testing.T) {
	files := claudeTranscriptFixtures(t)
	if len(files) < 40 {
		t.Fatalf("found %d B fixtures, want at least 40", len(files))
	}
	for _, path := range files {
		t.Run(claudeFixtureName(path), func(t *testing.T) {
			events, _, stats, err := parseFile(path, parse.FormatClaudeTranscript, parse.Options{ClaudeHome: t.TempDir()})
			if err != nil {
				t.Fatalf("ParseFile: %v", err)
			}
			claudeEncodeAll(t, events)
			if stats.Malformed != 0 {
				t.Errorf("Stats().Malformed = %d, want 0", stats.Malformed)
			}
			// Real transcripts have no result line: no Complete is invented.
			if c := claudeCount(events); c.complete != 0 {
				t.Errorf("%d Complete events, want 0", c.complete)
			}
		})
	}
}

func TestClaudeTranscriptParser_FixtureCounts(t *testing.T) {
	tests := []struct {
		file string
		want claudeCounts
	}{
		{"transcripts/B_sniffly_fed8ce56-bc79-401f-a83e-af084253362f.jsonl", claudeCounts{user: 3, text: 3, calls: 7, results: 6}},
		{"transcripts/B_agentcmd_full-session-four.jsonl", claudeCounts{user: 3, text: 22, calls: 27, results: 27, commands: 1}},
		// Six "\n\n" text blocks dropped (AZUREAL: 14 AssistantText); one
		// prompt replaced by its edited version.
		{"transcripts/B_claude-code-log_03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl", claudeCounts{user: 6, text: 8, calls: 2, results: 2, hooks: 11, commands: 1}},
		// Array-form prompts: AZUREAL keeps none of them.
		{"transcripts/B_claude-code-log_9e953218-585f-4692-89df-9e0747a31c68.jsonl", claudeCounts{user: 11, text: 53, calls: 92, results: 88}},
		{"transcripts/B_claude-code-log_cb2e607c-c758-415a-8b45-c49e4631906a.jsonl", claudeCounts{user: 6, text: 44, calls: 76, results: 76}},
		{"transcripts/B_claude-code-log_4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl", claudeCounts{}},
		{"real-cli/claude-d-api-error-retry/transcripts/claude/projects/-tmp-fakemodel-scratch-claude-d-api-error-retry-work/6e74c1c8-d119-4230-a5ca-4258bd035f4b.jsonl", claudeCounts{user: 1, text: 1, hooks: 1}},
		{"real-cli/claude-a-multitool/transcripts/claude/projects/-tmp-fakemodel-scratch-claude-a-multitool-work/3a6df021-2019-4f79-b489-8f3bc53670e8.jsonl", claudeCounts{user: 1, text: 3, calls: 7, results: 7}},
	}
	dir := claudeFixtureDir(t)
	for _, tt := range tests {
		t.Run(claudeFixtureName(tt.file), func(t *testing.T) {
			events, _, _, err := parseFile(filepath.Join(dir, tt.file), parse.FormatClaudeTranscript, parse.Options{ClaudeHome: t.TempDir()})
			if err != nil {
				t.Fatalf("ParseFile: %v", err)
			}
			if got := claudeCount(events); got != tt.want {
				t.Errorf("counts = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestClaudeTranscriptParser_ArrayPrompts checks that prompts AZUREAL lost
// (array content, with and without images) are kept, in order.
func TestClaudeTranscriptParser_ArrayPrompts(t *testing.T) {
	dir := claudeFixtureDir(t)
	const name = "B_claude-code-log_9e953218-585f-4692-89df-9e0747a31c68"
	ref := claudeReference(t, name)
	if c := claudeCount(ref); c.user != 0 {
		t.Fatalf("reference has %d UserMessages, want AZUREAL's 0", c.user)
	}
	events, _, _, err := parseFile(filepath.Join(dir, "transcripts", name+".jsonl"), parse.FormatClaudeTranscript, parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var prompts []string
	for _, e := range events {
		if e.Kind == codec.KindUserMessage {
			prompts = append(prompts, e.Content)
		}
	}
	if len(prompts) != 11 {
		t.Fatalf("%d prompts, want 11", len(prompts))
	}
	if !strings.HasPrefix(prompts[2], "OK, I created a repo and cloned it to /Users/dain/workspace/") {
		t.Errorf("prompt 3 = %.60q", prompts[2])
	}
	if last := prompts[10]; !strings.HasPrefix(last, "[image]\nDo you think we could set up rewrites") {
		t.Errorf("image prompt = %.60q, want [image] then its text", last)
	}
}

func FuzzClaudeTranscriptParser(f *testing.F) {
	claudeSeedFuzz(f, claudeTranscriptCases, claudeTranscriptFixtures)
	home := f.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "plans"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "plans", "a.md"), []byte("# Plan: A\nsteps"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"type":"assistant","slug":"a","message":{"content":[{"type":"tool_use","id":"w","name":"Write","input":{"file_path":"/h/.claude/plans/a.md"}}]}}` + "\n" +
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"w","content":"ok"}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		claudeFuzzParser(t, NewTranscriptParser(parse.Options{ClaudeHome: home}), data)
	})
}

func BenchmarkClaudeTranscriptParser(b *testing.B) {
	path := filepath.Join(claudeFixtureDir(b), "transcripts", "B_claude-code-log_37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl")
	claudeBenchParser(b, path, func() parse.Parser { return NewTranscriptParser(parse.Options{}) })
}

// TestClaudeTranscriptUsageOncePerMessage: Claude writes one transcript
// line per content block of a message, each carrying the message's usage
// so far; the message counts once, with the usage of its last line. Lines
// without a message id count each.
func TestClaudeTranscriptUsageOncePerMessage(t *testing.T) {
	p := NewTranscriptParser(parse.Options{ClaudeHome: t.TempDir()})
	for _, line := range []string{
		`{"type":"user","message":{"content":"go"}}`,
		`{"type":"assistant","message":{"id":"m1","model":"opus","content":[{"type":"thinking","thinking":"hmm"}],"usage":{"input_tokens":10,"output_tokens":1,"cache_read_input_tokens":100}}}`,
		`{"type":"assistant","message":{"id":"m1","model":"opus","content":[{"type":"text","text":"Reading."}],"usage":{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100}}}`,
		`{"type":"assistant","message":{"id":"m1","model":"opus","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a.go"}}],"usage":{"input_tokens":10,"output_tokens":20,"cache_read_input_tokens":100}}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"package a"}]}}`,
		`{"type":"assistant","message":{"id":"m2","model":"opus","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":3,"output_tokens":4}}}`,
		`{"type":"assistant","message":{"model":"opus","content":[{"type":"text","text":"no id"}],"usage":{"input_tokens":1,"output_tokens":1}}}`,
		`{"type":"assistant","message":{"model":"opus","content":[{"type":"text","text":"no id again"}],"usage":{"input_tokens":1,"output_tokens":1}}}`,
	} {
		p.Feed([]byte(line))
	}
	p.Finish()
	type row struct {
		id            string
		in, out, read int64
	}
	var got []row
	for _, r := range p.Usage() {
		u := r.Usage()
		got = append(got, row{u.MessageID, u.Input, u.Output, u.CacheRead})
	}
	want := []row{{"m1", 10, 20, 100}, {"m2", 3, 4, 0}, {"", 1, 1, 0}, {"", 1, 1, 0}}
	if !slices.Equal(got, want) {
		t.Errorf("Usage() = %+v, want %+v", got, want)
	}
}

// TestIsPlanPath: a plan file is recognised by the path a transcript from
// any system gives it, Windows' backslashes included.
func TestIsPlanPath(t *testing.T) {
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"/home/u/.claude/plans/zippy-wadler.md", true},
		{`C:\Users\u\.claude\plans\zippy-wadler.md`, true},
		{`C:\Users\u\.claude\plans\notes.txt`, false},
		{"/home/u/project/plans/x.md", false},
	} {
		if got := isPlanPath(tt.path); got != tt.want {
			t.Errorf("isPlanPath(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
