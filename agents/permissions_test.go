package agents

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/store"
)

// permArgs runs one fake turn of backend b on a session with perms (and
// project defaults project) and returns the flags the CLI received
// between the output flags and the prompt.
func permArgs(t *testing.T, b Backend, project, perms store.Permissions, extra func(*TurnOptions)) string {
	t.Helper()
	ctx := context.Background()
	st, id := newStore(t)
	if !perms.IsZero() {
		if err := st.Permissions().Set(ctx, id, perms); err != nil {
			t.Fatal(err)
		}
	}
	lines := []string{claudeInit, claudeOK}
	if b == Codex {
		lines = []string{codexStart, codexMsg, codexDone}
	}
	cfg, env, rec := fakeCLI(t, lines...)
	opts := TurnOptions{Config: cfg, Backend: b, Dir: t.TempDir(), Env: env, ProjectPermissions: project}
	if extra != nil {
		extra(&opts)
	}
	if _, err := RunTurn(ctx, st, id, "go", opts); err != nil {
		t.Fatal(err)
	}
	args := strings.Join(readRecord(t, rec).Args, " ")
	if b == Codex {
		args = strings.TrimSuffix(strings.TrimPrefix(args, "exec --json "), " -")
		return strings.TrimSuffix(args, " --skip-git-repo-check")
	}
	return strings.TrimSuffix(strings.TrimPrefix(args, "-p --verbose --output-format stream-json "), " -- go")
}

func rule(action, spec string) store.PermissionRule {
	r, err := ParseRule(action, spec)
	if err != nil {
		panic(err)
	}
	return r
}

// TestPermissionArgv: the flags each CLI receives for each mode and rule
// set: claude's --permission-mode and tool lists built from the rules,
// codex's sandbox and approval policy (it gets no rules).
func TestPermissionArgv(t *testing.T) {
	rules := []store.PermissionRule{rule("allow", "Bash(git *)"), rule("allow", "Read"), rule("deny", "Edit(src/**)"), rule("ask", "Bash(rm *)")}
	cases := []struct {
		mode         string
		rules        []store.PermissionRule
		claude, codx string
	}{
		{"", nil, "--dangerously-skip-permissions", "--dangerously-bypass-approvals-and-sandbox"},
		{"bypass", rules[2:3], "--dangerously-skip-permissions --disallowedTools Edit(src/**)", "--dangerously-bypass-approvals-and-sandbox"},
		{"acceptEdits", nil, "--permission-mode acceptEdits", `--sandbox workspace-write -c approval_policy="never"`},
		{"plan", nil, "--permission-mode plan", `--sandbox read-only -c approval_policy="never"`},
		{"ask", nil, "--permission-mode default", `--sandbox read-only -c approval_policy="never"`},
		{"ask", rules, `--permission-mode default --allowedTools Bash(git *),Read --disallowedTools Edit(src/**) --settings {"permissions":{"ask":["Bash(rm *)"]}}`,
			`--sandbox read-only -c approval_policy="never"`},
	}
	for _, c := range cases {
		p := store.Permissions{Mode: c.mode, Rules: c.rules}
		if got := permArgs(t, Claude, store.Permissions{}, p, nil); got != c.claude {
			t.Errorf("claude %s %v:\n got %s\nwant %s", c.mode, c.rules, got, c.claude)
		}
		if got := permArgs(t, Codex, store.Permissions{}, p, nil); got != c.codx {
			t.Errorf("codex %s %v:\n got %s\nwant %s", c.mode, c.rules, got, c.codx)
		}
	}
	// The project's defaults apply to a session without its own; the
	// session's mode and rules override them.
	project := store.Permissions{Mode: "plan", Rules: []store.PermissionRule{rule("deny", "Bash(git *)"), rule("allow", "WebFetch")}}
	if got := permArgs(t, Claude, project, store.Permissions{}, nil); got != "--permission-mode plan --allowedTools WebFetch --disallowedTools Bash(git *)" {
		t.Errorf("project defaults: %s", got)
	}
	if got := permArgs(t, Claude, project, store.Permissions{Mode: "acceptEdits", Rules: rules[:1]}, nil); got != "--permission-mode acceptEdits --allowedTools Bash(git *),WebFetch" {
		t.Errorf("session over project: %s", got)
	}
}

