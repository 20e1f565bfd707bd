package e2e

// The history server given to the agents beyond claude and codex (issue
// 34): each CLI, run with the arguments and environment its descriptor
// gives a run with Lazuli's MCP servers, calls the server's tools by its
// own name for them.

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents"
	fm "github.com/lazuli-app/lazuli/internal/fakemodel"
	"github.com/lazuli-app/lazuli/project"
)

// agentMCPTool is the name agent gives a tool of the history server, as
// captured from its requests.
func agentMCPTool(agent, tool string) string {
	switch agent {
	case "copilot":
		return agents.HistoryServerName + "-" + tool
	case "opencode":
		return agents.HistoryServerName + "_" + tool
	case "qwen":
		return mcpTool(tool)
	}
	return tool
}

// agentRecallRoutes are recallScripts' conversations for an agent: claude
// runs the earlier session; agent searches the history and reads the hit.
func agentRecallRoutes(agent string) []fm.Route {
	first := fm.Script{fm.Tools("", fm.Bash(recallCommand)), fm.Text("Printed it.")}
	recall := fm.Script{
		fm.Tools("", fm.Call(agentMCPTool(agent, "search_sessions"), map[string]any{"query": recallWord})),
		fm.Tools("", fm.Call(agentMCPTool(agent, "read_session"), map[string]any{"session": `{{MATCH:\[(S\d+)#\d+\]}}`})),
		fm.Text(`The earlier session printed {{MATCH:(zephyr\w+)}}, in {{MATCH:\[(S\d+)#\d+\] \*\*result}}.`),
	}
	return []fm.Route{{Contains: "print the word", Script: first}, {Contains: "recall", Script: recall}}
}

// mcpToolNames lists the names in the requests that look like the history
// server's tools: the capture a failing test shows.
func mcpToolNames(h *harness) []string {
	re := regexp.MustCompile(`"[\w.:-]*search_sessions"`)
	var out []string
	for _, r := range h.srv.Model() {
		out = append(out, re.FindAllString(string(r.Raw), 3)...)
	}
	return out
}

// TestHistoryMCPAgents: Copilot CLI, OpenCode and Qwen Code,
// started with their descriptor's arguments for a run given the history
// server, call search_sessions for a word only an earlier session holds,
// then read_session of the hit; the tool results reached the model. Then
// `lazuli run`, in a project that lets agents search its history, gives
// the agent the same server.
func TestHistoryMCPAgents(t *testing.T) {
	for _, agent := range []string{"copilot", "opencode", "qwen"} {
		t.Run(agent, func(t *testing.T) {
			claude := backend{"claude", fm.NeedCLI(t, "claude")}
			path := fm.NeedCLI(t, agent)
			var h *harness
			switch agent {
			case "qwen":
				h, _ = newAgentHarness(t, agent, fm.Script{fm.Text("unrouted")}, agentRecallRoutes(agent)...)
			default:
				h = agentHarness(t, fm.Script{fm.Text("unrouted")}, agentRecallRoutes(agent)...)
			}
			if rr, r := h.run(claude, "--", "first: print the word"); rr.Error != "" || r.code != 0 {
				t.Fatalf("earlier session:\n%s", r)
			}
			h.ok("reindex", "--store", h.store)

			server := agents.MCPServer{Name: agents.HistoryServerName, Command: []string{lazuliBin, "mcp", "--project", h.work}}
			inv := agents.Invocation{Backend: agents.Backend(agent), Command: path, Dir: h.work,
				Prompt: "recall: what did the earlier session print?", Env: h.env, MCPServers: []agents.MCPServer{server}}
			args, stdin := inv.Args()
			env, cleanup, err := inv.Environ()
			if err != nil {
				t.Fatal(err)
			}
			defer cleanup()
			cmd := exec.CommandContext(h.ctx, path, args...)
			if stdin {
				cmd.Stdin = strings.NewReader(inv.Prompt)
			}
			cmd.Dir, cmd.Env = h.work, env
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "The earlier session printed "+recallWord+", in S1.") {
				t.Fatalf("%s: %v\ntools seen: %v\n%.6000s", agent, err, mcpToolNames(h), out)
			}
			checkRecall(t, h)

			// The same through lazuli run, with the project's switch on:
			// the run's own arguments and environment (Invocation.Environ).
			config := filepath.Join(h.home, "lazuli-config")
			h.setEnv(project.ConfigDirEnv + "=" + config)
			t.Setenv(project.ConfigDirEnv, config)
			wts, err := project.Resolve(h.work)
			if err != nil {
				t.Fatal(err)
			}
			if err := project.SetShareHistory(project.Key(wts), true); err != nil {
				t.Fatal(err)
			}
			rr, r := h.run(backend{agent, path}, "--", "recall through lazuli run")
			if rr.Error != "" || r.code != 0 {
				t.Fatalf("lazuli run:\n%s", r)
			}
			evs := h.show(rr.Session)
			var called []string
			for _, e := range kinds(evs, "ToolCall") {
				called = append(called, e.field("tool_name"))
			}
			texts := kinds(evs, "AssistantText")
			if !strings.Contains(strings.Join(called, " "), "read_session") || len(texts) == 0 ||
				!strings.Contains(texts[len(texts)-1].field("text"), recallWord) {
				t.Errorf("lazuli run: calls %v, events:\n%s", called, dumpEvents(evs))
			}
		})
	}
}

