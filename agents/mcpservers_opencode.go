package agents

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// openCodeConfigEnv is OpenCode's variable holding inline configuration,
// merged over the user's and the project's opencode.json.
const openCodeConfigEnv = "OPENCODE_CONFIG_CONTENT"

// OpenCodeMCPConfig is servers as the mcp section of OpenCode's
// configuration: local servers, their command one array.
func OpenCodeMCPConfig(servers ...MCPServer) map[string]any {
	m := map[string]any{}
	for _, s := range servers {
		if len(s.Command) == 0 {
			continue
		}
		entry := map[string]any{"type": "local", "command": s.Command, "enabled": true}
		if len(s.Env) > 0 {
			entry["environment"] = s.Env
		}
		m[s.Name] = entry
	}
	return m
}

// openCodeRunEnv gives an OpenCode run its MCP servers in
// OPENCODE_CONFIG_CONTENT: merged into the value the environment already
// holds, whose own servers are kept, or alone. Nothing is written.
func openCodeRunEnv(inv Invocation, _ string) ([]string, error) {
	env := inv.Env
	if env == nil {
		env = os.Environ()
	}
	cfg := map[string]any{}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, openCodeConfigEnv+"="); ok && strings.TrimSpace(v) != "" {
			cfg = map[string]any{}
			if err := json.Unmarshal([]byte(v), &cfg); err != nil {
				return nil, fmt.Errorf("%s is not a JSON object (Lazuli adds its MCP servers to it): %w", openCodeConfigEnv, err)
			}
		}
	}
	mcp, _ := cfg["mcp"].(map[string]any)
	if mcp == nil {
		mcp = map[string]any{}
	}
	for k, v := range OpenCodeMCPConfig(inv.MCPServers...) {
		mcp[k] = v
	}
	cfg["mcp"] = mcp
	b, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", openCodeConfigEnv, err)
	}
	return []string{openCodeConfigEnv + "=" + string(b)}, nil
}
