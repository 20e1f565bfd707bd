package e2e

import (
	"crypto/sha256"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/agents"
	fm "github.com/lazuli-app/lazuli/internal/fakemodel"
	"github.com/lazuli-app/lazuli/project"
)

// The word only the earlier session holds, in a tool's output: the
// command that prints it spells it apart.
const (
	recallWord    = "zephyrquokka"
	recallCommand = `printf 'zeph%s\n' yrquokka`
)

// mcpTool is the name a CLI gives a tool of the history server.
func mcpTool(tool string) string { return "mcp__" + agents.HistoryServerName + "__" + tool }

// recallScripts are the two conversations: the earlier session runs the
// command; the later one searches the history for the word, reads the
// session of the first hit, and answers with what it read. Claude loads
// the deferred MCP tools with ToolSearch first, as its model would.
func recallScripts(b backend) []fm.Route {
	first := fm.Script{fm.Tools("", fm.Bash(recallCommand)), fm.Text("Printed it.")}
	if b.name == "codex" {
		first = fm.Script{fm.Tools("", fm.Exec(recallCommand)), fm.Text("Printed it.")}
	}
	var recall fm.Script
	if b.name == "claude" {
		recall = append(recall, fm.Tools("", fm.Call("ToolSearch", map[string]any{
			"query": "select:" + mcpTool("search_sessions") + "," + mcpTool("read_session")})))
	}
	call := func(tool string, input any) fm.ToolCall {
		if b.name == "codex" { // codex offers the server's tools in a namespace
			return fm.ToolCall{Namespace: "mcp__" + agents.HistoryServerName, Name: tool, Input: input}
		}
		return fm.Call(mcpTool(tool), input)
	}
	recall = append(recall,
		fm.Tools("", call("search_sessions", map[string]any{"query": recallWord})),
		fm.Tools("", call("read_session", map[string]any{"session": `{{MATCH:\[(S\d+)#\d+\]}}`})),
		fm.Text(`The earlier session printed {{MATCH:(zephyr\w+)}}, in {{MATCH:\[(S\d+)#\d+\] \*\*result}}.`),
	)
	return []fm.Route{{Contains: "print the word", Script: first}, {Contains: "recall", Script: recall}}
}

// sums hashes the store's folder and the search and insight indexes.
func (h *harness) sums() map[string][32]byte {
	h.t.Helper()
	out := map[string][32]byte{}
	for _, dir := range []string{filepath.Dir(h.store), filepath.Join(h.home, ".cache", "lazuli", "index"), filepath.Join(h.home, ".cache", "lazuli", "insight")} {
		err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			out[p] = sha256.Sum256(b)
			return err
		})
		if err != nil {
			h.t.Fatalf("hash %s: %v", dir, err)
		}
	}
	return out
}

// settledSums is sums once they are before's again, or after 30 s: the
// agent may exit before the `lazuli mcp` it started has closed the index
// files it read, whose -wal and -shm go with their last connection.
func (h *harness) settledSums(before map[string][32]byte) map[string][32]byte {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		after := h.sums()
		if maps.Equal(after, before) || time.Now().After(deadline) {
			return after
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkRecall checks the model's requests of the recall conversation:
// search_sessions found the word in the earlier session, read_session
// returned its transcript.
func checkRecall(t *testing.T, h *harness) {
	t.Helper()
	var results string
	for _, r := range h.srv.Model() {
		if r.Route == 1 {
			results = fm.ToolResults(r) // the last request carries them all
		}
	}
	for _, want := range []string{"# Search: " + recallWord, "[S1#", "lazuli://open?", "**result of", recallWord, "(end of the session)"} {
		if !strings.Contains(results, want) {
			t.Errorf("the tool results lack %q:\n%.3000s", want, results)
		}
	}
}

// TestHistoryMCP: the real claude and codex, given `lazuli mcp` as their
// own configuration would (--print-config's forms), call search_sessions
// for a word only an earlier session holds (in a tool's output), then
// read_session of the hit, and answer with it; the store and its indexes
// are byte for byte as before. Then `lazuli run`, in a project that lets
// agents search its history, gives the agent the same server.
func TestHistoryMCP(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b backend) {
		h := newHarness(t, fm.Script{fm.Text("unrouted")}, recallScripts(b)...)
		if rr, r := h.run(b, "--", "first: print the word"); rr.Error != "" || r.code != 0 {
			t.Fatalf("earlier session:\n%s", r)
		}
		h.ok("reindex", "--store", h.store)
		before := h.sums()

		server := agents.MCPServer{Name: agents.HistoryServerName, Command: []string{lazuliBin, "mcp", "--project", h.work}}
		var cmd *exec.Cmd
		if b.name == "claude" {
			cmd = exec.CommandContext(h.ctx, b.path, "-p", "--verbose", "--output-format", "stream-json", "--dangerously-skip-permissions",
				"--mcp-config", agents.ClaudeMCPConfig(server), "--", "recall: what did the earlier session print?")
		} else {
			args := append([]string{"exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check"}, agents.CodexMCPArgs(server)...)
			cmd = exec.CommandContext(h.ctx, b.path, append(args, "-")...)
			cmd.Stdin = strings.NewReader("recall: what did the earlier session print?")
		}
		cmd.Dir, cmd.Env = h.work, h.env
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "The earlier session printed "+recallWord+", in S1.") {
			t.Fatalf("%s: %v\n%.6000s", b.name, err, out)
		}
		checkRecall(t, h)
		after := h.settledSums(before)
		for p, sum := range before {
			if after[p] != sum {
				t.Errorf("%s changed", p)
			}
		}
		for p := range after {
			if _, ok := before[p]; !ok {
				t.Errorf("%s appeared", p)
			}
		}

		// The same through lazuli run, with the project's switch on.
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
		rr, r := h.run(b, "--", "recall through lazuli run")
		if rr.Error != "" || r.code != 0 {
			t.Fatalf("lazuli run:\n%s", r)
		}
		evs := h.show(rr.Session)
		var called []string
		for _, e := range kinds(evs, "ToolCall") {
			called = append(called, e.field("tool_name"))
		}
		texts := kinds(evs, "AssistantText")
		// claude stores mcp__lazuli__read_session, codex lazuli:read_session.
		if !strings.Contains(strings.Join(called, " "), "read_session") || len(texts) == 0 ||
			!strings.Contains(texts[len(texts)-1].field("text"), recallWord) {
			t.Errorf("lazuli run: calls %v, events:\n%s", called, dumpEvents(evs))
		}
	})
}
