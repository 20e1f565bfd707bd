// Package e2e drives the lazuli binary as a subprocess against the real
// claude and codex CLIs, whose model is a scripted fake server
// (internal/fakemodel). Tests skip when the CLIs are not installed: run
// scripts/install-clis.sh, or set LAZULI_CLAUDE / LAZULI_CODEX.
package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	fm "github.com/lazuli-app/lazuli/internal/fakemodel"
)

// multiToolScript returns a script that creates, reads, edits and prints
// notes.txt with b's tools, then answers.
func multiToolScript(b backend) fm.Script {
	final := fm.Text("Done: notes.txt now says alpha and gamma.")
	if b.name == "codex" {
		return fm.Script{
			fm.Tools("Creating notes.txt.", fm.ApplyPatch("*** Begin Patch\n*** Add File: notes.txt\n+alpha\n+beta\n*** End Patch\n")),
			fm.Tools("", fm.Exec("cat notes.txt")),
			fm.Tools("", fm.ApplyPatch("*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+gamma\n*** End Patch\n")),
			fm.Tools("", fm.Exec("cat notes.txt")),
			final,
		}
	}
	return fm.Script{
		fm.Tools("Creating notes.txt.", fm.Call("Write", map[string]any{"file_path": "{{CWD}}/notes.txt", "content": "alpha\nbeta\n"})),
		fm.Tools("", fm.Call("Read", map[string]any{"file_path": "{{CWD}}/notes.txt"})),
		fm.Tools("", fm.Call("Edit", map[string]any{"file_path": "{{CWD}}/notes.txt", "old_string": "beta", "new_string": "gamma"})),
		fm.Tools("", fm.Bash("cat notes.txt")),
		final,
	}
}

func TestMultiTool(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, multiToolScript(b))
		const prompt = "Create notes.txt, read it, change beta to gamma and print it."
		// No --store: the default is ./.azureal/sessions.azs of the worktree.
		r := h.lazuli("", "run", "--json", "--backend", b.name, prompt)
		rr := decodeRun(t, r)
		if r.code != 0 || rr.Completed == nil || !*rr.Completed || rr.ExitCode != 0 || rr.Error != "" || rr.Stopped {
			t.Fatalf("want a completed run:\n%s", r)
		}
		if rr.Session != 1 || rr.Backend != b.name || rr.EventsSaved == 0 {
			t.Errorf("run JSON = %+v", rr)
		}
		if _, err := os.Stat(h.store); err != nil {
			t.Fatalf("default store not created: %v", err)
		}
		if got, err := os.ReadFile(filepath.Join(h.work, "notes.txt")); err != nil || string(got) != "alpha\ngamma\n" {
			t.Errorf("notes.txt = %q, %v (the agent must work in the worktree)", got, err)
		}

		evs := h.show(1)
		if users := kinds(evs, "UserMessage"); len(users) != 1 || users[0].field("content") != prompt {
			t.Errorf("UserMessages = %v, want the prompt once\n%s", users, dumpEvents(evs))
		}
		want := []string{"Write", "Read", "Edit", "Bash"}
		if b.name == "codex" {
			want = []string{"Edit", "Bash", "Edit", "Bash"}
		}
		var calls, results []string
		for _, e := range kinds(evs, "ToolCall") {
			calls = append(calls, e.field("tool_name"))
		}
		for _, e := range kinds(evs, "ToolResult") {
			results = append(results, e.field("tool_name"))
			if e.field("is_error") == "true" {
				t.Errorf("failed tool result: %v", e)
			}
		}
		if strings.Join(calls, ",") != strings.Join(want, ",") || strings.Join(results, ",") != strings.Join(want, ",") {
			t.Errorf("tool calls %v, results %v, want %v\n%s", calls, results, want, dumpEvents(evs))
		}
		if last := kinds(evs, "AssistantText"); len(last) == 0 || !strings.Contains(last[len(last)-1].field("text"), "alpha and gamma") {
			t.Errorf("no final AssistantText\n%s", dumpEvents(evs))
		}
		if c := kinds(evs, "Complete"); len(c) != 1 || c[0].field("success") != "true" || evs[len(evs)-1].Kind != "Complete" {
			t.Errorf("want one successful Complete at the end\n%s", dumpEvents(evs))
		}
		if rr.EventsSaved != len(evs) {
			t.Errorf("events_saved = %d, the session has %d events", rr.EventsSaved, len(evs))
		}
		ss := h.sessions()
		if len(ss) != 1 || ss[0].Completed == nil || !*ss[0].Completed || ss[0].LastClaudeUUID != "" {
			t.Errorf("ls = %+v, want one completed session with last_claude_uuid cleared", ss)
		}
		h.check()
		if hosts := h.srv.Connects(); len(hosts) > 0 {
			t.Errorf("outside hosts tried: %v", hosts)
		}
	})
}

