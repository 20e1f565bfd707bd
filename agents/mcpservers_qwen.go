package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// systemDefaults names where Qwen Code reads its system defaults, the
// lowest layer of its settings: the variable naming the file, the variable
// naming the system settings (beside which the defaults are by default),
// and those settings' folder on each system. (Gemini CLI, which Qwen Code
// forked, reads them only from a root-owned file in root-owned folders no
// one else can write, so a run cannot be given one.)
type systemDefaults struct {
	defaultsEnv, settingsEnv string
	darwin, windows, unix    string // the system settings' folders
}

// qwenDefaults is where Qwen Code reads its system defaults.
var qwenDefaults = systemDefaults{"QWEN_CODE_SYSTEM_DEFAULTS_PATH", "QWEN_CODE_SYSTEM_SETTINGS_PATH",
	"/Library/Application Support/QwenCode", `C:\ProgramData\qwen-code`, "/etc/qwen-code"}

// QwenMCPServers is servers as the mcpServers of Qwen Code's (and Gemini
// CLI's) settings.json.
func QwenMCPServers(servers ...MCPServer) map[string]any {
	m := map[string]any{}
	for _, s := range servers {
		if len(s.Command) == 0 {
			continue
		}
		entry := map[string]any{"command": s.Command[0], "args": append([]string{}, s.Command[1:]...)}
		if len(s.Env) > 0 {
			entry["env"] = s.Env
		}
		m[s.Name] = entry
	}
	return m
}

// path returns the system defaults file the CLI reads in env.
func (d systemDefaults) path(env []string) string {
	if p := getenv(env, d.defaultsEnv); p != "" {
		return p
	}
	if p := getenv(env, d.settingsEnv); p != "" {
		return filepath.Join(filepath.Dir(p), "system-defaults.json")
	}
	dir := d.unix
	switch runtime.GOOS {
	case "darwin":
		dir = d.darwin
	case "windows":
		dir = d.windows
	}
	return filepath.Join(dir, "system-defaults.json")
}

// runEnv gives a run its MCP servers in a system defaults file of its
// own, in scratch: the defaults the CLI would read (kept as they are) with
// the servers added to their mcpServers. The CLI merges mcpServers server
// by server, so the user's and the project's servers are kept (and win
// over one of the same name); no file of the user's is written.
func (d systemDefaults) runEnv(inv Invocation, scratch string) ([]string, error) {
	env := inv.Env
	if env == nil {
		env = os.Environ()
	}
	settings := map[string]any{}
	src := d.path(env)
	if b, err := os.ReadFile(src); err == nil && strings.TrimSpace(string(b)) != "" {
		if err := json.Unmarshal(b, &settings); err != nil {
			return nil, fmt.Errorf("read %s (Lazuli adds its MCP servers to it): %w", src, err)
		}
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", src, err)
	}
	mcp, _ := settings["mcpServers"].(map[string]any)
	if mcp == nil {
		mcp = map[string]any{}
	}
	for k, v := range QwenMCPServers(inv.MCPServers...) {
		if _, taken := mcp[k]; !taken {
			mcp[k] = v
		}
	}
	settings["mcpServers"] = mcp
	b, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode %s's settings: %w", inv.Backend, err)
	}
	p := filepath.Join(scratch, "system-defaults.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		return nil, fmt.Errorf("write %s's settings: %w", inv.Backend, err)
	}
	return []string{d.defaultsEnv + "=" + p}, nil
}