// TestGeminiSkipsRunSystemDefaults backs Gemini's NoMCP: the only files
// Gemini CLI reads MCP servers from that a run could name, its system
// defaults (and settings), are skipped when written where Lazuli could
// write them, so the server is not configured.
func TestGeminiSkipsRunSystemDefaults(t *testing.T) {
	h, b := newAgentHarness(t, "gemini", fm.Script{fm.Text("unused")})
	dir := t.TempDir()
	defaults := filepath.Join(dir, "system-defaults.json")
	cfg := `{"mcpServers":{"lazuli":{"command":"` + lazuliBin + `","args":["mcp","--project","` + h.work + `"]}}}`
	if err := os.WriteFile(defaults, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(h.ctx, b.path, "mcp", "list")
	cmd.Dir, cmd.Env = h.work, append(h.env[:len(h.env):len(h.env)], "GEMINI_CLI_SYSTEM_DEFAULTS_PATH="+defaults)
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "Skipping system defaults file") || strings.Contains(string(out), "lazuli:") {
		t.Errorf("want gemini to skip the run's system defaults (else NoMCP may be lifted):\n%s", out)
	}
	if agents.Gemini.NoMCP() == "" {
		t.Error("Gemini's NoMCP is empty")
	}
}

// TestMCPPrintConfigAgents: what `lazuli mcp --print-config AGENT` prints
// for Gemini CLI, Qwen Code, OpenCode and Copilot CLI, done as printed
// with the real CLI (its command run, OpenCode's file written), gives the
// CLI the history server: Gemini CLI and OpenCode start it and connect,
// Qwen Code holds it for the user's approval, Copilot CLI lists it as
// enabled with lazuli's command. Pi is refused: it has no MCP client.
func TestMCPPrintConfigAgents(t *testing.T) {
	for _, agent := range []string{"gemini", "qwen", "opencode", "copilot"} {
		t.Run(agent, func(t *testing.T) {
			h, b := newAgentHarness(t, agent, fm.Script{fm.Text("unused")})
			sample, err := filepath.Abs(filepath.Join("..", "testdata", "drop", "sample-claude-stream.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			// Lazuli's cache elsewhere: the server is given the variable.
			h.setEnv("LAZULI_CACHE_DIR=" + filepath.Join(h.home, "lazuli-cache"))
			h.ok("import", "--store", h.store, sample)
			printed := h.ok("mcp", "--print-config", agent).stdout
			if !strings.Contains(printed, "LAZULI_CACHE_DIR") {
				t.Errorf("the cache folder not given:\n%s", printed)
			}
			lines := strings.Split(printed, "\n")
			if len(lines) < 2 || !strings.HasPrefix(lines[0], "# ") {
				t.Fatalf("printed:\n%s", printed)
			}
			cli := func(args ...string) string {
				cmd := exec.CommandContext(h.ctx, b.path, args...)
				cmd.Dir, cmd.Env = h.work, h.env
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s %v: %v\n%s", agent, args, err, out)
				}
				return string(out)
			}
			if agent == "opencode" {
				// The first block is the file.
				file := printed[strings.Index(printed, "\n")+1 : strings.Index(printed, "\n}\n")+2]
				if err := os.WriteFile(filepath.Join(h.work, "opencode.json"), []byte(file), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				// The first command, with the CLI's own path for its name.
				add, ok := strings.CutPrefix(lines[1], agent+" ")
				if !ok {
					t.Fatalf("printed:\n%s", printed)
				}
				cmd := exec.CommandContext(h.ctx, "bash", "-c", `"$CLI" `+add)
				cmd.Dir, cmd.Env = h.work, append(h.env[:len(h.env):len(h.env)], "CLI="+b.path)
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("%s: %v\n%s", lines[1], err, out)
				}
			}
			// What the CLI says of the server (OpenCode colours its status).
			server := regexp.QuoteMeta("lazuli: " + lazuliBin + " mcp --project " + h.work + " (stdio) - ")
			var out, want string
			switch agent {
			case "gemini":
				out, want = cli("mcp", "list"), server+"Connected"
			case "qwen":
				out, want = cli("mcp", "list"), server+"Pending approval"
			case "opencode":
				out, want = cli("mcp", "list"), `lazuli\s+(\x1b\[[0-9;]*m)*connected`
			case "copilot":
				out, want = cli("mcp", "get", "lazuli"), `Status: Enabled(.|\n)*Command: `+regexp.QuoteMeta(lazuliBin+" mcp --project "+h.work)
			}
			if !regexp.MustCompile(want).MatchString(out) {
				t.Errorf("want %q in:\n%s\nprinted:\n%s", want, out, printed)
			}
		})
	}
	h := newHarness(t, fm.Script{fm.Text("unused")})
	if r := h.lazuli("", "mcp", "--print-config", "pi"); r.code != 2 || !strings.Contains(r.stderr, "Pi has no MCP client") {
		t.Errorf("pi:\n%s", r)
	}
}
