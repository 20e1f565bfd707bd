package e2e

// The agents beyond claude and codex (issue 32): Gemini CLI and Qwen Code
// run by `lazuli run --backend gemini|qwen` against the scripted model,
// each with its own settings in the test's HOME.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fm "github.com/lazuli-app/lazuli/internal/fakemodel"
)

// newAgentHarness is newHarness with the HOME and environment that point
// agent's CLI at the scripted model, or skips (fails under
// LAZULI_E2E_REQUIRED=1) when the CLI is missing.
func newAgentHarness(t *testing.T, agent string, script fm.Script, routes ...fm.Route) (*harness, backend) {
	t.Helper()
	p := fm.NeedCLI(t, agent)
	h := newHarness(t, script, routes...)
	var env []string
	var err error
	switch agent {
	case "gemini":
		env, err = fm.GeminiEnv(h.srv, h.home)
	case "qwen":
		env, err = fm.QwenEnv(h.srv, h.home)
	}
	if err != nil {
		t.Fatal(err)
	}
	h.setEnv(env...)
	h.setEnv("LAZULI_" + strings.ToUpper(agent) + "=" + p)
	return h, backend{agent, p}
}

// agentTools are each new agent's tool names for the multi-tool turn.
var agentTools = map[string]struct{ write, read, edit, shell string }{
	"gemini": {"write_file", "read_file", "replace", "run_shell_command"},
	"qwen":   {"write_file", "read_file", "edit", "run_shell_command"},
}

// agentScript is the multi-tool turn in agent's tools: write, read, edit,
// a shell command that works and one that fails.
func agentScript(agent string) fm.Script {
	tl := agentTools[agent]
	edit := map[string]any{"file_path": "{{CWD}}/notes.txt", "old_string": "beta", "new_string": "gamma"}
	if agent == "gemini" {
		edit["instruction"] = "Change beta to gamma."
	}
	return fm.Script{
		fm.Tools("Creating notes.txt.", fm.Call(tl.write, map[string]any{"file_path": "{{CWD}}/notes.txt", "content": "alpha\nbeta\n"})),
		fm.Tools("", fm.Call(tl.read, map[string]any{"file_path": "{{CWD}}/notes.txt"})),
		fm.Tools("", fm.Call(tl.edit, edit)),
		fm.Tools("", fm.Call(tl.shell, map[string]any{"command": "cat notes.txt"}), fm.Call(tl.shell, map[string]any{"command": "cat missing.txt"})),
		fm.Text("Done: notes.txt now says alpha and gamma."),
	}
}

func forEachAgent(t *testing.T, f func(t *testing.T, agent string)) {
	for _, agent := range []string{"gemini", "qwen"} {
		t.Run(agent, func(t *testing.T) { f(t, agent) })
	}
}

func TestAgentMultiTool(t *testing.T) {
	forEachAgent(t, func(t *testing.T, agent string) {
		h, b := newAgentHarness(t, agent, agentScript(agent))
		const prompt = "Create notes.txt, read it, change beta to gamma and print it."
		rr, r := h.run(b, prompt)
		if r.code != 0 || rr.Completed == nil || !*rr.Completed || rr.Backend != agent {
			t.Fatalf("want a completed run:\n%s", r)
		}
		if got, err := os.ReadFile(filepath.Join(h.work, "notes.txt")); err != nil || string(got) != "alpha\ngamma\n" {
			t.Errorf("notes.txt = %q, %v (the agent must work in the worktree)", got, err)
		}
		evs := h.show(1)
		if users := kinds(evs, "UserMessage"); len(users) != 1 || users[0].field("content") != prompt {
			t.Errorf("UserMessages = %v\n%s", users, dumpEvents(evs))
		}
		var calls []string
		for _, e := range kinds(evs, "ToolCall") {
			calls = append(calls, e.field("tool_name"))
		}
		if got := strings.Join(calls, ","); got != "Write,Read,Edit,Bash,Bash" {
			t.Errorf("tool calls %s\n%s", got, dumpEvents(evs))
		}
		if res := kinds(evs, "ToolResult"); len(res) != 5 {
			t.Errorf("%d tool results\n%s", len(res), dumpEvents(evs))
		}
		if c := kinds(evs, "Complete"); len(c) != 1 || c[0].field("success") != "true" || evs[len(evs)-1].Kind != "Complete" {
			t.Errorf("want one successful Complete at the end\n%s", dumpEvents(evs))
		}
		if rr.EventsSaved != len(evs) {
			t.Errorf("events_saved = %d, the session has %d", rr.EventsSaved, len(evs))
		}
		h.check()
		if hosts := h.srv.Connects(); len(hosts) > 0 {
			t.Errorf("outside hosts tried: %v", hosts)
		}
	})
}

