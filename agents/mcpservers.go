package agents

// This file gives an agent run the MCP servers Lazuli adds to it (the
// project's history, `lazuli mcp`), in each CLI's own configuration
// syntax: claude's --mcp-config JSON (one config, shared with the
// permission prompt's server) and codex's -c mcp_servers.NAME overrides.

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
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
	return MCPServer{Name: HistoryServerName, Command: []string{exe, "mcp", "--project", abs}, Env: lazuliEnv()}, nil
}

// lazuliEnvVars are the variables that say where Lazuli's folders are
// (store.CacheDirEnv, project.ConfigDirEnv): a history server must read the
// indexes and the settings the run's Lazuli uses. codex hands its MCP
// servers only a few variables of its own environment, so they are given
// in the server's configuration.
var lazuliEnvVars = []string{"LAZULI_CACHE_DIR", "LAZULI_CONFIG_DIR"}

// lazuliEnv returns the lazuliEnvVars set in this process, or nil.
func lazuliEnv() map[string]string {
	var env map[string]string
	for _, k := range lazuliEnvVars {
		if v := os.Getenv(k); v != "" {
			if env == nil {
				env = map[string]string{}
			}
			env[k] = v
		}
	}
	return env
}

// MCPServer is a stdio MCP server an agent run gets: the CLI starts
// Command and calls its tools, as mcp__NAME__TOOL in claude.
type MCPServer struct {
	Name    string            // a key of the CLI's server table: letters, digits, _ and -
	Command []string          // the executable and its arguments
	Env     map[string]string // variables set for the server; nil for none
}

// ClaudeMCPConfig is the value of claude's --mcp-config holding servers.
func ClaudeMCPConfig(servers ...MCPServer) string {
	m := map[string]any{}
	for _, s := range servers {
		if len(s.Command) > 0 {
			entry := map[string]any{"command": s.Command[0], "args": append([]string{}, s.Command[1:]...)}
			if len(s.Env) > 0 {
				entry["env"] = s.Env
			}
			m[s.Name] = entry
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
		if len(s.Env) > 0 {
			args = append(args, "-c", "mcp_servers."+s.Name+".env="+tomlTable(s.Env))
		}
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
		if len(s.Env) > 0 {
			b.WriteString("env = " + tomlTable(s.Env) + "\n")
		}
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

// tomlTable is env as a TOML inline table, keys sorted.
func tomlTable(env map[string]string) string {
	keys := slices.Sorted(maps.Keys(env))
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = tomlString(k) + " = " + tomlString(env[k])
	}
	return "{ " + strings.Join(q, ", ") + " }"
}

func tomlStrings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = tomlString(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