func TestSecondPrompt(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, fm.Script{fm.Text("First answer: ALPHA-7.")},
			fm.Route{Contains: "SECOND", Script: fm.Script{fm.Text("Second answer.")}})
		const first, second = "First question: name a code.", "SECOND question: repeat it."
		if rr, r := h.run(b, first); r.code != 0 || rr.Session != 1 {
			t.Fatalf("first run:\n%s", r)
		}
		want := h.contextPrompt(1, second)
		if !strings.HasPrefix(want, "<azureal-session-context>\n") || !strings.Contains(want, "First answer: ALPHA-7.") {
			t.Fatalf("lazuli context = %q", want)
		}
		rr, r := h.run(b, "--session", "1", second)
		if r.code != 0 || rr.Session != 1 || rr.Completed == nil || !*rr.Completed {
			t.Fatalf("second run:\n%s", r)
		}
		h.checkContextSent(want, "the second run's request was not routed on its prompt")
		evs := h.show(1)
		users := kinds(evs, "UserMessage")
		if len(users) != 2 || users[0].field("content") != first || users[1].field("content") != second {
			t.Errorf("UserMessages = %v, want the two clean prompts\n%s", users, dumpEvents(evs))
		}
		if c := kinds(evs, "Complete"); len(c) != 2 {
			t.Errorf("%d Complete events, want 2", len(c))
		}
		h.check()
	})
}

// bigTranscript writes a Claude transcript of n prompt/answer pairs
// whose text adds up to about chars characters, with newlines, tabs and
// multi-byte characters.
func bigTranscript(t *testing.T, path string, n, chars int) {
	t.Helper()
	var b strings.Builder
	parent := "null"
	per := chars / n / 2
	for i := range n {
		user := fmt.Sprintf("Question %d: naïve café 日本語 🚀\n", i)
		user += strings.Repeat(fmt.Sprintf("ü%d\tq=\"x\" \\b <t> &amp;\n", i), per/22)
		answer := fmt.Sprintf("Answer %d ✓\n", i) + strings.Repeat("línea — 🚀 text\n", per/16)
		u, a := fmt.Sprintf("u%d", i), fmt.Sprintf("a%d", i)
		line := func(v map[string]any) {
			js, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(js)
			b.WriteByte('\n')
		}
		line(map[string]any{"parentUuid": json.RawMessage(parent), "isSidechain": false, "type": "user",
			"message": map[string]any{"role": "user", "content": user}, "uuid": u,
			"timestamp": "2026-01-01T00:00:00Z", "sessionId": "seed", "cwd": "/seed"})
		line(map[string]any{"parentUuid": u, "isSidechain": false, "type": "assistant",
			"message": map[string]any{"id": "m" + a, "type": "message", "role": "assistant", "model": "claude-opus-5-5",
				"content": []any{map[string]any{"type": "text", "text": answer}}, "stop_reason": "end_turn"},
			"uuid": a, "timestamp": "2026-01-01T00:00:01Z", "sessionId": "seed"})
		parent = `"` + a + `"`
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBigContext(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, fm.Script{fm.Text("Got the whole context.")})
		seed := filepath.Join(t.TempDir(), "seed.jsonl")
		bigTranscript(t, seed, 4, 330_000)
		h.ok("import", "--store", h.store, seed)
		const prompt = "Summarise what we did."
		want := h.contextPrompt(1, prompt)
		if n := utf8.RuneCountInString(want); n < 300_000 || n >= 400_000 {
			t.Fatalf("context prompt of %d characters, want 300,000–400,000", n)
		}
		rr, r := h.run(b, "--session", "1", prompt)
		if r.code != 0 || rr.Completed == nil || !*rr.Completed {
			t.Fatalf("run:\n%s", r)
		}
		reqs := h.srv.Model()
		if len(reqs) == 0 {
			t.Fatal("no model request")
		}
		got := fm.UserText(reqs[0])
		if !strings.Contains(got, want) {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("the %d-byte context prompt did not arrive intact (user text %d bytes; common prefix %d bytes)",
				len(want), len(got), i)
		} else if fm.LastUserText(reqs[0]) != want {
			t.Errorf("the last user text block is not exactly the context prompt")
		}
		evs := h.show(1)
		if users := kinds(evs, "UserMessage"); len(users) != 5 || users[4].field("content") != prompt {
			t.Errorf("want 4 seeded prompts and the clean new one, got %d UserMessages", len(users))
		}
		h.check()
	})
}

