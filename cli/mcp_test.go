package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/project"
)

// TestRunGetsHistoryServer: `lazuli run` gives the agent the history
// server (this executable's `mcp --project` of the worktree) only when
// the project lets agents search its history.
func TestRunGetsHistoryServer(t *testing.T) {
	t.Setenv(project.ConfigDirEnv, t.TempDir())
	dir := t.TempDir()
	req, err := parseRunArgs(&Env{Dir: dir}, []string{"fix it"})
	if err != nil || len(req.opts.Turn.MCPServers) != 0 {
		t.Fatalf("off by default: servers %v, %v", req.opts.Turn.MCPServers, err)
	}
	if err := project.SetShareHistory(projectKeyOf(req.path), true); err != nil {
		t.Fatal(err)
	}
	req, err = parseRunArgs(&Env{Dir: dir}, []string{"fix it"})
	if err != nil || len(req.opts.Turn.MCPServers) != 1 {
		t.Fatalf("on: servers %v, %v", req.opts.Turn.MCPServers, err)
	}
	s := req.opts.Turn.MCPServers[0]
	exe, _ := os.Executable()
	if s.Name != "lazuli" || strings.Join(s.Command, " ") != exe+" mcp --project "+worktreeDir(req.path) {
		t.Errorf("server %+v", s)
	}
}

// TestMCPPrintConfig: --print-config prints claude's, Gemini CLI's, Qwen
// Code's and Copilot CLI's `mcp add` command, codex's TOML table and
// OpenCode's configuration for the project, each naming this executable's
// `mcp --project DIR` (e2e TestMCPPrintConfigAgents does them with the
// real CLIs); Pi, which has no MCP client, and another CLI are usage
// errors, and a --listen
// address that is not loopback is refused before anything is opened.
func TestMCPPrintConfig(t *testing.T) {
	dir := t.TempDir()
	exe, _ := os.Executable()
	code, out, errOut := run(t, dir, "mcp", "--print-config", "claude")
	if code != 0 || !strings.Contains(out, "claude mcp add lazuli -- "+shellQuote(exe)+" mcp --project "+shellQuote(dir)) ||
		!strings.Contains(out, "--mcp-config") {
		t.Errorf("claude: exit %d, %q, %q", code, out, errOut)
	}
	code, out, _ = run(t, dir, "mcp", "--print-config", "codex", "--project", "sub")
	if code != 0 || !strings.Contains(out, "[mcp_servers.lazuli]\ncommand = ") || !strings.Contains(out, `"--project", "`+filepath.Join(dir, "sub")+`"`) {
		t.Errorf("codex: exit %d, %q", code, out)
	}
	// The tests' own cache and configuration folders are set: the server
	// is given them.
	q, d := shellQuote(exe), shellQuote(dir)
	for cli, want := range map[string][]string{
		"gemini":   {"gemini mcp add --scope project lazuli " + q + " -e LAZULI_CACHE_DIR=", " -- mcp --project " + d + "\n"},
		"qwen":     {"qwen mcp add --scope project lazuli " + q + " -e LAZULI_CACHE_DIR=", " -- mcp --project " + d + "\n"},
		"opencode": {`"type": "local"`, `"environment": {`, "OPENCODE_CONFIG_CONTENT="},
		"copilot":  {"copilot mcp add lazuli --env LAZULI_CACHE_DIR=", " -- " + q + " mcp --project " + d + "\n", "--additional-mcp-config"},
	} {
		code, out, errOut := run(t, dir, "mcp", "--print-config", cli)
		for _, w := range want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("%s: exit %d, want %q in %q, %q", cli, code, w, out, errOut)
			}
		}
	}
	if code, _, errOut := run(t, dir, "mcp", "--print-config", "pi"); code != ExitUsage || !strings.Contains(errOut, "Pi has no MCP client") {
		t.Errorf("--print-config pi: exit %d, %q", code, errOut)
	}
	if code, _, errOut := run(t, dir, "mcp", "--print-config", "vim"); code != ExitUsage {
		t.Errorf("--print-config vim: exit %d, %q", code, errOut)
	}
	for _, addr := range []string{"0.0.0.0:7000", "10.0.0.1:80"} {
		if code, _, errOut := run(t, dir, "mcp", "--listen", addr); code != ExitUsage || !strings.Contains(errOut, "not a loopback address") {
			t.Errorf("--listen %s: exit %d, %q", addr, code, errOut)
		}
	}
	if code, _, errOut := run(t, dir, "mcp"); code != ExitError || !strings.Contains(errOut, "no session") {
		t.Errorf("a folder without stores: exit %d, %q", code, errOut)
	}
}

// TestShellQuote: what --print-config prints is read back by a shell as
// the same words.
func TestShellQuote(t *testing.T) {
	for _, s := range []string{"plain", "/a b/c", `it's`, `$(rm -rf /)`, "", `"q"`, "tab\tnew\nline"} {
		got, err := exec.Command("sh", "-c", `printf %s `+shellQuote(s)).Output()
		if err != nil || string(got) != s {
			t.Errorf("shellQuote(%q) = %s reads back %q, %v", s, shellQuote(s), got, err)
		}
	}
}
