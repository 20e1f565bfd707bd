package codex

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// codexRolloutCases is the line table of the rollout parser; its lines also
// seed FuzzCodexRolloutParser.
var codexRolloutCases = []struct {
	name  string
	lines []string
	want  string
}{{
	name: "Init takes the turn_context model that follows the first items",
	lines: []string{
		`{"timestamp":"t","type":"session_meta","payload":{"id":"s1","cwd":"/p"}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/p</cwd>\n</environment_context>"}]}}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}`,
		`{"timestamp":"t","type":"turn_context","payload":{"cwd":"/p","model":"gpt-5-codex"}}`,
		`{"timestamp":"t","type":"turn_context","payload":{"cwd":"/p","model":"gpt-5"}}`,
	},
	want: `{"Init":{"cwd":"/p","model":"gpt-5-codex"}}
{"UserMessage":{"content":"hi"}}`,
}, {
	name:  "without turn_context the model is codex",
	lines: []string{`{"type":"session_meta","payload":{"id":"s1","cwd":"/p"}}`, `{"type":"event_msg","payload":{"type":"user_message","message":"hi"}}`},
	want: `{"Init":{"cwd":"/p","model":"codex"}}
{"UserMessage":{"content":"hi"}}`,
}, {
	name: "one Init per distinct session",
	lines: []string{
		`{"type":"session_meta","payload":{"id":"a","cwd":"/a"}}`,
		`{"type":"turn_context","payload":{"model":"m1"}}`,
		`{"type":"session_meta","payload":{"id":"a","cwd":"/a"}}`,
		`{"type":"session_meta","payload":{"id":"b","cwd":"/b"}}`,
		`{"type":"turn_context","payload":{"model":"m2"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"x"}}`,
	},
	want: `{"Init":{"cwd":"/a","model":"m1"}}
{"Init":{"cwd":"/b","model":"m2"}}
{"UserMessage":{"content":"x"}}`,
}, {
	name: "reasoning written twice is shown once",
	lines: []string{
		`{"type":"event_msg","payload":{"type":"agent_reasoning","text":"**A**"}}`,
		`{"type":"event_msg","payload":{"type":"token_count","info":null}}`,
		`{"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**A**"}],"encrypted_content":"x"}}`,
		`{"type":"event_msg","payload":{"type":"agent_reasoning","text":"**B**"}}`,
		`{"type":"event_msg","payload":{"type":"agent_reasoning","text":"**C**"}}`,
		`{"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**B**"},{"type":"summary_text","text":"**C**"},{"type":"summary_text","text":"**D**"}]}}`,
	},
	want: `{"AssistantText":{"text":"**A**"}}
{"AssistantText":{"text":"**B**"}}
{"AssistantText":{"text":"**C**"}}
{"AssistantText":{"text":"**D**"}}`,
}, {
	name: "raw reasoning content is thinking, its summary stays assistant text",
	lines: []string{
		`{"type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"**Plan**"}],"content":[{"type":"reasoning_text","text":"look at main.go first"},{"type":"reasoning_text","text":" "}]}}`,
		`{"type":"response_item","payload":{"type":"reasoning","summary":[],"content":null,"encrypted_content":"x"}}`,
	},
	want: `{"AssistantText":{"text":"**Plan**"}}
{"Thinking":{"text":"look at main.go first"}}`,
}, {
	name: "user and assistant messages written twice are shown once",
	lines: []string{
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"List the files\n"},{"type":"input_image","image_url":"data:"}]}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"List the files","images":["data:"]}}`,
		`{"type":"event_msg","payload":{"type":"agent_message","message":"Done."}}`,
		`{"type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}]}}`,
	},
	want: `{"UserMessage":{"content":"List the files\n"}}
{"AssistantText":{"text":"Done."}}`,
}, {
	name: "a prompt sent again before any reply is kept",
	lines: []string{
		`{"type":"event_msg","payload":{"type":"user_message","message":"continue"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"update_plan","arguments":"{}","call_id":"p"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"p","output":"Plan updated"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"continue"}}`,
	},
	want: `{"UserMessage":{"content":"continue"}}
{"ToolCall":{"tool_use_id":"p","tool_name":"update_plan","file_path":null,"input":{}}}
{"ToolResult":{"tool_use_id":"p","tool_name":"update_plan","file_path":null,"content":"Plan updated","is_error":false}}
{"UserMessage":{"content":"continue"}}`,
}, {
	name: "context is not a prompt; the IDE context is reduced to the request",
	lines: []string{
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /p\n\n<INSTRUCTIONS>be nice</INSTRUCTIONS>"}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":"<user_instructions>be nice</user_instructions>"}}`,
		`{"type":"response_item","payload":{"type":"message","role":"developer","content":[{"type":"input_text","text":"<permissions instructions>"}]}}`,
		`{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# Context from my IDE setup:\n\n## Open tabs:\n- a.go: a.go\n\n## My request for Codex:\nfix the bug\n"}]}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"# Context from my IDE setup:\n\n## Open tabs:\n- a.go: a.go\n\n## My request for Codex:\nfix the bug\n","kind":"plain"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"# Context from my IDE setup:\n\n## Open tabs:\n- a.go: a.go\n"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"<azureal-session-context>\n## User\nold\n</azureal-session-context>\n\nnew prompt"}}`,
	},
	want: `{"UserMessage":{"content":"fix the bug"}}
{"UserMessage":{"content":"new prompt"}}`,
}, {
	name: "fatal error: text once, failure with duration",
	lines: []string{
		`{"type":"event_msg","payload":{"type":"task_started","turn_id":"t"}}`,
		`{"type":"event_msg","payload":{"type":"user_message","message":"Say hello."}}`,
		`{"type":"event_msg","payload":{"type":"error","message":"busy"}}`,
		`{"type":"event_msg","payload":{"type":"task_complete","last_agent_message":null,"error":{"message":"busy","codex_error_info":"internal_server_error"},"duration_ms":2573}}`,
	},
	want: `{"UserMessage":{"content":"Say hello."}}
{"AssistantText":{"text":"Error: busy"}}
{"Complete":{"success":false,"duration_ms":2573,"cost_usd":0.0}}`,
}, {
	name:  "interrupted turn is not a success",
	lines: []string{`{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted","duration_ms":10}}`},
	want: `{"AssistantText":{"text":"Turn interrupted"}}
{"Complete":{"success":false,"duration_ms":10,"cost_usd":0.0}}`,
}, {
	name: "interrupted turn without duration_ms: timed from the rollout's timestamps",
	lines: []string{
		`{"timestamp":"2025-09-25T01:25:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"Fix it."}}`,
		`{"timestamp":"2025-09-25T01:26:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"And test it."}}`,
		`{"timestamp":"2025-09-25T01:28:35.001Z","type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted"}}`,
		`{"timestamp":"2025-09-25T01:30:00.000Z","type":"event_msg","payload":{"type":"task_started","turn_id":"t"}}`,
		`{"timestamp":"2025-09-25T01:30:02.500Z","type":"event_msg","payload":{"type":"task_complete","last_agent_message":null}}`,
	},
	want: `{"UserMessage":{"content":"Fix it."}}
{"UserMessage":{"content":"And test it."}}
{"AssistantText":{"text":"Turn interrupted"}}
{"Complete":{"success":false,"duration_ms":215001,"cost_usd":0.0}}
{"Complete":{"success":true,"duration_ms":2500,"cost_usd":0.0}}`,
}, {
	name: "cost from the tokens used since the last Complete",
	lines: []string{
		`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":700,"output_tokens":140},"last_token_usage":{"input_tokens":100,"output_tokens":20}}}}`,
		`{"type":"event_msg","payload":{"type":"task_complete","last_agent_message":"x","duration_ms":401}}`,
		`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":800,"output_tokens":150}}}}`,
		`{"type":"event_msg","payload":{"type":"task_complete"}}`,
	},
	want: `{"Complete":{"success":true,"duration_ms":401,"cost_usd":0.0112}}
{"Complete":{"success":true,"duration_ms":0,"cost_usd":0.0013}}`,
}, {
	name: "arguments with a number out of an f64's range are not JSON to serde_json: {}, as in AZUREAL",
	lines: []string{
		`{"type":"response_item","payload":{"type":"function_call","name":"lookup","arguments":"{\"q\": \"x\", \"n\": 1e400}","call_id":"c5"}}`,
		`{"type":"response_item","payload":{"type":"function_call","name":"lookup","arguments":"{\"q\": \"x\", \"n\": 1e300}","call_id":"c6"}}`,
	},
	want: `{"ToolCall":{"tool_use_id":"c5","tool_name":"lookup","file_path":null,"input":{}}}
{"ToolCall":{"tool_use_id":"c6","tool_name":"lookup","file_path":null,"input":{"q":"x","n":1e300}}}`,
}, {
	name: "exec_command failure keeps its exit code",
	lines: []string{
		`{"type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\": \"exit 1\"}","call_id":"c4"}}`,
		`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c4","output":"Chunk ID: 4c1a97\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 4\nOutput:\ncheck failed\n"}}`,
	},
	want: `{"ToolCall":{"tool_use_id":"c4","tool_name":"Bash","file_path":null,"input":{"cmd":"exit 1","command":"exit 1"}}}
{"ToolResult":{"tool_use_id":"c4","tool_name":"Bash","file_path":null,"content":"check failed\nExit code: 1","is_error":true}}`,
}, {
	name: "apply_patch output is unwrapped",
	lines: []string{
		`{"type":"response_item","payload":{"type":"custom_tool_call","status":"completed","call_id":"c0","name":"apply_patch","input":"*** Begin Patch\n*** Add File: greet.py\n+x\n*** End Patch\n"}}`,
		`{"type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c0","output":"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA greet.py\n"}}`,
	},
	want: `{"ToolCall":{"tool_use_id":"c0","tool_name":"Edit","file_path":"greet.py","input":{"patch":"*** Begin Patch\n*** Add File: greet.py\n+x\n*** End Patch\n"}}}
{"ToolResult":{"tool_use_id":"c0","tool_name":"Edit","file_path":"greet.py","content":"Success. Updated the following files:\nA greet.py","is_error":false}}`,
}, {
	name: "exec items are accepted too; unknown lines give nothing",
	lines: []string{
		`{"type":"world_state","payload":{}}`, `{"type":"compacted","payload":{"message":""}}`, `{"record_type":"state"}`, `nope`,
		`{"type":"item.completed","item":{"id":"i","type":"command_execution","command":"ls","aggregated_output":"a\n","exit_code":0}}`,
	},
	want: `{"ToolCall":{"tool_use_id":"i","tool_name":"Bash","file_path":null,"input":{"command":"ls"}}}
{"ToolResult":{"tool_use_id":"i","tool_name":"Bash","file_path":null,"content":"a\n","is_error":false}}`,
}}

