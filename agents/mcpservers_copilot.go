package agents

import "encoding/json"

// CopilotMCPConfig is the value of Copilot CLI's --additional-mcp-config
// holding servers: its mcp-config.json shape, local servers whose every
// tool the run may call. The flag adds the servers to the user's own
// (~/.copilot/mcp-config.json) for this run only.
func CopilotMCPConfig(servers ...MCPServer) string {
	m := map[string]any{}
	for _, s := range servers {
		if len(s.Command) == 0 {
			continue
		}
		entry := map[string]any{"type": "local", "command": s.Command[0],
			"args": append([]string{}, s.Command[1:]...), "tools": []string{"*"}}
		if len(s.Env) > 0 {
			entry["env"] = s.Env
		}
		m[s.Name] = entry
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": m}) // strings only
	return string(b)
}
