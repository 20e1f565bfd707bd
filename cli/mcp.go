package cli

// This file is `lazuli mcp`: the project's history as a read-only MCP
// server (package recall/mcpserve), over stdio for an agent CLI, or over
// streamable HTTP on a loopback address; --print-config prints what
// gives it to a user's own agent CLI.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/recall"
	"github.com/lazuli-app/lazuli/recall/mcpserve"
)

const mcpUsage = "[--project DIR] [--store P]... [--listen 127.0.0.1:PORT] [--print-config " + mcpConfigCLIs + "]"

// mcpConfigCLIs are the CLIs --print-config tells how to give the server
// to: every backend but Pi, which has no MCP client.
const mcpConfigCLIs = "claude|codex|gemini|qwen|opencode|copilot"

func runMCP(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("mcp", env)
	var sel storeSelection
	sel.bind(fs)
	listen := fs.String("listen", "", "serve streamable HTTP on this loopback address (127.0.0.1:PORT) with a bearer token printed once, instead of stdio")
	printConfig := fs.String("print-config", "", "print the configuration that gives the server to your own "+
		strings.ReplaceAll(mcpConfigCLIs, "|", ", ")+", and exit")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *printConfig != "" {
		return printMCPConfig(env, &sel, *printConfig)
	}
	if *listen != "" {
		if err := mcpserve.CheckLoopback(*listen); err != nil {
			return usagef("--listen: %v", err)
		}
	}
	paths, explicit, err := sel.paths(env)
	if err != nil {
		return err
	}
	paths = existing(paths, explicit)
	if len(paths) == 0 {
		return fmt.Errorf("no session store: the project has no sessions yet")
	}
	h, err := recall.Open(ctx, paths)
	if err != nil {
		return err
	}
	defer h.Close()
	version := mcpVersion()
	if *listen == "" {
		return mcpserve.Serve(ctx, h, version, io.NopCloser(os.Stdin), nopWriteCloser{env.Stdout})
	}
	token, err := mcpserve.NewToken()
	if err != nil {
		return err
	}
	return mcpserve.ServeHTTP(ctx, h, version, *listen, token, func(url string) {
		fmt.Fprintf(env.Stderr, "lazuli mcp: serving %d stores at %s\nbearer token (shown once): %s\n", len(paths), url, token)
	})
}

// existing leaves out the stores a project's worktrees do not have yet;
// an explicit --store that does not exist stays, for recall.Open to name.
func existing(paths []string, explicit bool) []string {
	if explicit {
		return paths
	}
	var out []string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// mcpVersion is the server's version as it introduces itself (the app's
// version lives in main; mcp-permissions says "lazuli" too).
func mcpVersion() string { return "lazuli" }

// HistoryServers is the servers a run in the worktree dir gets: the
// history server when the project lets agents search its history (the
// Settings › Agents switch, project.ShareHistory), else none.
func HistoryServers(dir, key string) ([]agents.MCPServer, error) {
	on, err := project.ShareHistory(key)
	if err != nil || !on {
		return nil, err
	}
	s, err := agents.HistoryServer(dir)
	if err != nil {
		return nil, err
	}
	return []agents.MCPServer{s}, nil
}

// printMCPConfig prints, for the CLI named cli, the command or the
// configuration that adds the server to the user's own setup, and the
// one-run form where the CLI has one. Each form was checked with the real
// CLI (e2e TestMCPPrintConfigAgents).
func printMCPConfig(env *Env, sel *storeSelection, cli string) error {
	s, err := agents.HistoryServer(sel.projectDir(env))
	if err != nil {
		return err
	}
	if len(sel.stores) > 0 {
		s.Command = s.Command[:2]
		for _, p := range sel.stores {
			path, err := StorePath(env.Dir, p)
			if err != nil {
				return err
			}
			s.Command = append(s.Command, "--store", path)
		}
	}
	quoted := quoteAll(s.Command)
	envFlags := func(flag string) string {
		var b strings.Builder
		for _, k := range slices.Sorted(maps.Keys(s.Env)) {
			b.WriteString(" " + flag + " " + shellQuote(k+"="+s.Env[k]))
		}
		return b.String()
	}
	w := env.Stdout
	switch cli {
	case "claude":
		fmt.Fprintf(w, "# add it to claude (this project's scope):\nclaude mcp add %s -- %s\n\n# or for one run:\nclaude --mcp-config %s\n",
			s.Name, strings.Join(quoted, " "), shellQuote(agents.ClaudeMCPConfig(s)))
	case "codex":
		fmt.Fprintf(w, "# add it to ~/.codex/config.toml:\n%s\n# or for one run:\ncodex %s\n",
			agents.CodexMCPTable(s), strings.Join(quoteAll(agents.CodexMCPArgs(s)), " "))
	case "gemini", "qwen":
		fmt.Fprintf(w, "# add it to %s (this project's scope: .%s/settings.json)", cli, cli)
		if cli == "qwen" {
			fmt.Fprint(w, "; Qwen Code asks you to approve it the first time it starts in the project")
		}
		settings, _ := json.MarshalIndent(map[string]any{"mcpServers": agents.QwenMCPServers(s)}, "", "  ") // strings only
		fmt.Fprintf(w, ":\n%s mcp add --scope project %s %s%s -- %s\n\n# or put it in .%s/settings.json yourself:\n%s\n",
			cli, s.Name, quoted[0], envFlags("-e"), strings.Join(quoted[1:], " "), cli, settings)
	case "opencode":
		file, _ := json.MarshalIndent(map[string]any{"$schema": "https://opencode.ai/config.json",
			"mcp": agents.OpenCodeMCPConfig(s)}, "", "  ") // strings only
		run, _ := json.Marshal(map[string]any{"mcp": agents.OpenCodeMCPConfig(s)})
		fmt.Fprintf(w, "# add it to the project's opencode.json:\n%s\n\n# or for one run:\nOPENCODE_CONFIG_CONTENT=%s opencode\n",
			file, shellQuote(string(run)))
	case "copilot":
		fmt.Fprintf(w, "# add it to copilot (~/.copilot/mcp-config.json):\ncopilot mcp add %s%s -- %s\n\n# or for one run:\ncopilot --additional-mcp-config %s\n",
			s.Name, envFlags("--env"), strings.Join(quoted, " "), shellQuote(agents.CopilotMCPConfig(s)))
	case "pi":
		return usagef("--print-config: Pi has no MCP client, so it cannot be given the server (it takes %s)", mcpConfigCLIs)
	default:
		return usagef("--print-config wants one of %s, not %q", mcpConfigCLIs, cli)
	}
	return nil
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shellQuote(s)
	}
	return out
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:@,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