func TestCodexRolloutParser(t *testing.T) {
	for _, tc := range codexRolloutCases {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.TrimSpace(cxJSON(t, cxFeed(NewRolloutParser(parse.Options{}), tc.lines...)))
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestCodexRolloutHoldsUntilModel(t *testing.T) {
	p := NewRolloutParser(parse.Options{})
	if evs := p.Feed([]byte(`{"type":"session_meta","payload":{"id":"s","cwd":"/p"}}`)); len(evs) != 0 {
		t.Fatalf("session_meta gave %v, want nothing yet", evs)
	}
	if evs := p.Feed([]byte(`{"type":"event_msg","payload":{"type":"user_message","message":"hi"}}`)); len(evs) != 0 {
		t.Fatalf("user_message gave %v before the model is known", evs)
	}
	evs := p.Feed([]byte(`{"type":"turn_context","payload":{"model":"gpt-5.5"}}`))
	if len(evs) != 2 || evs[0].Model != "gpt-5.5" || evs[1].Content != "hi" {
		t.Fatalf("turn_context gave %+v, want Init gpt-5.5 then the prompt", evs)
	}
	if evs := p.Feed([]byte(`{"type":"event_msg","payload":{"type":"agent_message","message":"yo"}}`)); len(evs) != 1 {
		t.Fatalf("after the Init events flow: got %v", evs)
	}
	if evs := p.Finish(); len(evs) != 0 {
		t.Fatalf("Finish() = %v, want nothing", evs)
	}
}

func TestCodexRolloutHoldIsBounded(t *testing.T) {
	p := NewRolloutParser(parse.Options{})
	p.Feed([]byte(`{"type":"session_meta","payload":{"id":"s","cwd":"/p"}}`))
	var evs []codec.Event
	for i := range codexMaxHeld + 1 {
		evs = append(evs, p.Feed(fmt.Appendf(nil, `{"type":"event_msg","payload":{"type":"agent_message","message":"m%d"}}`, i))...)
	}
	if len(evs) != codexMaxHeld+2 || evs[0].Kind != codec.KindInit || evs[0].Model != "codex" {
		t.Errorf("got %d events starting %+v, want %d starting with Init codex", len(evs), evs[0], codexMaxHeld+2)
	}
}

func TestCodexRolloutStats(t *testing.T) {
	p := NewRolloutParser(parse.Options{})
	cxFeed(p, `{"type":"session_meta","payload":{"id":"s"}}`, `{"type":"event_msg","payload":{"type":"agent_mess`,
		`{"type":"world_state","payload":{}}`, `{"type":"event_msg","payload":{"type":"exec_command_end"}}`,
		`{"type":"response_item","payload":{"type":"ghost_snapshot"}}`, "\t")
	p.SkipLine()
	got := p.Stats()
	if got.Lines != 7 || got.Malformed != 2 || got.Ignored != 3 || fmt.Sprint(got.BadLines) != "[2 7]" {
		t.Errorf("Stats() = %+v, want 7 lines, malformed [2 7], 3 ignored", got)
	}
}

// codexRolloutFixtures are every format D file: transcripts/D_* and the
// real CLI rollouts.
func codexRolloutFixtures(t *testing.T) []string {
	files := append(fixtures.Glob(t, "transcripts/D_*.jsonl"), fixtures.Glob(t, "real-cli/codex-*/transcripts/codex/sessions/*/*/*/*.jsonl")...)
	if len(files) == 0 {
		fixtures.Missing(t, errors.New("no format D files (transcripts/D_*.jsonl, real-cli/codex-*)"))
	}
	return files
}

func TestCodexRolloutFixtures(t *testing.T) {
	for _, path := range codexRolloutFixtures(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			evs, st := cxParseFixture(t, path, parse.FormatCodexRollout)
			if st.Malformed != 0 {
				t.Errorf("Stats() = %+v, want no malformed lines", st)
			}
			if n := cxAdjacentDuplicates(evs); n != 0 {
				t.Errorf("%d adjacent duplicate AssistantText pairs, want 0", n)
			}
			for _, e := range evs {
				if e.Kind == codec.KindUserMessage && (strings.HasPrefix(e.Content, "<environment_context>") || strings.Contains(e.Content, codexIDEContext)) {
					t.Errorf("context shown as a prompt: %.60q", e.Content)
				}
				if e.Kind == codec.KindInit && strings.HasPrefix(name, "D_agentcmd") && e.Model != "gpt-5-codex" {
					t.Errorf("Init model %q, want gpt-5-codex from turn_context", e.Model)
				}
			}
			cxCheckKeepsReference(t, name, evs)
			cxCheckKeepsPrompts(t, name, evs)
		})
	}
}

