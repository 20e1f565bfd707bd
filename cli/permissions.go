package cli

// This file holds `lazuli permissions`, which shows and edits a session's
// permission mode and rules (or the project's defaults), and the hidden
// `lazuli mcp-permissions`, the MCP server claude runs as its permission
// prompt tool.

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/permprompt"
	"github.com/lazuli-app/lazuli/permprompt/mcpserve"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/store"
)

// MCPPermissionsCommand is the hidden subcommand that serves the MCP
// permission prompt tool on stdin and stdout.
const MCPPermissionsCommand = "mcp-permissions"

// runMCPPermissions serves the permission prompt tool until claude hangs
// up, forwarding each request to the Lazuli listening on --socket (or
// $LAZULI_PERMISSION_SOCKET).
func runMCPPermissions(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(MCPPermissionsCommand, env)
	socket := fs.String("socket", os.Getenv(permprompt.SocketEnv), "the socket of the Lazuli that answers")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if *socket == "" {
		return usagef("--socket is required")
	}
	return mcpserve.Serve(ctx, *socket, "lazuli", io.NopCloser(os.Stdin), nopWriteCloser{os.Stdout})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// permissionsJSON is what `lazuli permissions --json` prints.
type permissionsJSON struct {
	Session int64 `json:"session,omitempty"`
	// Mode and Rules are the session's own (or, with --project, the
	// project's defaults).
	Mode  string                 `json:"mode"`
	Rules []store.PermissionRule `json:"rules"`
	// Project holds the project's defaults; Effective what a run follows.
	Project        *store.Permissions `json:"project,omitempty"`
	EffectiveMode  string             `json:"effective_mode"`
	EffectiveRules []ruleJSON         `json:"effective_rules"`
	// Unexpressed lists, by backend, what of the effective settings its
	// CLI cannot apply (every backend, [] when nothing);
	// CodexUnexpressed is codex's, kept under its first name.
	Unexpressed      map[string][]string `json:"unexpressed"`
	CodexUnexpressed []string            `json:"codex_unexpressed"`
}

// ruleJSON is a rule with claude's spelling of it.
type ruleJSON struct {
	store.PermissionRule
	Rule string `json:"rule"`
}

func runPermissions(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("permissions", env)
	storeArg := fs.String("store", "", "store file or folder")
	projectWide := fs.Bool("project", false, "the project's defaults instead of a session's")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	var st *store.Store
	var sess store.Session
	if !*projectWide {
		if len(pos) == 0 {
			return usagef("want SESSION, or --project for the project's defaults")
		}
		if st, sess, err = openSession(ctx, env, *storeArg, pos[0], false); err != nil {
			return err
		}
		defer st.Close()
		pos = pos[1:]
	}
	path, err := StorePath(env.Dir, *storeArg)
	if err != nil {
		return err
	}
	key := projectKeyOf(path)
	projectPerms, err := project.DefaultPermissions(key)
	if err != nil {
		return err
	}
	own := projectPerms
	if st != nil {
		if own, err = st.Permissions().Of(ctx, sess.ID); err != nil {
			return err
		}
	}
	if len(pos) > 0 {
		source := agents.SourceSession
		if st == nil {
			source = agents.SourceProject
		}
		if own, err = editPermissions(own, pos, source); err != nil {
			return err
		}
		if st != nil {
			err = st.Permissions().Set(ctx, sess.ID, own)
		} else {
			err = project.SetDefaultPermissions(key, own)
		}
		if err != nil {
			return err
		}
		projectPerms, _ = project.DefaultPermissions(key)
	}
	out := permissionsJSON{Mode: own.Mode, Rules: own.Rules}
	eff := agents.EffectivePermissions(projectPerms, store.Permissions{})
	if st != nil {
		out.Session = sess.ID
		if projectPerms.Rules == nil {
			projectPerms.Rules = []store.PermissionRule{}
		}
		out.Project = &projectPerms
		eff = agents.EffectivePermissions(projectPerms, own)
	}
	if out.Rules == nil {
		out.Rules = []store.PermissionRule{}
	}
	out.EffectiveMode = string(eff.Mode)
	out.EffectiveRules = []ruleJSON{}
	for _, r := range eff.Rules {
		out.EffectiveRules = append(out.EffectiveRules, ruleJSON{PermissionRule: r, Rule: agents.RuleSpec(r)})
	}
	out.CodexUnexpressed = append([]string{}, agents.CodexUnexpressed(eff)...)
	out.Unexpressed = map[string][]string{}
	for _, b := range agents.Backends() {
		out.Unexpressed[string(b)] = append([]string{}, b.Unexpressed(eff)...)
	}
	if *asJSON {
		return writeJSON(env.Stdout, out)
	}
	printPermissions(env.Stdout, out, eff)
	return nil
}

// editPermissions applies `mode MODE`, `add ACTION RULE` or
// `rm ACTION RULE|N` to p.
func editPermissions(p store.Permissions, pos []string, source string) (store.Permissions, error) {
	switch verb := pos[0]; {
	case verb == "mode" && len(pos) == 2:
		if pos[1] == "inherit" || pos[1] == "project" {
			p.Mode = ""
			return p, nil
		}
		m, err := agents.ParsePermissionMode(pos[1])
		if err != nil {
			return p, usagef("%v", err)
		}
		p.Mode = string(m)
	case verb == "add" && len(pos) == 3:
		r, err := agents.ParseRule(pos[1], pos[2])
		if err != nil {
			return p, usagef("%v", err)
		}
		r.Source, r.AddedAt = source, time.Now().UTC().Format(store.TimeFormat)
		for _, old := range p.Rules {
			if agents.RuleSpec(old) == agents.RuleSpec(r) && old.Action == r.Action {
				return p, nil
			}
		}
		p.Rules = append(p.Rules, r)
	case verb == "rm" && len(pos) == 2:
		n, err := strconv.Atoi(pos[1])
		if err != nil || n < 1 || n > len(p.Rules) {
			return p, usagef("no rule %q: give its number (1 to %d) or ACTION RULE", pos[1], len(p.Rules))
		}
		p.Rules = append(p.Rules[:n-1:n-1], p.Rules[n:]...)
	case verb == "rm" && len(pos) == 3:
		r, err := agents.ParseRule(pos[1], pos[2])
		if err != nil {
			return p, usagef("%v", err)
		}
		kept := p.Rules[:0:0]
		for _, old := range p.Rules {
			if !(agents.RuleSpec(old) == agents.RuleSpec(r) && old.Action == r.Action) {
				kept = append(kept, old)
			}
		}
		if len(kept) == len(p.Rules) {
			return p, fmt.Errorf("no rule %s %s", r.Action, agents.RuleSpec(r))
		}
		p.Rules = kept
	default:
		return p, usagef("want mode MODE, add allow|deny|ask RULE, or rm allow|deny|ask RULE | rm N")
	}
	return p, nil
}

// printPermissions prints the mode and the numbered rules.
func printPermissions(w io.Writer, out permissionsJSON, eff agents.Policy) {
	if out.Session != 0 {
		own := "(the project's)"
		if out.Mode != "" {
			own = "(this session's)"
		}
		fmt.Fprintf(w, "S%d mode: %s %s\n", out.Session, agents.PermissionMode(out.EffectiveMode).Title(), own)
	} else {
		fmt.Fprintf(w, "project mode: %s\n", agents.PermissionMode(out.EffectiveMode).Title())
	}
	own := 0
	for _, r := range eff.Rules {
		mark := ""
		if r.Source == agents.SourceSession || out.Session == 0 {
			own++
			mark = strconv.Itoa(own) + "."
		}
		fmt.Fprintf(w, "  %-3s %-5s %s  (%s)\n", mark, r.Action, printable.Line(agents.RuleSpec(r)), r.Source)
	}
	if len(eff.Rules) == 0 {
		fmt.Fprintln(w, "  no rules")
	}
	for _, b := range agents.Backends() {
		for _, s := range out.Unexpressed[string(b)] {
			fmt.Fprintf(w, "  %s: %s\n", b, printable.Line(s))
		}
	}
}

// projectKeyOf is the project key (project.Key) of the store at path.
func projectKeyOf(path string) string {
	dir := worktreeDir(path)
	if _, err := os.Stat(dir); err != nil {
		return path
	}
	wts, err := project.Resolve(dir)
	if err != nil || len(wts) == 0 {
		return dir
	}
	return project.Key(wts)
}

// runAsker answers an agent's permission prompts in `lazuli run`: allow
// with yes, else deny; each is said on stderr.
func runAsker(errW io.Writer, yes bool) func(context.Context, agents.PermissionRequest) agents.PermissionAnswer {
	return func(_ context.Context, r agents.PermissionRequest) agents.PermissionAnswer {
		if yes {
			fmt.Fprintf(errW, "lazuli: allowed %s (--yes)\n", printable.Line(r.Summary()))
			return agents.AnswerAllow
		}
		fmt.Fprintf(errW, "lazuli: denied %s (the session's mode asks; run with --yes to allow)\n", printable.Line(r.Summary()))
		return agents.AnswerDeny
	}
}

// permissionsUsage is the usage line of `lazuli permissions`.
var permissionsUsage = strings.Join([]string{
	"[--store P] SESSION | --project [--json]",
	"[mode bypass|acceptEdits|plan|ask|inherit | add allow|deny|ask RULE | rm allow|deny|ask RULE | rm N]",
}, " ")
