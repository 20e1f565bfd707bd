package agents

// This file maps a session's permission mode and rules (store.Permissions,
// the AI-SDK rule shape) onto what each CLI can do, honestly:
//
//	mode         claude                                   codex exec
//	bypass       --dangerously-skip-permissions           --dangerously-bypass-approvals-and-sandbox
//	acceptEdits  --permission-mode acceptEdits            --sandbox workspace-write, approval_policy never
//	plan         --permission-mode plan                   --sandbox read-only, approval_policy never
//	ask          --permission-mode default                --sandbox read-only, approval_policy never
//
// Claude's rules become --allowedTools, --disallowedTools and, for "ask"
// rules, a --settings permissions.ask list; claude's prompts (in every mode
// but bypass) are answered by Lazuli through --permission-prompt-tool when
// the caller can answer them. Codex exec cannot ask anyone and has no
// per-tool rules: its "ask" runs read-only, and every rule is reported by
// CodexUnexpressed so that the settings show it as not applied, never
// dropped silently.
//
// As root claude refuses bypass (--dangerously-skip-permissions exits
// before any request) unless the user's environment declares a sandbox;
// Lazuli never sets the variables that defeat that check and runs it in
// acceptEdits instead, the most permissive mode claude accepts as root,
// saying so once.

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/permprompt"
	"github.com/lazuli-app/lazuli/store"
)

// PermissionMode is how freely an agent may act.
type PermissionMode string

// The modes, from most to least permissive.
const (
	ModeBypass      PermissionMode = "bypass"      // act without asking (AZUREAL's "Ignore"; the default)
	ModeAcceptEdits PermissionMode = "acceptEdits" // edit files without asking; ask for the rest
	ModePlan        PermissionMode = "plan"        // read and plan; change nothing
	ModeAsk         PermissionMode = "ask"         // ask before anything not allowed by a rule
)

// PermissionModes lists the modes in menu order.
var PermissionModes = []PermissionMode{ModeBypass, ModeAcceptEdits, ModePlan, ModeAsk}

// ParsePermissionMode returns the mode named s (case-insensitive; also
// "accept-edits", "read-only" for plan, "default" for ask).
func ParsePermissionMode(s string) (PermissionMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "bypass", "bypasspermissions", "ignore":
		return ModeBypass, nil
	case "acceptedits", "accept-edits", "accept_edits":
		return ModeAcceptEdits, nil
	case "plan", "read-only", "readonly":
		return ModePlan, nil
	case "ask", "default", "manual":
		return ModeAsk, nil
	}
	return "", fmt.Errorf("unknown permission mode %q (want bypass, acceptEdits, plan or ask)", s)
}

// Title is the mode's display name.
func (m PermissionMode) Title() string {
	switch m {
	case ModeAcceptEdits:
		return "Accept edits"
	case ModePlan:
		return "Plan (read-only)"
	case ModeAsk:
		return "Ask"
	}
	return "Bypass"
}

// The actions and sources of a rule.
const (
	ActionAllow = "allow"
	ActionDeny  = "deny"
	ActionAsk   = "ask"

	SourceSession = "session"
	SourceProject = "project"
)

// ParseRule reads a rule written as claude writes them, "Bash(git *)" or
// "Edit", with action allow, deny or ask.
func ParseRule(action, spec string) (store.PermissionRule, error) {
	action = strings.ToLower(strings.TrimSpace(action))
	if action != ActionAllow && action != ActionDeny && action != ActionAsk {
		return store.PermissionRule{}, fmt.Errorf("unknown action %q (want allow, deny or ask)", action)
	}
	spec = strings.TrimSpace(spec)
	tool, pattern := spec, ""
	if i := strings.IndexByte(spec, '('); i >= 0 {
		if !strings.HasSuffix(spec, ")") {
			return store.PermissionRule{}, fmt.Errorf("rule %q: want Tool or Tool(pattern)", spec)
		}
		tool, pattern = strings.TrimSpace(spec[:i]), spec[i+1:len(spec)-1]
	}
	if tool == "" || strings.ContainsAny(tool, " ,()") {
		return store.PermissionRule{}, fmt.Errorf("rule %q: want Tool or Tool(pattern)", spec)
	}
	if pattern == "*" {
		pattern = ""
	}
	return store.PermissionRule{Permission: tool, Pattern: pattern, Action: action}, nil
}