// cxCheckKeepsPrompts checks that every prompt AZUREAL stored is kept:
// as it is, or, for one Codex wrapped in the IDE's context, as the request
// after the context's last "## My request for Codex:" heading; a prompt
// that is only context (<environment_context>, <user_instructions>) is
// dropped. The expected prompts come from the reference dump and the
// literals here, not from the parser's own UserText, and their number
// from cxReferencePrompts.
func cxCheckKeepsPrompts(t *testing.T, name string, evs []codec.Event) {
	t.Helper()
	prompts := map[string]bool{}
	for _, e := range evs {
		if e.Kind == codec.KindUserMessage {
			prompts[e.Content] = true
		}
	}
	const ideContext, ideRequest = "# Context from my IDE setup:", "## My request for Codex:"
	n := 0
	for _, e := range cxReference(t, name) {
		if e.Kind != codec.KindUserMessage {
			continue
		}
		want := e.Content
		switch trimmed := strings.TrimSpace(want); {
		case strings.HasPrefix(trimmed, "<environment_context>"), strings.HasPrefix(trimmed, "<user_instructions>"):
			continue
		case strings.HasPrefix(trimmed, ideContext):
			i := strings.LastIndex(trimmed, ideRequest)
			if i < 0 {
				t.Errorf("reference prompt %.80q: IDE context without a request", trimmed)
				continue
			}
			want = strings.TrimSpace(trimmed[i+len(ideRequest):])
		}
		n++
		if !prompts[want] {
			t.Errorf("lost prompt %.80q", want)
		}
	}
	if w, ok := cxReferencePrompts[name]; ok && n != w {
		t.Errorf("%s: the reference has %d prompts the user wrote, want %d", name, n, w)
	}
}

