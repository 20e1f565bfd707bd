package agents

import (
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/store"
)

// TestNewAgentArgs: each mode and a Bash rule as the three CLIs' flags.
func TestNewAgentArgs(t *testing.T) {
	bash := store.PermissionRule{Permission: "Bash", Pattern: "git *", Action: ActionAllow}
	for _, c := range []struct {
		b     Backend
		mode  PermissionMode
		rules []store.PermissionRule
		model string
		want  string
	}{
		{OpenCode, ModeBypass, nil, "", "run --format json --thinking --auto -- P"},
		{OpenCode, ModePlan, nil, "openai/gpt-5.1", "run --format json --thinking --model openai/gpt-5.1 --agent plan -- P"},
		{OpenCode, ModeAsk, nil, OpenCodeDefault, "run --format json --thinking --agent plan -- P"},
		{Pi, ModeBypass, nil, PiDefault, "--mode json --tools read,bash,edit,write,grep,find,ls -p P"},
		{Pi, ModePlan, nil, "sonnet", "--mode json --model sonnet --tools read,grep,find,ls -p P"},
		{Copilot, ModeBypass, nil, CopilotDefault, "--output-format json --no-ask-user --allow-all-tools --allow-all-paths -p P"},
		{Copilot, ModeAcceptEdits, []store.PermissionRule{bash}, "", "--output-format json --no-ask-user --allow-all-tools --deny-tool shell --allow-tool shell(git *) -p P"},
		{Copilot, ModePlan, nil, "claude-sonnet-4.5", "--output-format json --no-ask-user --model claude-sonnet-4.5 --allow-all-tools --deny-tool write --deny-tool shell -p P"},
	} {
		inv := Invocation{Backend: c.b, Model: c.model, Prompt: "P", Permissions: Policy{Mode: c.mode, Rules: c.rules}}
		args, stdin := inv.Args()
		if got := strings.Join(args, " "); got != c.want || stdin {
			t.Errorf("%s %s: args %q (stdin %v), want %q", c.b, c.mode, got, stdin, c.want)
		}
	}
	long := strings.Repeat("x", MaxArgPrompt+1)
	for _, b := range []Backend{OpenCode, Pi, Copilot} {
		args, stdin := Invocation{Backend: b, Prompt: long}.Args()
		if !stdin || strings.Contains(strings.Join(args, " "), long) {
			t.Errorf("%s: a long prompt must go to stdin", b)
		}
	}
	if _, stdin := (Invocation{Backend: Pi, Prompt: "-v please"}).Args(); !stdin {
		t.Error("pi: a prompt that starts with - must go to stdin")
	}
}

func TestNewAgentUnexpressed(t *testing.T) {
	rules := []store.PermissionRule{{Permission: "Bash", Pattern: "rm *", Action: ActionDeny}, {Permission: "Read", Action: ActionAllow}}
	got := Copilot.Unexpressed(Policy{Mode: ModeAsk, Rules: rules})
	if len(got) != 2 || !strings.Contains(got[0], "Ask") || !strings.Contains(got[1], "Read") {
		t.Errorf("copilot: %q", got)
	}
	for _, b := range []Backend{OpenCode, Pi} {
		if got := b.Unexpressed(Policy{Mode: ModeAcceptEdits, Rules: rules}); len(got) != 3 {
			t.Errorf("%s: %q", b, got)
		}
	}
	if got := Pi.Unexpressed(Policy{Mode: ModeBypass}); len(got) != 0 {
		t.Errorf("pi bypass: %q", got)
	}
}