// TestPermissionArgvAsRoot: as root claude gets no
// --dangerously-skip-permissions but acceptEdits, and the notice is shown
// once however many turns run; a sandbox the user's environment declares
// (IS_SANDBOX=1) keeps bypass, as claude itself allows; codex, which has
// no root check, keeps bypass.
func TestPermissionArgvAsRoot(t *testing.T) {
	runningAsRoot = func() bool { return true }
	defer func() { runningAsRoot = func() bool { return false } }()
	var shown []string
	notices := &Notices{Show: func(s string) { shown = append(shown, s) }}
	withNotices := func(o *TurnOptions) {
		o.Notices = notices
		o.Env = append(o.Env, "IS_SANDBOX=")
	}
	for i := 0; i < 2; i++ {
		got := permArgs(t, Claude, store.Permissions{}, store.Permissions{}, withNotices)
		if strings.Contains(got, "dangerously") || got != "--permission-mode acceptEdits" {
			t.Errorf("root argv %q", got)
		}
	}
	if !reflect.DeepEqual(shown, []string{RootNotice}) {
		t.Errorf("notices %q, want the root notice once", shown)
	}
	if got := permArgs(t, Claude, store.Permissions{}, store.Permissions{Mode: "plan"}, withNotices); got != "--permission-mode plan" {
		t.Errorf("root, plan: %q", got)
	}
	sandbox := func(o *TurnOptions) { o.Env = append(o.Env, "IS_SANDBOX=1") }
	if got := permArgs(t, Claude, store.Permissions{}, store.Permissions{}, sandbox); got != "--dangerously-skip-permissions" {
		t.Errorf("root in a declared sandbox: %q", got)
	}
	if got := permArgs(t, Codex, store.Permissions{}, store.Permissions{}, withNotices); got != "--dangerously-bypass-approvals-and-sandbox" {
		t.Errorf("codex as root: %q", got)
	}
	if len(shown) != 1 {
		t.Errorf("notices %q after more turns", shown)
	}
}

