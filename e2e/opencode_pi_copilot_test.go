package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	fm "github.com/lazuli-app/lazuli/internal/fakemodel"
)

// The agents of this file: OpenCode, Pi and Copilot CLI, each pointed at
// the scripted model on the Anthropic Messages API (fakemodel.AgentsHome).
var newAgents = []string{"opencode", "pi", "copilot"}

// forEachNewAgent runs f as a subtest per agent; a missing CLI skips its
// subtest (fails it under LAZULI_E2E_REQUIRED=1).
func forEachNewAgent(t *testing.T, f func(t *testing.T, b backend)) {
	for _, name := range newAgents {
		t.Run(name, func(t *testing.T) {
			f(t, backend{name, fm.NeedCLI(t, name)})
		})
	}
}

// agentHarness is newHarness with the three agents' configuration in its
// HOME and their executables in its environment.
func agentHarness(t *testing.T, script fm.Script, routes ...fm.Route) *harness {
	t.Helper()
	return agentHarnessFor(t, func(string) fm.Script { return script }, routes...)
}

// agentHarnessFor is agentHarness for a script that names the worktree.
func agentHarnessFor(t *testing.T, script func(work string) fm.Script, routes ...fm.Route) *harness {
	t.Helper()
	var h *harness
	work := ""
	// newHarness picks the worktree; a first harness tells where, and the
	// script is served by a second server over the same folders.
	h = newHarness(t, nil)
	work = h.work
	h.srv.Close()
	h.srv = fm.New(script(work), routes...)
	t.Cleanup(h.srv.Close)
	base, err := h.srv.Home(h.home)
	if err != nil {
		t.Fatal(err)
	}
	h.env = append(base, "LAZULI_E2E_RUN="+h.marker)
	for _, name := range []string{"claude", "codex"} {
		if p := fm.FindCLI(name); p != "" {
			h.setEnv("LAZULI_" + strings.ToUpper(name) + "=" + p)
		}
	}
	env, err := h.srv.AgentsHome(h.home)
	if err != nil {
		t.Fatal(err)
	}
	h.setEnv(env...)
	for _, name := range newAgents {
		if p := fm.FindCLI(name); p != "" {
			h.setEnv("LAZULI_" + strings.ToUpper(name) + "=" + p)
		}
	}
	return h
}

// agentScript creates, reads, edits and prints notes.txt with the agent's
// own tools (absolute paths: {{CWD}} is not in these CLIs' requests).
func agentBScript(agent, dir string) (fm.Script, []string) {
	notes := filepath.Join(dir, "notes.txt")
	final := fm.Text("Done: notes.txt now says alpha and gamma.")
	switch agent {
	case "opencode":
		return fm.Script{
			fm.Tools("Creating notes.txt.", fm.Call("write", map[string]any{"filePath": notes, "content": "alpha\nbeta\n"})),
			fm.Tools("", fm.Call("read", map[string]any{"filePath": notes})),
			fm.Tools("", fm.Call("edit", map[string]any{"filePath": notes, "oldString": "beta", "newString": "gamma"})),
			fm.Tools("", fm.Call("bash", map[string]any{"command": "cat notes.txt", "description": "Print notes.txt"})),
			final,
		}, []string{"Write", "Read", "Edit", "Bash"}
	case "pi":
		return fm.Script{
			fm.Tools("Creating notes.txt.", fm.Call("write", map[string]any{"path": notes, "content": "alpha\nbeta\n"})),
			fm.Tools("", fm.Call("read", map[string]any{"path": notes})),
			fm.Tools("", fm.Call("edit", map[string]any{"path": notes, "edits": []any{map[string]any{"oldText": "beta", "newText": "gamma"}}})),
			fm.Tools("", fm.Call("bash", map[string]any{"command": "cat notes.txt"})),
			final,
		}, []string{"Write", "Read", "Edit", "Bash"}
	}
	return fm.Script{
		fm.Tools("Creating notes.txt.", fm.Call("create", map[string]any{"path": notes, "file_text": "alpha\nbeta\n"})),
		fm.Tools("", fm.Call("view", map[string]any{"path": notes})),
		fm.Tools("", fm.Call("edit", map[string]any{"path": notes, "old_str": "beta", "new_str": "gamma"})),
		fm.Tools("", fm.Call("bash", map[string]any{"command": "cat notes.txt", "description": "Print notes.txt"})),
		final,
	}, []string{"Write", "Read", "Edit", "Bash"}
}

// titleRoute answers OpenCode's title request, a conversation of its own.
var titleRoute = fm.Route{Contains: "Generate a title for this conversation", Script: fm.Script{fm.Text("Notes")}}