// summary is what the compaction agent answers.
var summary = "The user and the assistant went through four rounds of questions. " +
	strings.Repeat("Files: notes.txt was created and edited; decisions were recorded. ", 35)

func TestCompact(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, fm.Script{fm.Text("Continuing after the summary.")},
			fm.Route{Contains: "<transcript>", Script: fm.Script{fm.Text(summary)}})
		seed := filepath.Join(t.TempDir(), "seed.jsonl")
		bigTranscript(t, seed, 5, 5_000)
		h.ok("import", "--store", h.store, seed)
		before := h.show(1)
		users := kinds(before, "UserMessage")
		if len(users) != 5 {
			t.Fatalf("seeded %d prompts, want 5", len(users))
		}
		// keep=3 keeps the last three prompts and what follows them.
		wantAfter := users[2].Seq - 1

		r := h.ok("compact", "--json", "--store", h.store, "1", "--agent", b.name)
		var out struct {
			Session      int64  `json:"session"`
			AfterSeq     int64  `json:"after_seq"`
			SummaryChars int    `json:"summary_chars"`
			Agent        string `json:"agent"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
			t.Fatalf("compact JSON: %v\n%s", err, r)
		}
		wantSummary := strings.TrimSpace(summary)
		if out.Session != 1 || out.AfterSeq != wantAfter || out.Agent != b.name || out.SummaryChars != utf8.RuneCountInString(wantSummary) {
			t.Errorf("compact = %+v, want after_seq %d, agent %s, %d summary chars", out, wantAfter, b.name, utf8.RuneCountInString(wantSummary))
		}
		reqs := h.srv.Model()
		if len(reqs) == 0 || reqs[0].Route != 0 {
			t.Fatalf("the compaction agent did not send the compaction prompt")
		}
		if got := fm.UserText(reqs[0]); !strings.Contains(got, users[0].field("content")) ||
			strings.Contains(got, users[4].field("content")) {
			t.Errorf("the compaction prompt must hold the old prompts and not the kept ones")
		}
		var dump struct {
			Compactions []struct {
				AfterSeq  int64  `json:"after_seq"`
				SessionID int64  `json:"session_id"`
				Summary   string `json:"summary"`
			} `json:"compactions"`
		}
		if err := json.Unmarshal([]byte(h.ok("dump", "--store", h.store).stdout), &dump); err != nil {
			t.Fatal(err)
		}
		if len(dump.Compactions) != 1 || dump.Compactions[0].AfterSeq != wantAfter || dump.Compactions[0].Summary != wantSummary {
			t.Errorf("compactions = %+v", dump.Compactions)
		}
		if after := h.show(1); len(after) != len(before) {
			t.Errorf("compaction changed the events: %d → %d", len(before), len(after))
		}

		// The next run gets the summary and the kept events only.
		const prompt = "Carry on."
		want := h.contextPrompt(1, prompt)
		if !strings.HasPrefix(want, "<azureal-session-context>\n[Previous conversation summary]\n"+wantSummary+"\n\n[Conversation continues]\n\n## User\n"+users[2].field("content")) {
			t.Errorf("context after compaction starts %.300q", want)
		}
		rr, r := h.run(b, "--session", "1", prompt)
		if r.code != 0 || rr.Completed == nil || !*rr.Completed {
			t.Fatalf("run after compaction:\n%s", r)
		}
		reqs = h.srv.Model()
		if got := fm.UserText(reqs[len(reqs)-1]); !strings.Contains(got, want) {
			t.Errorf("the run after compaction did not send the compacted context")
		}
		h.check()
	})
}

func TestAPIError(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, fm.Script{fm.Fail(500, 0)})
		rr, r := h.run(b, "Say hello.")
		if r.code != 1 || rr.Completed == nil || *rr.Completed || rr.Error == "" || rr.Stopped {
			t.Fatalf("want exit 1 with completed=false and an error:\n%s", r)
		}
		if n := len(h.srv.Model()); n < 2 {
			t.Errorf("%d model requests: the CLI should have retried", n)
		}
		evs := h.show(1)
		if users := kinds(evs, "UserMessage"); len(users) != 1 || users[0].field("content") != "Say hello." {
			t.Errorf("the prompt was not kept\n%s", dumpEvents(evs))
		}
		if c := kinds(evs, "Complete"); len(c) != 1 || c[0].field("success") != "false" {
			t.Errorf("want one failed Complete\n%s", dumpEvents(evs))
		}
		if ss := h.sessions(); len(ss) != 1 || ss[0].Completed == nil || *ss[0].Completed {
			t.Errorf("ls = %+v, want a failed session", ss)
		}
		h.check()
	})
}

// TestStop signals `lazuli run` while the model hangs after a tool call:
// lazuli stops the agent's process group, keeps the partial turn and
// exits 1 with "stopped".
func TestStop(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Run(sig.String(), func(t *testing.T) { testStop(t, b, sig) })
		}
	})
}

func testStop(t *testing.T, b backend, sig syscall.Signal) {
	call := fm.Bash("echo first-step-done")
	if b.name == "codex" {
		call = fm.Exec("echo first-step-done")
	}
	h := newHarness(t, fm.Script{fm.Tools("Running a command.", call), fm.Hang()})
	cmd, stdout, stderr := h.command("", "run", "--json", "--store", h.store, "--backend", b.name, "Run a command, then think.")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := h.srv.WaitFor(h.ctx, func(r fm.Request) bool { return r.Served == fm.ServedHang }); err != nil {
		_ = cmd.Process.Kill()
		t.Fatalf("the agent never reached the hanging step: %v", err)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	r := h.wait(cmd, stdout, stderr)
	rr := decodeRun(t, r)
	if r.code != 1 || !rr.Stopped || !strings.Contains(rr.Error, "stopped") {
		t.Errorf("want exit 1 and stopped:\n%s", r)
	}
	if pids := h.leftovers(); len(pids) > 0 {
		t.Errorf("agent processes survived the stop: %v", pids)
	}
	evs := h.show(1)
	if len(kinds(evs, "UserMessage")) != 1 || len(kinds(evs, "ToolCall")) != 1 || len(kinds(evs, "ToolResult")) != 1 {
		t.Errorf("want the prompt, the tool call and its result kept\n%s", dumpEvents(evs))
	}
	if res := kinds(evs, "ToolResult"); len(res) == 1 && !strings.Contains(res[0].field("content"), "first-step-done") {
		t.Errorf("tool result = %v", res[0])
	}
	if ss := h.sessions(); len(ss) != 1 || ss[0].LastClaudeUUID != "" {
		t.Errorf("ls = %+v, want last_claude_uuid cleared", ss)
	}
	h.check()
}

func TestMissingCLI(t *testing.T) {
	for _, name := range []string{"claude", "codex"} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, fm.Script{fm.Text("unused")})
			h.setEnv("LAZULI_" + strings.ToUpper(name) + "=/nonexistent/" + name)
			r := h.lazuli("", "run", "--json", "--store", h.store, "--backend", name, "hello")
			if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "/nonexistent/"+name) {
				t.Errorf("want exit 1 and a message naming the executable:\n%s", r)
			}
			if n := len(h.srv.Requests()); n != 0 {
				t.Errorf("%d requests reached the model", n)
			}
			if _, err := os.Stat(h.store); err == nil {
				if ss := h.sessions(); len(ss) != 0 {
					t.Errorf("a missing CLI created sessions: %+v", ss)
				}
			}
		})
	}
}

func TestUsage(t *testing.T) {
	h := newHarness(t, nil)
	for _, args := range [][]string{
		{"run"},
		{"run", "--backend", "nosuch", "hi"},
		{"run", "a", "b"},
		{"compact", "--store", h.store},
	} {
		if r := h.lazuli("", args...); r.code != 2 {
			t.Errorf("want exit 2 (usage):\n%s", r)
		}
	}
}

// TestDashPrompt sends short prompts that look like options: they must
// reach the agent as prompts (claude takes an argument starting with "-"
// for an option unless it follows "--").
func TestDashPrompt(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, fm.Script{fm.Text("ok")})
		for i, prompt := range []string{"-v is broken, please fix it", "--help me with this"} {
			rr, r := h.run(b, "--", prompt)
			if r.code != 0 || rr.Completed == nil || !*rr.Completed {
				t.Errorf("prompt %q:\n%s", prompt, r)
				continue
			}
			reqs := h.srv.Model()
			if got := fm.LastUserText(reqs[len(reqs)-1]); got != prompt {
				t.Errorf("prompt %d reached the agent as %q, want %q", i, got, prompt)
			}
		}
	})
}

// TestPromptFromStdin checks `lazuli run -`, with a prompt too long for
// one argv string.
func TestPromptFromStdin(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, fm.Script{fm.Text("ok")})
		prompt := "-starts with a dash\n" + strings.Repeat("ünïcödé ✓ line\n", 10_000) + "end"
		r := h.lazuli(prompt, "run", "--json", "--store", h.store, "--backend", b.name, "-")
		if rr := decodeRun(t, r); r.code != 0 || rr.Completed == nil || !*rr.Completed {
			t.Fatalf("run:\n%s", r)
		}
		if got := fm.UserText(h.srv.Model()[0]); !strings.Contains(got, prompt) {
			t.Errorf("the agent did not get the %d-byte prompt intact", len(prompt))
		}
		if users := kinds(h.show(1), "UserMessage"); len(users) != 1 || users[0].field("content") != prompt {
			t.Errorf("stored prompt differs")
		}
	})
}

// TestAutoCompaction crosses the compaction threshold mid-turn: lazuli
// stops the agent, compacts the session with the same CLI, and continues
// the turn with the hidden auto-continue prompt.
func TestAutoCompaction(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		seed := filepath.Join(t.TempDir(), "seed.jsonl")
		bigTranscript(t, seed, 4, 330_000)
		probe := newHarness(t, nil)
		probe.ok("import", "--store", probe.store, seed)
		chars := probe.sessions()[0].CharsSinceCompaction
		size := 400_000 - chars + 2_000
		if size < 1_000 || size > 25_000 {
			t.Fatalf("seeded %d context characters: tune bigTranscript so the tool output (%d) stays small", chars, size)
		}
		cmd := fmt.Sprintf("head -c %d /dev/zero | tr '\\0' x", size)
		call := fm.Bash(cmd)
		if b.name == "codex" {
			call = fm.Exec(cmd)
		}
		h := newHarness(t, fm.Script{fm.Tools("Printing a lot.", call), fm.Hang()},
			fm.Route{Contains: "<transcript>", Script: fm.Script{fm.Text(summary)}},
			fm.Route{Contains: "<azureal-internal-auto-continue>", Script: fm.Script{fm.Text("Continued after compaction.")}})
		h.ok("import", "--store", h.store, seed)

		rr, r := h.run(b, "--session", "1", "Print a lot of x.")
		if r.code != 0 || !rr.Compacted || !rr.AutoContinued || rr.Completed == nil || !*rr.Completed || rr.Stopped {
			t.Fatalf("want a compacted, auto-continued, completed run:\n%s", r)
		}
		var sawCompaction, sawContinue bool
		for _, req := range h.srv.Model() {
			text := fm.UserText(req)
			switch req.Route {
			case 0:
				sawCompaction = true
			case 1:
				sawContinue = true
				if !strings.Contains(text, "[Previous conversation summary]\n"+strings.TrimSpace(summary)) {
					t.Errorf("the auto-continue prompt lacks the new summary")
				}
			}
		}
		if !sawCompaction || !sawContinue {
			t.Errorf("compaction request %v, auto-continue request %v", sawCompaction, sawContinue)
		}
		var dump struct {
			Compactions []struct {
				Summary string `json:"summary"`
			} `json:"compactions"`
		}
		if err := json.Unmarshal([]byte(h.ok("dump", "--store", h.store).stdout), &dump); err != nil {
			t.Fatal(err)
		}
		if len(dump.Compactions) != 1 || dump.Compactions[0].Summary != strings.TrimSpace(summary) {
			t.Errorf("%d compactions", len(dump.Compactions))
		}
		evs := h.show(1)
		if users := kinds(evs, "UserMessage"); len(users) != 5 {
			t.Errorf("%d UserMessages, want 5: the hidden prompt must not be stored\n%s", len(users), dumpEvents(evs))
		}
		if len(kinds(evs, "ToolResult")) != 1 {
			t.Errorf("the tool result of the stopped turn was not kept\n%s", dumpEvents(evs))
		}
		if last := evs[len(evs)-1]; last.Kind != "Complete" || last.field("success") != "true" {
			t.Errorf("the session does not end with a successful Complete\n%s", dumpEvents(evs))
		}
		h.check()
	})
}

// subagentScript is a parent that delegates to a synchronous sub-agent
// (recognised by its prompt), and the sub-agent's own script.
func subagentScript(sub fm.Script) (fm.Script, fm.Route) {
	call := fm.Call("Agent", map[string]any{"description": "Inventory", "run_in_background": false,
		"prompt": "SUBAGENT-INVENTORY: list the files and report them."})
	return fm.Script{fm.Tools("I'll delegate the inventory.", call), fm.Text("The sub-agent found README.md.")},
		fm.Route{Contains: "SUBAGENT-INVENTORY", Script: sub}
}

// TestSubagentRun runs claude with a sub-agent: the parent's turn keeps
// only its own steps, and the sub-agent's work is a session of its own,
// "<parent> › <what it was asked>", listed below the parent.
func TestSubagentRun(t *testing.T) {
	fm.NeedCLI(t, "claude")
	parent, route := subagentScript(fm.Script{fm.Tools("", fm.Bash("echo sub-step-done")), fm.Text("Inventory: README.md")})
	h := newHarness(t, parent, route)
	rr, r := h.run(backend{name: "claude"}, "Take stock of the repository.")
	if r.code != 0 || rr.Completed == nil || !*rr.Completed {
		t.Fatalf("run:\n%s", r)
	}
	ss := h.sessions()
	if len(ss) != 2 || ss[0].ID != 1 || ss[1].ID != 2 {
		t.Fatalf("want the parent listed above its sub-agent: %+v", ss)
	}
	parentEvs, childEvs := h.show(1), h.show(2)
	if calls := kinds(parentEvs, "ToolCall"); len(calls) != 1 || calls[0].field("tool_name") != "Agent" {
		t.Errorf("the parent's calls are not just the Agent call\n%s", dumpEvents(parentEvs))
	}
	calls, results := kinds(childEvs, "ToolCall"), kinds(childEvs, "ToolResult")
	if len(calls) != 1 || calls[0].field("tool_name") != "Bash" || len(results) != 1 ||
		!strings.Contains(results[0].field("content"), "sub-step-done") {
		t.Errorf("the sub-agent's work is not in S2\n%s", dumpEvents(childEvs))
	}
	if users := kinds(childEvs, "UserMessage"); len(users) != 1 || !strings.HasPrefix(users[0].field("content"), "SUBAGENT-INVENTORY") {
		t.Errorf("S2 does not start with what the sub-agent was asked\n%s", dumpEvents(childEvs))
	}
	if name := h.ok("show", "--store", h.store, "2").stdout; !strings.HasPrefix(name, "S2  Take stock of the repository. › SUBAGENT-INVENTORY") {
		t.Errorf("S2's header: %.200s", name)
	}
	h.check()
}

// killRun starts `lazuli run` with args, waits until the model serves a
// hanging step (when wait is nil) or until wait reports true, and kills
// lazuli with SIGKILL.
func (h *harness) killRun(wait func() bool, args ...string) result {
	h.t.Helper()
	cmd, stdout, stderr := h.command("", append([]string{"run", "--json", "--store", h.store}, args...)...)
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	if _, err := h.srv.WaitFor(h.ctx, func(r fm.Request) bool { return r.Served == fm.ServedHang }); err != nil {
		_ = cmd.Process.Kill()
		h.t.Fatalf("the agent never reached the hanging step: %v", err)
	}
	for wait != nil && !wait() {
		if h.ctx.Err() != nil {
			_ = cmd.Process.Kill()
			h.t.Fatal("timed out waiting for the run's progress")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Kill(); err != nil {
		h.t.Fatal(err)
	}
	return h.wait(cmd, stdout, stderr)
}

// TestKillRun kills `lazuli run` with SIGKILL while the model hangs: the
// agent dies with it (a parent-death signal), the partial turn is kept,
// and the CLI session id it leaves set is cleared by the next run of the
// session.
func TestKillRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, fm.Script{fm.Text("ready")}, fm.Route{Contains: "AFTER-THE-KILL", Script: fm.Script{fm.Text("done")}},
			fm.Route{Contains: "HANG-HERE", Script: fm.Script{fm.Hang()}})
		h.ok("run", "--store", h.store, "--backend", b.name, "first")
		idSet := func() bool { ss := h.sessions(); return len(ss) == 1 && ss[0].LastClaudeUUID != "" }
		h.killRun(idSet, "--backend", b.name, "--session", "1", "HANG-HERE second")
		if pids := h.leftovers(); len(pids) > 0 {
			t.Errorf("agent processes survived a SIGKILL of lazuli: %v", pids)
		}
		if users := kinds(h.show(1), "UserMessage"); len(users) != 2 {
			t.Errorf("the killed turn's prompt was not kept\n%s", dumpEvents(h.show(1)))
		}
		if ss := h.sessions(); len(ss) != 1 || ss[0].LastClaudeUUID == "" {
			t.Errorf("ls = %+v: the killed run's CLI session id should still be set", ss)
		}
		h.ok("run", "--store", h.store, "--backend", b.name, "--session", "1", "AFTER-THE-KILL third")
		if ss := h.sessions(); len(ss) != 1 || ss[0].LastClaudeUUID != "" {
			t.Errorf("ls = %+v: the next run left a CLI session id set", ss)
		}
		h.check()
	})
}

// TestKillRunWithSubagent kills `lazuli run` while a sub-agent's model
// hangs, once the sub-agent's tool result is saved: both sessions hold
// what streamed, and nothing else.
func TestKillRunWithSubagent(t *testing.T) {
	fm.NeedCLI(t, "claude")
	parent, route := subagentScript(fm.Script{fm.Tools("", fm.Bash("echo sub-step-done")), fm.Hang()})
	h := newHarness(t, parent, route)
	saved := func() bool {
		r := h.lazuli("", "show", "--json", "--store", h.store, "2")
		return r.code == 0 && strings.Contains(r.stdout, `"kind": "ToolResult"`)
	}
	h.killRun(saved, "--backend", "claude", "Take stock of the repository.")
	if pids := h.leftovers(); len(pids) > 0 {
		t.Errorf("agent processes survived a SIGKILL of lazuli: %v", pids)
	}
	ss := h.sessions()
	if len(ss) != 2 || ss[0].Completed != nil || ss[1].Completed != nil {
		t.Fatalf("want the parent and its sub-agent, neither completed: %+v", ss)
	}
	parentEvs, childEvs := h.show(1), h.show(2)
	if calls := kinds(parentEvs, "ToolCall"); len(calls) != 1 || calls[0].field("tool_name") != "Agent" ||
		len(kinds(parentEvs, "ToolResult")) != 0 || len(kinds(parentEvs, "UserMessage")) != 1 {
		t.Errorf("the parent should hold its prompt and the open Agent call\n%s", dumpEvents(parentEvs))
	}
	if len(kinds(childEvs, "UserMessage")) != 1 || len(kinds(childEvs, "ToolCall")) != 1 ||
		len(kinds(childEvs, "ToolResult")) != 1 || len(childEvs) != 3 {
		t.Errorf("the sub-agent should hold its prompt, its call and its result\n%s", dumpEvents(childEvs))
	}
	h.check()
}