// RuleSpec writes r as claude reads it: "Bash(git *)", or "Edit" for a rule
// that covers every use of the tool.
func RuleSpec(r store.PermissionRule) string {
	if r.Pattern == "" {
		return r.Permission
	}
	return r.Permission + "(" + r.Pattern + ")"
}

// Policy is what a run follows: the mode and the rules that apply, the
// session's first.
type Policy struct {
	Mode  PermissionMode
	Rules []store.PermissionRule
	// Dir is the session's worktree: relative path patterns are anchored
	// there and never match outside it. Empty, they match nothing.
	Dir string
}

// EffectivePermissions merges a project's defaults and a session's own
// settings: the session's mode wins when it has one (bypass when neither
// has), and a session rule overrides the project rule for the same tool
// and pattern. An unknown stored mode counts as ask, the safest.
func EffectivePermissions(project, session store.Permissions) Policy {
	p := Policy{Mode: ModeBypass}
	for _, m := range []string{project.Mode, session.Mode} {
		if m == "" {
			continue
		}
		mode, err := ParsePermissionMode(m)
		if err != nil {
			mode = ModeAsk
		}
		p.Mode = mode
	}
	seen := map[string]bool{}
	for _, r := range session.Rules {
		r.Source = SourceSession
		seen[RuleSpec(r)] = true
		p.Rules = append(p.Rules, r)
	}
	for _, r := range project.Rules {
		if seen[RuleSpec(r)] {
			continue
		}
		r.Source = SourceProject
		p.Rules = append(p.Rules, r)
	}
	return p
}

// claudeMode is the mode claude runs in for p, as root or not.
func claudeMode(m PermissionMode, root bool) PermissionMode {
	if m == ModeBypass && root {
		return ModeAcceptEdits
	}
	return m
}

// RootNotice is what Lazuli says, once, when it runs claude as root in a
// session whose mode is bypass.
const RootNotice = "Running as root: Claude refuses to bypass permissions for root, so Lazuli runs it in Accept edits mode " +
	"(file edits are allowed; other tools ask through Lazuli)."

// PromptTool is how claude reaches Lazuli's permission prompt tool.
type PromptTool struct {
	Server []string // the MCP server's command line, before "--socket S"
	Socket string
	Tool   string // the --permission-prompt-tool value
}

// claudePermissionArgs returns claude's flags for p, with the MCP
// configuration of the prompt tool and the extra servers.
func claudePermissionArgs(p Policy, root bool, prompt *PromptTool, extra []MCPServer) []string {
	mode := claudeMode(p.Mode, root)
	var args []string
	switch mode {
	case ModeBypass:
		args = append(args, "--dangerously-skip-permissions")
	case ModeAcceptEdits, ModePlan:
		args = append(args, "--permission-mode", string(mode))
	default:
		args = append(args, "--permission-mode", "default")
	}
	var allow, deny, ask []string
	for _, r := range p.Rules {
		switch r.Action {
		case ActionAllow:
			allow = append(allow, RuleSpec(r))
		case ActionDeny:
			deny = append(deny, RuleSpec(r))
		case ActionAsk:
			ask = append(ask, RuleSpec(r))
		}
	}
	if len(allow) > 0 {
		args = append(args, "--allowedTools", strings.Join(allow, ","))
	}
	if len(deny) > 0 {
		args = append(args, "--disallowedTools", strings.Join(deny, ","))
	}
	if len(ask) > 0 {
		b, _ := json.Marshal(map[string]any{"permissions": map[string]any{"ask": ask}})
		args = append(args, "--settings", string(b))
	}
	// One --mcp-config holds the permission prompt's server and the
	// others the run gets.
	servers := extra
	if mode != ModeBypass && prompt != nil {
		servers = append([]MCPServer{{Name: permprompt.ServerName,
			Command: append(append([]string(nil), prompt.Server...), "--socket", prompt.Socket)}}, extra...)
	}
	if len(servers) > 0 {
		args = append(args, "--mcp-config", ClaudeMCPConfig(servers...))
	}
	if mode != ModeBypass && prompt != nil {
		args = append(args, "--permission-prompt-tool", prompt.Tool)
	}
	return args
}

