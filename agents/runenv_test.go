package agents

import (
	"encoding/json"
	"strings"
	"testing"
)

var testHist = MCPServer{Name: "lazuli", Command: []string{"/bin/lazuli", "mcp", "--project", "/w"}, Env: map[string]string{"LAZULI_CACHE_DIR": "/c"}}

// TestOpenCodeRunEnv: an OpenCode run gets its MCP servers in
// OPENCODE_CONFIG_CONTENT, merged into a value the environment holds (its
// servers and settings kept); a value that is not JSON is a clear error; a
// run without servers, or sandboxed, gets nothing.
func TestOpenCodeRunEnv(t *testing.T) {
	inv := Invocation{Backend: OpenCode, Env: []string{"PATH=/bin", `OPENCODE_CONFIG_CONTENT={"model":"x/y","mcp":{"mine":{"type":"remote","url":"http://h"}}}`},
		MCPServers: []MCPServer{testHist}}
	env, cleanup, err := inv.Environ()
	if err != nil {
		t.Fatal(err)
	}
	cleanup()
	var cfg struct {
		Model string
		MCP   map[string]struct {
			Type        string
			Command     []string
			Environment map[string]string
			Enabled     bool
		}
	}
	if err := json.Unmarshal([]byte(getenv(env, openCodeConfigEnv)), &cfg); err != nil {
		t.Fatalf("%s: %v", getenv(env, openCodeConfigEnv), err)
	}
	s := cfg.MCP["lazuli"]
	if cfg.Model != "x/y" || cfg.MCP["mine"].Type != "remote" || s.Type != "local" || strings.Join(s.Command, " ") != "/bin/lazuli mcp --project /w" ||
		!s.Enabled || s.Environment["LAZULI_CACHE_DIR"] != "/c" || getenv(env, "PATH") != "/bin" {
		t.Errorf("environment %q", env)
	}
	inv.Env = []string{"OPENCODE_CONFIG_CONTENT={oops"}
	if _, _, err := inv.Environ(); err == nil || !strings.Contains(err.Error(), "OPENCODE_CONFIG_CONTENT is not a JSON object") {
		t.Errorf("bad OPENCODE_CONFIG_CONTENT: err = %v", err)
	}
	for _, inv := range []Invocation{{Backend: OpenCode, Env: []string{"A=1"}}, {Backend: OpenCode, Env: []string{"A=1"}, Sandboxed: true, MCPServers: []MCPServer{testHist}}} {
		if env, _, err := inv.Environ(); err != nil || len(env) != 1 {
			t.Errorf("sandboxed=%v: %q, %v", inv.Sandboxed, env, err)
		}
	}
}
