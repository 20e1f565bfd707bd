package agents

import (
	"encoding/json"
	"os"
	"path/filepath"
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

// TestQwenRunEnv: a Qwen Code run gets a system defaults
// file of their own naming the history server, which keeps the defaults
// the CLI would have read (a server of the same name there wins); the
// file goes with cleanup; a defaults file that is not JSON is a clear
// error, and is left as it was.
func TestQwenRunEnv(t *testing.T) {
	for _, c := range []struct {
		b           Backend
		defaultsEnv string
		settingsEnv string
	}{{Qwen, "QWEN_CODE_SYSTEM_DEFAULTS_PATH", "QWEN_CODE_SYSTEM_SETTINGS_PATH"}} {
		dir := t.TempDir()
		own := filepath.Join(dir, "system-defaults.json") // beside the system settings
		if err := os.WriteFile(own, []byte(`{"ui":{"theme":"x"},"mcpServers":{"theirs":{"command":"t"}}}`), 0o644); err != nil {
			t.Fatal(err)
		}
		inv := Invocation{Backend: c.b, Env: []string{c.settingsEnv + "=" + filepath.Join(dir, "settings.json")}, MCPServers: []MCPServer{testHist}}
		env, cleanup, err := inv.Environ()
		if err != nil {
			t.Fatal(err)
		}
		p := getenv(env, c.defaultsEnv)
		b, err := os.ReadFile(p)
		if err != nil || p == own {
			t.Fatalf("%s: %s = %q: %v", c.b, c.defaultsEnv, p, err)
		}
		var cfg struct {
			UI         struct{ Theme string }
			MCPServers map[string]struct {
				Command string
				Args    []string
				Env     map[string]string
			}
		}
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		s := cfg.MCPServers["lazuli"]
		if cfg.UI.Theme != "x" || cfg.MCPServers["theirs"].Command != "t" || s.Command != "/bin/lazuli" ||
			strings.Join(s.Args, " ") != "mcp --project /w" || s.Env["LAZULI_CACHE_DIR"] != "/c" {
			t.Errorf("%s: defaults %s", c.b, b)
		}
		cleanup()
		if _, err := os.Stat(filepath.Dir(p)); !os.IsNotExist(err) {
			t.Errorf("%s: the scratch folder stays: %v", c.b, err)
		}

		taken := MCPServer{Name: "theirs", Command: []string{"/other"}}
		inv.MCPServers = []MCPServer{taken}
		env, cleanup, err = inv.Environ()
		if err != nil {
			t.Fatal(err)
		}
		b, _ = os.ReadFile(getenv(env, c.defaultsEnv))
		cleanup()
		if !strings.Contains(string(b), `"command": "t"`) || strings.Contains(string(b), "/other") {
			t.Errorf("%s: a server of the user's name replaced theirs: %s", c.b, b)
		}

		if err := os.WriteFile(own, []byte("{oops"), 0o644); err != nil {
			t.Fatal(err)
		}
		inv.Env = []string{c.defaultsEnv + "=" + own}
		if _, _, err := inv.Environ(); err == nil || !strings.Contains(err.Error(), own) {
			t.Errorf("%s: bad defaults: err = %v", c.b, err)
		}
		if b, _ := os.ReadFile(own); string(b) != "{oops" {
			t.Errorf("%s: the defaults file changed: %q", c.b, b)
		}
	}
}

// TestNoMCP: exactly Gemini CLI and Pi say why their runs get no MCP
// servers, and their arguments and environment name none.
func TestNoMCP(t *testing.T) {
	for _, b := range Backends() {
		want := b == Gemini || b == Pi
		if got := b.NoMCP() != ""; got != want {
			t.Errorf("%s: NoMCP() = %q", b, b.NoMCP())
		}
		if !want {
			continue
		}
		inv := Invocation{Backend: b, Prompt: "hi", Env: []string{"A=1"}, MCPServers: []MCPServer{testHist}}
		args, _ := inv.Args()
		env, cleanup, err := inv.Environ()
		cleanup()
		if err != nil || strings.Contains(strings.Join(append(args, env...), " "), "/bin/lazuli") || len(env) != 1 {
			t.Errorf("%s: args %q, env %q, %v", b, args, env, err)
		}
	}
}