// TestAskThroughLazuli: in ask mode claude is given Lazuli's permission
// prompt tool; a request no rule decides reaches TurnOptions.Ask; "allow"
// and "deny" are answered as given; "always" records a session rule, and
// the same request later in the turn is answered by that rule without
// asking; a rule's deny is answered without asking.
func TestAskThroughLazuli(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	if err := st.Permissions().Set(ctx, id, store.Permissions{Mode: "ask", Rules: []store.PermissionRule{rule("deny", "Bash(rm *)")}}); err != nil {
		t.Fatal(err)
	}
	cfg, env, rec := fakeCLI(t, claudeInit,
		`#ask Bash {"command":"git status"}`,
		`#ask Edit {"file_path":"/w/a.go"}`,
		`#ask Bash {"command":"ls -l"}`,
		`#ask Bash {"command":"ls -l"}`,
		`#ask Bash {"command":"rm -rf /"}`,
		claudeOK)
	askLog := filepath.Join(t.TempDir(), "asks.jsonl")
	env = append(env, "LAZULI_FAKE_ASKLOG="+askLog)
	var asked []string
	answers := map[string]PermissionAnswer{"Bash: git status": AnswerAllow, "Edit: /w/a.go": AnswerDeny, "Bash: ls -l": AnswerAlways}
	opts := TurnOptions{Config: cfg, Backend: Claude, Dir: t.TempDir(), Env: env, PermissionServer: []string{"/bin/lazuli", "mcp-permissions"},
		Ask: func(_ context.Context, r PermissionRequest) PermissionAnswer {
			asked = append(asked, r.Summary())
			return answers[r.Summary()]
		}}
	if _, err := RunTurn(ctx, st, id, "go", opts); err != nil {
		t.Fatal(err)
	}
	args := readRecord(t, rec).Args
	joined := strings.Join(args, " ")
	if !strings.Contains(joined, "--permission-mode default") || !strings.Contains(joined, "--permission-prompt-tool mcp__lazuli_permissions__permission_prompt") ||
		!strings.Contains(joined, `"args":["mcp-permissions","--socket",`) || !strings.Contains(joined, `"command":"/bin/lazuli"`) {
		t.Errorf("argv %s", joined)
	}
	if want := []string{"Bash: git status", "Edit: /w/a.go", "Bash: ls -l"}; !reflect.DeepEqual(asked, want) {
		t.Errorf("asked %q, want %q", asked, want)
	}
	b, err := os.ReadFile(askLog)
	if err != nil {
		t.Fatal(err)
	}
	var behaviors []string
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r struct {
			Behavior     string          `json:"behavior"`
			UpdatedInput json.RawMessage `json:"updatedInput"`
			Error        string          `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &r); err != nil || r.Error != "" {
			t.Fatalf("answer %s: %v", l, err)
		}
		if r.Behavior == "allow" && len(r.UpdatedInput) == 0 {
			t.Errorf("allow without updatedInput: %s", l)
		}
		behaviors = append(behaviors, r.Behavior)
	}
	if want := []string{"allow", "deny", "allow", "allow", "deny"}; !reflect.DeepEqual(behaviors, want) {
		t.Errorf("answers %q, want %q", behaviors, want)
	}
	p, err := st.Permissions().Of(ctx, id)
	if err != nil || len(p.Rules) != 2 || p.Rules[1].Permission != "Bash" || p.Rules[1].Pattern != "ls -l" || p.Rules[1].Action != "allow" ||
		p.Rules[1].Source != SourceSession || p.Rules[1].AddedAt == "" {
		t.Errorf("rules after always %+v, %v", p.Rules, err)
	}
}

// TestRules: rules are read and written as claude writes them, merged with
// the session first, and matched as claude matches them.
func TestRules(t *testing.T) {
	for _, bad := range []string{"", "Bash(git", "(x)", "Ba sh"} {
		if _, err := ParseRule("allow", bad); err == nil {
			t.Errorf("ParseRule(%q) accepted", bad)
		}
	}
	if _, err := ParseRule("maybe", "Bash"); err == nil {
		t.Errorf("unknown action accepted")
	}
	for _, spec := range []string{"Bash(git *)", "Edit", "Edit(src/**)"} {
		if got := RuleSpec(rule("allow", spec)); got != spec {
			t.Errorf("RuleSpec(ParseRule(%q)) = %q", spec, got)
		}
	}
	pol := EffectivePermissions(store.Permissions{Mode: "plan", Rules: []store.PermissionRule{rule("allow", "Bash(git *)"), rule("deny", "Read(**/.env)")}},
		store.Permissions{Rules: []store.PermissionRule{rule("deny", "Bash(git *)")}})
	if pol.Mode != ModePlan || len(pol.Rules) != 2 || pol.Rules[0].Action != "deny" || pol.Rules[0].Source != SourceSession || pol.Rules[1].Source != SourceProject {
		t.Errorf("EffectivePermissions = %+v", pol)
	}
	if pol := EffectivePermissions(store.Permissions{}, store.Permissions{Mode: "nonsense"}); pol.Mode != ModeAsk {
		t.Errorf("an unknown stored mode gives %s, want ask", pol.Mode)
	}
	in := func(k, v string) json.RawMessage { b, _ := json.Marshal(map[string]string{k: v}); return b }
	cases := []struct {
		spec, tool string
		input      json.RawMessage
		want       bool
	}{
		{"Bash(git *)", "Bash", in("command", "git status"), true},
		{"Bash(git *)", "Bash", in("command", "gitk"), false},
		{"Bash(npm run test)", "Bash", in("command", "npm run test"), true},
		{"Bash(npm run test)", "Bash", in("command", "npm run test && rm -rf /"), false},
		{"Edit(src/**)", "Edit", in("file_path", "/repo/src/a/b.go"), true},
		{"Edit(src/**)", "Edit", in("file_path", "/repo/docs/a.md"), false},
		{"Edit(*.go)", "Edit", in("file_path", "/repo/a.go"), true},
		{"Edit(/repo/*.go)", "Edit", in("file_path", "/repo/x/a.go"), false},
		{"Read", "Read", in("file_path", "/any"), true},
		{"Read", "Write", in("file_path", "/any"), false},
		{"Bash(git *)", "Bash", in("command", "git"), true},
		{"Bash(npm run test:*)", "Bash", in("command", "npm run test -- -v"), true},
		{"Bash(npm run test:*)", "Bash", in("command", "npm run testing"), false},
		{"Edit(//repo/*.go)", "Edit", in("file_path", "/repo/a.go"), true},
		{"Edit(//repo/*.go)", "Edit", in("file_path", "/other/repo/a.go"), false},
		{"Edit(/src/**)", "Edit", in("file_path", "/repo/src/a.go"), true},
		{"Edit(src/**)", "Write", in("file_path", "/repo/src/new.go"), true},
		{"Edit", "MultiEdit", in("file_path", "/x"), true},
	}
	for _, c := range cases {
		p := Policy{Dir: "/repo", Rules: []store.PermissionRule{rule("allow", c.spec)}}
		if got := p.Decide(c.tool, c.input) == "allow"; got != c.want {
			t.Errorf("%s on %s %s = %v, want %v", c.spec, c.tool, c.input, got, c.want)
		}
	}
	// Deny wins over allow whatever their order, as in claude.
	p := Policy{Rules: []store.PermissionRule{rule("allow", "Bash(git *)"), rule("deny", "Bash(git push *)")}}
	if got := p.Decide("Bash", in("command", "git push origin")); got != "deny" {
		t.Errorf("allow before deny decided %q", got)
	}
	// "Always" on a file change is an Edit rule on the absolute path, as
	// claude reads it; on a command, the exact command.
	if r := AlwaysRule("Write", in("file_path", "/w/a.go"), "", time.Now()); RuleSpec(r) != "Edit(//w/a.go)" || r.Source != "session" || r.AddedAt == "" {
		t.Errorf("AlwaysRule(Write) = %+v", r)
	}
	if r := AlwaysRule("Bash", in("command", "ls -l"), "", time.Now()); RuleSpec(r) != "Bash(ls -l)" {
		t.Errorf("AlwaysRule(Bash) = %+v", r)
	}
	if r := AlwaysRule("WebFetch", in("url", "https://x"), "", time.Now()); RuleSpec(r) != "WebFetch" {
		t.Errorf("AlwaysRule(WebFetch) = %+v", r)
	}
	if got := CodexUnexpressed(Policy{Mode: ModeAsk, Rules: []store.PermissionRule{rule("allow", "Bash(git *)")}}); len(got) != 2 ||
		!strings.Contains(got[1], "allow Bash(git *)") {
		t.Errorf("CodexUnexpressed = %q", got)
	}
}

// TestClaudeBypassPassesNoPromptTool: with a prompt tool at hand, bypass
// (not refused as root) gives claude neither --permission-prompt-tool nor
// an MCP server; every other mode, and bypass turned into acceptEdits as
// root, gets both.
func TestClaudeBypassPassesNoPromptTool(t *testing.T) {
	prompt := &PromptTool{Server: []string{"lazuli", "mcp-permissions"}, Socket: "/tmp/s", Tool: "mcp__lazuli__prompt"}
	cases := []struct {
		name     string
		mode     PermissionMode
		root     bool
		wantTool bool
	}{
		{"bypass", ModeBypass, false, false},
		{"bypass as root", ModeBypass, true, true},
		{"acceptEdits", ModeAcceptEdits, false, true},
		{"plan", ModePlan, false, true},
		{"ask", ModeAsk, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := claudePermissionArgs(Policy{Mode: c.mode}, c.root, prompt, nil)
			for _, flag := range []string{"--permission-prompt-tool", "--mcp-config"} {
				if got := slices.Contains(args, flag); got != c.wantTool {
					t.Errorf("claudePermissionArgs(%q, root=%v) has %s = %v, want %v (args %q)", c.mode, c.root, flag, got, c.wantTool, args)
				}
			}
		})
	}
}
