package agents

// This file gives an agent run the MCP servers Lazuli adds to it (the
// project's history, `lazuli mcp`), in each CLI's own configuration
// syntax: claude's --mcp-config JSON (one config, shared with the
// permission prompt's server) and codex's -c mcp_servers.NAME overrides.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// HistoryServerName is the history server's name in an agent's MCP
// configuration (recall/mcpserve.ServerName): claude calls its tools
// mcp__lazuli__search_sessions and so on.
const HistoryServerName = "lazuli"

// HistoryServer is the MCP server that gives an agent run the history of
// the project of dir: this executable's `lazuli mcp --project DIR`.
func HistoryServer(dir string) (MCPServer, error) {
	exe, err := os.Executable()
	if err != nil {
		return MCPServer{}, fmt.Errorf("find lazuli's executable for the history server: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return MCPServer{}, fmt.Errorf("history server of %s: %w", dir, err)
	}
	return MCPServer{Name: HistoryServerName, Command: []string{exe, "mcp", "--project", abs}}, nil
}

// MCPServer is a stdio MCP server an agent run gets: the CLI starts
// Command and calls its tools, as mcp__NAME__TOOL in claude.
type MCPServer struct {
	Name    string   // a key of the CLI's server table: letters, digits, _ and -
	Command []string // the executable and its arguments
}

// ClaudeMCPConfig is the value of claude's --mcp-config holding servers.
func ClaudeMCPConfig(servers ...MCPServer) string {
	m := map[string]any{}
	for _, s := range servers {
		if len(s.Command) > 0 {
			m[s.Name] = map[string]any{"command": s.Command[0], "args": append([]string{}, s.Command[1:]...)}
		}
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": m}) // strings only
	return string(b)
}

// CodexMCPArgs are the `-c` overrides that give codex servers
// (mcp_servers.NAME.command and .args, TOML values).
func CodexMCPArgs(servers ...MCPServer) []string {
	var args []string
	for _, s := range servers {
		if len(s.Command) == 0 {
			continue
		}
		args = append(args, "-c", "mcp_servers."+s.Name+".command="+tomlString(s.Command[0]),
			"-c", "mcp_servers."+s.Name+".args="+tomlStrings(s.Command[1:]))
	}
	return args
}

// CodexMCPTable is servers as the TOML tables of codex's config.toml.
func CodexMCPTable(servers ...MCPServer) string {
	var b strings.Builder
	for _, s := range servers {
		if len(s.Command) == 0 {
			continue
		}
		b.WriteString("[mcp_servers." + s.Name + "]\ncommand = " + tomlString(s.Command[0]) + "\nargs = " + tomlStrings(s.Command[1:]) + "\n")
	}
	return b.String()
}

// tomlString is s as a TOML basic string: JSON's escapes are TOML's for
// every character a path or an argument holds (TOML has no \/, and
// json.Marshal writes none).
func tomlString(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(b))
}

func tomlStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