// codexPermissionArgs returns codex exec's flags for p.
func codexPermissionArgs(p Policy) []string {
	switch p.Mode {
	case ModeBypass:
		return []string{"--dangerously-bypass-approvals-and-sandbox"}
	case ModeAcceptEdits:
		return []string{"--sandbox", "workspace-write", "-c", `approval_policy="never"`}
	default:
		return []string{"--sandbox", "read-only", "-c", `approval_policy="never"`}
	}
}

// CodexUnexpressed lists, one line each, what of p codex exec cannot do:
// its "ask" mode and every rule (codex exec has no per-tool rules).
func CodexUnexpressed(p Policy) []string {
	var out []string
	if p.Mode == ModeAsk {
		out = append(out, "mode Ask: codex exec cannot ask Lazuli, so it runs read-only (what would ask is refused)")
	}
	for _, r := range p.Rules {
		out = append(out, fmt.Sprintf("%s %s: codex has no per-tool rules; not applied to Codex runs", r.Action, RuleSpec(r)))
	}
	return out
}

// editTools are claude's tools that change files: an Edit rule covers them
// all (claude consults no path rule of Write itself).
var editTools = map[string]bool{"Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true}

// ruleCovers reports whether a rule of permission applies to tool.
func ruleCovers(permission, tool string) bool {
	return permission == tool || (permission == "Edit" && editTools[tool])
}

// AlwaysRule is the session rule an "Always allow" answer records, written
// as claude reads it: the exact command for Bash; for a tool that changes
// a file, Edit with the file's absolute path, resolved against dir (the
// worktree) as the matcher resolves it ("//" starts an absolute path in
// claude's rules); Read with the file; else the whole tool.
func AlwaysRule(tool string, input json.RawMessage, dir string, now time.Time) store.PermissionRule {
	r := store.PermissionRule{Permission: tool, Pattern: ruleSubject(tool, input), Action: ActionAllow,
		Source: SourceSession, AddedAt: now.UTC().Format(store.TimeFormat)}
	if tool != "Bash" && r.Pattern != "" {
		if editTools[tool] {
			r.Permission = "Edit"
		}
		if m := newPathMatcher(r.Pattern, dir); m.abs != "" {
			r.Pattern = m.abs
		}
		if strings.HasPrefix(r.Pattern, "/") {
			r.Pattern = "/" + r.Pattern
		}
	}
	return r
}

// ruleSubject is what a rule's pattern is matched against: a Bash
// command, a file's path, or "".
func ruleSubject(tool string, input json.RawMessage) string {
	var in struct {
		Command  string `json:"command"`
		FilePath string `json:"file_path"`
		Path     string `json:"path"`
		Notebook string `json:"notebook_path"`
	}
	_ = json.Unmarshal(input, &in)
	if tool == "Bash" {
		return in.Command
	}
	for _, s := range []string{in.FilePath, in.Notebook, in.Path} {
		if s != "" {
			return s
		}
	}
	return ""
}

// Notices shows each notice once per Notices (per window, per `lazuli
// run`), however many turns need it.
type Notices struct {
	// Show is called with each new notice; nil shows nothing.
	Show func(string)

	mu   sync.Mutex
	seen map[string]bool
}

// say shows msg unless it was shown before.
func (n *Notices) say(msg string) {
	if n == nil || n.Show == nil {
		return
	}
	n.mu.Lock()
	if n.seen[msg] {
		n.mu.Unlock()
		return
	}
	if n.seen == nil {
		n.seen = map[string]bool{}
	}
	n.seen[msg] = true
	n.mu.Unlock()
	n.Show(msg)
}

// runningAsRoot reports whether Lazuli runs as root; tests replace it.
var runningAsRoot = func() bool { return os.Geteuid() == 0 }

// claudeRefusesBypass reports whether claude, run with env (nil: this
// process's), refuses bypass: as root, unless the environment declares a
// deliberate sandbox (IS_SANDBOX=1 or CLAUDE_CODE_BUBBLEWRAP), as claude
// itself checks. Lazuli never sets those variables; it only sees whether
// the user did.
func claudeRefusesBypass(env []string) bool {
	if !runningAsRoot() {
		return false
	}
	if env == nil {
		env = os.Environ()
	}
	sandbox, bubblewrap := "", ""
	for _, kv := range env { // the last value of a key wins, as in os/exec
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "IS_SANDBOX":
			sandbox = v
		case "CLAUDE_CODE_BUBBLEWRAP":
			bubblewrap = v
		}
	}
	return sandbox != "1" && bubblewrap == ""
}
