package cli

// This file is `lazuli mcp`: the project's history as a read-only MCP
// server (package recall/mcpserve), over stdio for an agent CLI, or over
// streamable HTTP on a loopback address; --print-config prints what
// gives it to a user's own claude or codex.

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/recall"
	"github.com/lazuli-app/lazuli/recall/mcpserve"
)

const mcpUsage = "[--project DIR] [--store P]... [--listen 127.0.0.1:PORT] [--print-config claude|codex]"

func runMCP(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("mcp", env)
	var sel storeSelection
	sel.bind(fs)
	listen := fs.String("listen", "", "serve streamable HTTP on this loopback address (127.0.0.1:PORT) with a bearer token printed once, instead of stdio")
	printConfig := fs.String("print-config", "", "print the configuration that gives the server to your own claude or codex, and exit")
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

// printMCPConfig prints, for claude or codex, the command that adds the
// server to the user's own configuration and the one-run form.
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
	quoted := make([]string, len(s.Command))
	for i, a := range s.Command {
		quoted[i] = shellQuote(a)
	}
	switch cli {
	case "claude":
		fmt.Fprintf(env.Stdout, "# add it to claude (this project's scope):\nclaude mcp add %s -- %s\n\n# or for one run:\nclaude --mcp-config %s\n",
			s.Name, strings.Join(quoted, " "), shellQuote(agents.ClaudeMCPConfig(s)))
	case "codex":
		fmt.Fprintf(env.Stdout, "# add it to ~/.codex/config.toml:\n%s\n# or for one run:\ncodex %s\n",
			agents.CodexMCPTable(s), strings.Join(quoteAll(agents.CodexMCPArgs(s)), " "))
	default:
		return usagef("--print-config wants claude or codex, not %q", cli)
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