// cxReferencePrompts is the number of prompts the user wrote in each
// reference dump with any (context-only prompts left out).
var cxReferencePrompts = map[string]int{
	"D_agent-sessions_codex-small.jsonl":                                                2,
	"D_agentcmd_rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl": 13,
	"D_agentcmd_rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl": 2,
	"D_agentcmd_rollout-2025-09-25T08-02-05-0199812e-64f0-7f73-91fc-095dda01c36e.jsonl": 2,
	"D_agentcmd_rollout-2025-09-25T09-49-46-01998190-fba6-7f40-9309-dc4e48c5844a.jsonl": 1,
	"D_agentcmd_rollout-2025-09-25T15-12-14-019982b8-3422-79e0-8b3b-05abaf4f3c3e.jsonl": 1,
}

func TestCodexRolloutCounts(t *testing.T) {
	tests := []struct {
		file                                               string
		inits, users, assistant, calls, results, completes int
		errors                                             int
	}{
		{"transcripts/D_agentcmd_rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl", 1, 13, 148, 123, 123, 4, 12},
		{"transcripts/D_agentcmd_rollout-2025-09-24T20-12-23-01997ea4-a70d-7da3-8c20-c736db82a7c5.jsonl", 1, 2, 19, 16, 16, 0, 3},
		{"transcripts/D_agent-sessions_codex-small.jsonl", 2, 3, 5, 4, 5, 3, 0},
		{"transcripts/D_CodexBar_live-fork-parent.jsonl", 1, 0, 0, 0, 0, 0, 0},
		{"real-cli/codex-a-multitool/transcripts/codex/sessions/2026/11/22/rollout-2026-11-22T01-59-28-01a200fa-d7c5-78b2-ab79-8396c22b575d.jsonl", 1, 1, 3, 7, 7, 1, 1},
		{"real-cli/codex-d2-api-error-fatal/transcripts/codex/sessions/2026/11/22/rollout-2026-11-22T01-59-38-01a200fa-fde5-7930-bcc0-d4cfc04e5637.jsonl", 1, 1, 1, 0, 0, 1, 0},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			evs, _ := cxParseFixture(t, filepath.Join(cxFixtures(t), tc.file), parse.FormatCodexRollout)
			c := cxCounts(evs)
			errs := 0
			for _, e := range evs {
				if e.Kind == codec.KindToolResult && e.IsError {
					errs++
				}
			}
			got := []int{c[codec.KindInit], c[codec.KindUserMessage], c[codec.KindAssistantText], c[codec.KindToolCall], c[codec.KindToolResult], c[codec.KindComplete], errs}
			want := []int{tc.inits, tc.users, tc.assistant, tc.calls, tc.results, tc.completes, tc.errors}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("Init/User/Assistant/Call/Result/Complete/errors = %v, want %v", got, want)
			}
		})
	}
}