func TestAgentSecondPromptGetsTheContext(t *testing.T) {
	forEachAgent(t, func(t *testing.T, agent string) {
		h, b := newAgentHarness(t, agent, fm.Script{fm.Text("First answer: ALPHA-7.")},
			fm.Route{Contains: "SECOND", Script: fm.Script{fm.Text("Second answer.")}})
		const first, second = "First question: name a code.", "SECOND question: repeat it."
		if rr, r := h.run(b, first); r.code != 0 || rr.Session != 1 {
			t.Fatalf("first run:\n%s", r)
		}
		want := h.contextPrompt(1, second)
		rr, r := h.run(b, "--session", "1", second)
		if r.code != 0 || rr.Completed == nil || !*rr.Completed {
			t.Fatalf("second run:\n%s", r)
		}
		h.checkContextSent(want, "the second run's request was not routed on its prompt")
		users := kinds(h.show(1), "UserMessage")
		if len(users) != 2 || users[1].field("content") != second {
			t.Errorf("UserMessages = %v, want the two clean prompts", users)
		}
		h.check()
	})
}

func TestAgentAPIError(t *testing.T) {
	forEachAgent(t, func(t *testing.T, agent string) {
		// Qwen retries an HTTP 500 for about two minutes (28 requests, its
		// capture shows); a 400 ends its run at once.
		status := 500
		if agent == "qwen" {
			status = 400
		}
		h, b := newAgentHarness(t, agent, fm.Script{fm.Fail(status, 0)})
		rr, r := h.run(b, "Say hello.")
		if r.code != 1 || rr.Completed == nil || *rr.Completed || rr.Error == "" {
			t.Fatalf("want exit 1 with completed=false and an error:\n%s", r)
		}
		evs := h.show(1)
		if users := kinds(evs, "UserMessage"); len(users) != 1 {
			t.Errorf("the prompt was not kept\n%s", dumpEvents(evs))
		}
		if c := kinds(evs, "Complete"); len(c) != 1 || c[0].field("success") != "false" {
			t.Errorf("want one failed Complete\n%s", dumpEvents(evs))
		}
		h.check()
	})
}

// TestAgentChain runs one session on Claude, then Gemini, then OpenCode, then
// Codex, then Qwen: each agent gets the earlier turns, whoever answered them, in
// <azureal-session-context>.
func TestAgentChain(t *testing.T) {
	// The order (Claude, then Gemini, then OpenCode, then Codex), and Qwen after.
	chain := []string{"claude", "gemini", "opencode", "codex", "qwen"}
	var routes []fm.Route
	for i := len(chain); i >= 2; i-- { // the latest prompt first: a context holds the earlier ones
		routes = append(routes, fm.Route{Contains: fmt.Sprintf("CHAIN-%d", i), Script: fm.Script{fm.Text(fmt.Sprintf("Code %d is HUE-%d.", i, i))}})
	}
	h := newHarness(t, fm.Script{fm.Text("Code 1 is HUE-1.")}, routes...)
	for _, agent := range chain {
		p := fm.NeedCLI(t, agent)
		h.setEnv("LAZULI_" + strings.ToUpper(agent) + "=" + p)
	}
	for _, f := range []func(*fm.Server, string) ([]string, error){fm.GeminiEnv, fm.QwenEnv, (*fm.Server).AgentsHome} {
		env, err := f(h.srv, h.home)
		if err != nil {
			t.Fatal(err)
		}
		h.setEnv(env...)
	}
	for i, agent := range chain {
		args := []string{fmt.Sprintf("CHAIN-%d: name code %d.", i+1, i+1)}
		if i > 0 {
			args = append([]string{"--session", "1"}, args...)
		}
		rr, r := h.run(backend{name: agent}, args...)
		if r.code != 0 || rr.Session != 1 || rr.Backend != agent {
			t.Fatalf("turn %d on %s:\n%s", i+1, agent, r)
		}
		reqs := h.srv.Model()
		sent := fm.UserText(reqs[len(reqs)-1])
		for j := 1; j <= i; j++ {
			if !strings.Contains(sent, fmt.Sprintf("HUE-%d", j)) {
				t.Errorf("%s did not get turn %d's answer (HUE-%d):\n%.2000s", agent, j, j, sent)
			}
		}
	}
	evs := h.show(1)
	var texts []string
	for _, e := range kinds(evs, "AssistantText") {
		texts = append(texts, e.field("text"))
	}
	if got := strings.Join(texts, " "); got != "Code 1 is HUE-1. Code 2 is HUE-2. Code 3 is HUE-3. Code 4 is HUE-4. Code 5 is HUE-5." {
		t.Errorf("answers %q\n%s", got, dumpEvents(evs))
	}
	if c := kinds(evs, "Complete"); len(c) != len(chain) {
		t.Errorf("%d Complete events, want %d", len(c), len(chain))
	}
	h.check()
}