func TestAgentRun(t *testing.T) {
	forEachNewAgent(t, func(t *testing.T, b backend) {
		var want []string
		h := agentHarnessFor(t, func(work string) fm.Script {
			s, w := agentBScript(b.name, work)
			want = w
			return s
		}, titleRoute)
		const prompt = "Create notes.txt, read it, change beta to gamma and print it."
		rr, r := h.run(b, prompt)
		if r.code != 0 || rr.Completed == nil || !*rr.Completed || rr.Error != "" || rr.Backend != b.name {
			t.Fatalf("want a completed run:\n%s", r)
		}
		if got, err := os.ReadFile(filepath.Join(h.work, "notes.txt")); err != nil || string(got) != "alpha\ngamma\n" {
			t.Errorf("notes.txt = %q, %v", got, err)
		}
		evs := h.show(1)
		if users := kinds(evs, "UserMessage"); len(users) != 1 || users[0].field("content") != prompt {
			t.Errorf("UserMessages = %v, want the prompt once\n%s", users, dumpEvents(evs))
		}
		var calls []string
		for _, e := range kinds(evs, "ToolCall") {
			calls = append(calls, e.field("tool_name"))
		}
		if strings.Join(calls, ",") != strings.Join(want, ",") {
			t.Errorf("tool calls %v, want %v\n%s", calls, want, dumpEvents(evs))
		}
		for _, e := range kinds(evs, "ToolResult") {
			if e.field("is_error") == "true" {
				t.Errorf("failed tool result: %v", e)
			}
		}
		if c := kinds(evs, "Complete"); len(c) != 1 || c[0].field("success") != "true" || evs[len(evs)-1].Kind != "Complete" {
			t.Errorf("want one successful Complete at the end\n%s", dumpEvents(evs))
		}
		if rr.EventsSaved != len(evs) {
			t.Errorf("events_saved = %d, the session has %d events", rr.EventsSaved, len(evs))
		}
		h.check()
	})
}

func TestAgentSecondPrompt(t *testing.T) {
	forEachNewAgent(t, func(t *testing.T, b backend) {
		h := agentHarness(t, fm.Script{fm.Text("First answer: ALPHA-7.")},
			fm.Route{Contains: "SECOND", Script: fm.Script{fm.Text("Second answer.")}}, titleRoute)
		const first, second = "First question: name a code.", "SECOND question: repeat it."
		if rr, r := h.run(b, first); r.code != 0 || rr.Session != 1 {
			t.Fatalf("first run:\n%s", r)
		}
		want := h.contextPrompt(1, second)
		rr, r := h.run(b, "--session", "1", second)
		if r.code != 0 || rr.Completed == nil || !*rr.Completed {
			t.Fatalf("second run:\n%s", r)
		}
		checkContextSentTo(h, want)
		users := kinds(h.show(1), "UserMessage")
		if len(users) != 2 || users[0].field("content") != first || users[1].field("content") != second {
			t.Errorf("UserMessages = %v, want the two clean prompts", users)
		}
		h.check()
	})
}

// checkContextSentTo checks that the last model request of the route for
// "SECOND" carried the context prompt lazuli renders (OpenCode's title
// request may come after it).
func checkContextSentTo(h *harness, want string) {
	h.t.Helper()
	for _, r := range h.srv.Model() {
		if r.Route == 0 && strings.Contains(fm.UserText(r), want) {
			return
		}
	}
	h.t.Errorf("no request carried the context prompt %q", want)
}

func TestAgentAPIErrorOpenCodePiCopilot(t *testing.T) {
	forEachNewAgent(t, func(t *testing.T, b backend) {
		// retry-after-ms keeps OpenCode's backoff (80 s) short.
		h := agentHarness(t, fm.Script{{Status: 500, RetryAfterMS: 100}}, titleRoute)
		rr, r := h.run(b, "Say hello.")
		// Pi exits 0 after recording the error: Lazuli still reports it.
		if r.code != 1 || rr.Completed == nil || *rr.Completed || rr.Error == "" {
			t.Fatalf("want exit 1 with completed=false and an error:\n%s", r)
		}
		evs := h.show(1)
		if c := kinds(evs, "Complete"); len(c) != 1 || c[0].field("success") != "false" {
			t.Errorf("want one failed Complete\n%s", dumpEvents(evs))
		}
		h.check()
	})
}