func TestCodexRolloutNoDoubledReasoning(t *testing.T) {
	name := "D_agentcmd_rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl"
	ref := cxReference(t, name)
	if n := cxAdjacentDuplicates(ref); n != 112 {
		t.Errorf("AZUREAL stored %d adjacent duplicate AssistantText pairs, expected 112", n)
	}
	evs, _ := cxParseFixture(t, filepath.Join(cxFixtures(t), "transcripts", name), parse.FormatCodexRollout)
	if n := cxAdjacentDuplicates(evs); n != 0 {
		t.Errorf("%d adjacent duplicate AssistantText pairs, want 0", n)
	}
}

func TestCodexRolloutIDERequests(t *testing.T) {
	path := filepath.Join(cxFixtures(t), "transcripts", "D_agentcmd_rollout-2025-09-24T19-22-20-01997e76-d124-7592-9cac-2ec05abbca08.jsonl")
	evs, _ := cxParseFixture(t, path, parse.FormatCodexRollout)
	var prompts []string
	for _, e := range evs {
		if e.Kind == codec.KindUserMessage {
			prompts = append(prompts, e.Content)
		}
	}
	want := []string{"Why do we need stats for the team?", "Is this done?", "continue", "ok continue"}
	for _, w := range want {
		found := false
		for _, p := range prompts {
			found = found || p == w
		}
		if !found {
			t.Errorf("prompt %q missing from %q", w, prompts)
		}
	}
}

