package agents

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestMCPServersArgs: claude gets one --mcp-config holding the
// permission prompt's server and the history server (or the history
// server alone in bypass mode); codex gets -c overrides whose values are
// TOML strings, quotes and backslashes escaped; a sandboxed run
// (compaction) gets none.
func TestMCPServersArgs(t *testing.T) {
	hist := MCPServer{Name: "lazuli", Command: []string{`/opt/my "lazuli"\bin`, "mcp", "--project", "/w"}}
	prompt := &PromptTool{Server: []string{"/bin/lazuli", "mcp-permissions"}, Socket: "/tmp/s", Tool: "mcp__lazuli_permissions__permission_prompt"}
	config := func(args []string) map[string]map[string]any {
		t.Helper()
		var n int
		var cfg struct{ MCPServers map[string]map[string]any }
		for i, a := range args {
			if a == "--mcp-config" {
				n++
				if err := json.Unmarshal([]byte(args[i+1]), &cfg); err != nil {
					t.Fatalf("--mcp-config %q: %v", args[i+1], err)
				}
			}
		}
		if n != 1 {
			t.Fatalf("%d --mcp-config flags in %q, want 1", n, args)
		}
		return cfg.MCPServers
	}
	inv := Invocation{Backend: Claude, Prompt: "hi", Permissions: Policy{Mode: ModeAsk}, PromptTool: prompt, MCPServers: []MCPServer{hist}}
	args, _ := inv.Args()
	servers := config(args)
	if len(servers) != 2 || servers["lazuli"]["command"] != hist.Command[0] || servers["lazuli_permissions"]["command"] != "/bin/lazuli" {
		t.Errorf("claude's servers = %v", servers)
	}
	if !slices.Contains(args, "--permission-prompt-tool") {
		t.Errorf("claude args %q lack the prompt tool", args)
	}
	inv.Permissions = Policy{Mode: ModeBypass}
	args, _ = inv.Args()
	if servers := config(args); len(servers) != 1 || servers["lazuli"] == nil || slices.Contains(args, "--permission-prompt-tool") {
		t.Errorf("bypass: servers %v, args %q", servers, args)
	}

	codex := Invocation{Backend: Codex, Dir: t.TempDir(), MCPServers: []MCPServer{hist}}
	args, _ = codex.Args()
	joined := strings.Join(args, " ")
	want := `-c mcp_servers.lazuli.command="/opt/my \"lazuli\"\\bin" -c mcp_servers.lazuli.args=["mcp", "--project", "/w"]`
	if !strings.Contains(joined, want) {
		t.Errorf("codex args %s\nwant %s", joined, want)
	}
	for _, inv := range []Invocation{{Backend: Codex, Sandboxed: true, MCPServers: []MCPServer{hist}}, {Backend: Claude, Sandboxed: true, MCPServers: []MCPServer{hist}}} {
		if args, _ := inv.Args(); strings.Contains(strings.Join(args, " "), "lazuli") {
			t.Errorf("sandboxed %s run gets %q", inv.Backend, args)
		}
	}
	if got := CodexMCPTable(hist); got != "[mcp_servers.lazuli]\ncommand = \"/opt/my \\\"lazuli\\\"\\\\bin\"\nargs = [\"mcp\", \"--project\", \"/w\"]\n" {
		t.Errorf("CodexMCPTable() = %q", got)
	}
}

// TestHistoryServerEnv: the folders the run's Lazuli uses reach the
// history server in both CLIs' configurations (codex passes its servers
// only a few variables of its own).
func TestHistoryServerEnv(t *testing.T) {
	t.Setenv("LAZULI_CACHE_DIR", "/c/cache")
	t.Setenv("LAZULI_CONFIG_DIR", "")
	s, err := HistoryServer("/w")
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"LAZULI_CACHE_DIR": "/c/cache"}; !maps.Equal(s.Env, want) {
		t.Errorf("HistoryServer().Env = %v, want %v", s.Env, want)
	}
	var cfg struct {
		MCPServers map[string]struct{ Env map[string]string }
	}
	if err := json.Unmarshal([]byte(ClaudeMCPConfig(s)), &cfg); err != nil || cfg.MCPServers["lazuli"].Env["LAZULI_CACHE_DIR"] != "/c/cache" {
		t.Errorf("ClaudeMCPConfig() = %s (%v), want the env", ClaudeMCPConfig(s), err)
	}
	if args := strings.Join(CodexMCPArgs(s), " "); !strings.Contains(args, `-c mcp_servers.lazuli.env={ "LAZULI_CACHE_DIR" = "/c/cache" }`) {
		t.Errorf("CodexMCPArgs() = %s, want the env table", args)
	}
	if table := CodexMCPTable(s); !strings.Contains(table, `env = { "LAZULI_CACHE_DIR" = "/c/cache" }`) {
		t.Errorf("CodexMCPTable() = %s, want the env table", table)
	}
}

// TestCopilotMCPArgs: a Copilot run gets one --additional-mcp-config
// holding the history server as a local server with every tool and its
// env; a sandboxed run gets none.
func TestCopilotMCPArgs(t *testing.T) {
	hist := MCPServer{Name: "lazuli", Command: []string{"/bin/lazuli", "mcp", "--project", "/w"}, Env: map[string]string{"LAZULI_CACHE_DIR": "/c"}}
	args, _ := Invocation{Backend: Copilot, Prompt: "hi", MCPServers: []MCPServer{hist}}.Args()
	i := slices.Index(args, "--additional-mcp-config")
	if i < 0 || slices.Contains(args[i+1:], "--additional-mcp-config") {
		t.Fatalf("copilot args %q, want one --additional-mcp-config", args)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Type, Command string
			Args, Tools   []string
			Env           map[string]string
		}
	}
	if err := json.Unmarshal([]byte(args[i+1]), &cfg); err != nil {
		t.Fatalf("--additional-mcp-config %q: %v", args[i+1], err)
	}
	s := cfg.MCPServers["lazuli"]
	if len(cfg.MCPServers) != 1 || s.Type != "local" || s.Command != "/bin/lazuli" || !slices.Equal(s.Args, hist.Command[1:]) ||
		!slices.Equal(s.Tools, []string{"*"}) || s.Env["LAZULI_CACHE_DIR"] != "/c" {
		t.Errorf("copilot's servers = %+v", cfg.MCPServers)
	}
	for _, inv := range []Invocation{{Backend: Copilot, Prompt: "hi"}, {Backend: Copilot, Prompt: "hi", Sandboxed: true, MCPServers: []MCPServer{hist}}} {
		if args, _ := inv.Args(); slices.Contains(args, "--additional-mcp-config") {
			t.Errorf("sandboxed=%v, %d servers: args %q", inv.Sandboxed, len(inv.MCPServers), args)
		}
	}
}