// TestAgentsShareASession runs one session on Claude, then OpenCode, Pi,
// Copilot CLI and Codex: each gets the earlier turns as context.
func TestAgentsShareASession(t *testing.T) {
	order := []string{"claude", "opencode", "pi", "copilot", "codex"}
	paths := map[string]string{}
	for _, name := range order {
		paths[name] = fm.NeedCLI(t, name)
	}
	// A later turn's request holds the earlier prompts in its context, so
	// the routes go latest first: route n-1-i answers agent i.
	routes := make([]fm.Route, len(order))
	for i, name := range order {
		routes[len(order)-1-i] = fm.Route{Contains: "TURN-" + name, Script: fm.Script{fm.Text("Answer " + string(rune('A'+i)) + " from " + name + ".")}}
	}
	h := agentHarness(t, fm.Script{fm.Text("?")}, append(routes, titleRoute)...)
	for i, name := range order {
		args := []string{"TURN-" + name + ": go on."}
		if i > 0 {
			args = append([]string{"--session", "1"}, args...)
		}
		rr, r := h.run(backend{name, paths[name]}, args...)
		if r.code != 0 || rr.Completed == nil || !*rr.Completed {
			t.Fatalf("%s run:\n%s", name, r)
		}
		if i == 0 {
			continue
		}
		var got string
		for _, q := range h.srv.Model() {
			if q.Route == len(order)-1-i {
				got = fm.UserText(q)
			}
		}
		for _, prev := range order[:i] {
			if !strings.Contains(got, "TURN-"+prev) || !strings.Contains(got, "from "+prev+".") {
				t.Errorf("%s did not receive %s's turn:\n%.2000s", name, prev, got)
			}
		}
	}
	if users := kinds(h.show(1), "UserMessage"); len(users) != len(order) {
		t.Errorf("%d prompts stored, want %d", len(users), len(order))
	}
	h.check()
}

// TestAgentStop signals `lazuli run` while the model hangs after a shell
// step: the agent's process group is stopped, the partial turn is kept
// (with the save policy's default, as it streams) and lazuli exits 1.
func TestAgentStop(t *testing.T) {
	forEachNewAgent(t, func(t *testing.T, b backend) {
		call := map[string]fm.ToolCall{
			"opencode": fm.Call("bash", map[string]any{"command": "echo first-step-done", "description": "Echo"}),
			"pi":       fm.Call("bash", map[string]any{"command": "echo first-step-done"}),
			"copilot":  fm.Call("bash", map[string]any{"command": "echo first-step-done", "description": "Echo"}),
		}[b.name]
		h := agentHarness(t, fm.Script{fm.Tools("Running a command.", call), fm.Hang()}, titleRoute)
		cmd, stdout, stderr := h.command("", "run", "--json", "--store", h.store, "--backend", b.name, "Run a command, then think.")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if _, err := h.srv.WaitFor(h.ctx, func(r fm.Request) bool { return r.Served == fm.ServedHang }); err != nil {
			_ = cmd.Process.Kill()
			t.Fatalf("the agent never reached the hanging step: %v", err)
		}
		if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		r := h.wait(cmd, stdout, stderr)
		rr := decodeRun(t, r)
		if r.code != 1 || !rr.Stopped {
			t.Errorf("want exit 1 and stopped:\n%s", r)
		}
		if pids := h.leftovers(); len(pids) > 0 {
			t.Errorf("agent processes survived the stop: %v", pids)
		}
		evs := h.show(1)
		if len(kinds(evs, "UserMessage")) != 1 || len(kinds(evs, "ToolCall")) != 1 {
			t.Errorf("want the prompt and the tool call kept\n%s", dumpEvents(evs))
		}
		h.check()
	})
}

// TestImportedPiSessionContinuesOnPi imports a session the real Pi CLI
// wrote (its model a Claude model's name) with lazuli import, then
// continues it with lazuli run and no --backend: the run is Pi's, as the
// session's usage rows say, not Claude's, as its model's name would.
func TestImportedPiSessionContinuesOnPi(t *testing.T) {
	fm.NeedCLI(t, "pi")
	files, _ := filepath.Glob("../agents/pi/testdata/capture/sessions/*/*.jsonl")
	if len(files) == 0 {
		t.Fatal("no Pi session capture")
	}
	file, _ := filepath.Abs(files[0])
	h := agentHarness(t, fm.Script{fm.Text("Continued on Pi.")})
	h.ok("import", "--store", h.store, file)
	r := h.lazuli("", "run", "--json", "--store", h.store, "--session", "1", "Go on.")
	rr := decodeRun(t, r)
	if r.code != 0 || rr.Backend != "pi" || rr.Completed == nil || !*rr.Completed {
		t.Fatalf("want a completed Pi run:\n%s", r)
	}
}