func TestCodexRolloutMatchesLive(t *testing.T) {
	dir := filepath.Join(cxFixtures(t), "real-cli", "codex-a-multitool")
	live, _ := cxParseFixture(t, filepath.Join(dir, "stdout.jsonl"), parse.FormatCodexExec)
	files, _ := filepath.Glob(filepath.Join(dir, "transcripts", "codex", "sessions", "*", "*", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("found rollouts %v, want one", files)
	}
	disk, _ := cxParseFixture(t, files[0], parse.FormatCodexRollout)
	results := func(evs []codec.Event) (errs []bool, last codec.Event) {
		for _, e := range evs {
			if e.Kind == codec.KindToolResult && e.ToolName == "Bash" {
				errs = append(errs, e.IsError)
			}
		}
		return errs, evs[len(evs)-1]
	}
	liveErrs, liveDone := results(live)
	diskErrs, diskDone := results(disk)
	if fmt.Sprint(liveErrs) != fmt.Sprint(diskErrs) {
		t.Errorf("Bash is_error live %v, rollout %v; want the same", liveErrs, diskErrs)
	}
	if liveDone.CostUSD != diskDone.CostUSD || !diskDone.Success || diskDone.DurationMS == 0 {
		t.Errorf("Complete live %+v, rollout %+v; want equal cost and a rollout duration", liveDone, diskDone)
	}
}

func FuzzCodexRolloutParser(f *testing.F) {
	for _, tc := range codexRolloutCases {
		f.Add([]byte(strings.Join(tc.lines, "\n")))
	}
	fixtures.Seed(f, "transcripts/D_agent-sessions_codex-small.jsonl", "real-cli/codex-*/transcripts/codex/sessions/*/*/*/*.jsonl")
	f.Fuzz(func(t *testing.T, data []byte) {
		cxFuzzParser(t, NewRolloutParser(parse.Options{}), data)
	})
}
