package agents

import (
	"strings"

	"github.com/lazuli-app/lazuli/agents/opencode"
	"github.com/lazuli-app/lazuli/agents/parse"
)

// OpenCode is the OpenCode CLI (opencode-ai).
const OpenCode Backend = "opencode"

// OpenCodeDefault is OpenCode's menu entry for the model its own
// configuration names (no --model).
const OpenCodeDefault = opencode.DefaultModel

func init() {
	register(&Descriptor{
		Name: OpenCode, Title: "OpenCode", Order: 4, Command: "opencode", EnvVar: "LAZULI_OPENCODE",
		// OpenCode names models provider/model; the user's providers decide
		// which exist.
		Models:    []string{OpenCodeDefault, "anthropic/claude-sonnet-4-5", "openai/gpt-5.1"},
		OwnsModel: func(m string) bool { return strings.Contains(m, "/") },
		Args:      openCodeArgs,
		// The Init reports the model asked for (the menu's default when
		// none), which names the backend in the sidebar.
		StreamParser: func(model string) parse.Parser {
			if model == "" {
				model = OpenCodeDefault
			}
			return opencode.NewStreamParser(parse.Options{Model: model})
		},
		Resume:           func(id string) []string { return []string{"opencode", "--session", id} },
		Unexpressed:      openCodeUnexpressed,
		RunEnv:           openCodeRunEnv,
		MeasuresDuration: true,
	})
}

// openCodeArgs runs `opencode run --format json --thinking`: bypass and
// acceptEdits approve every permission (--auto), plan and ask run
// OpenCode's read-only plan agent. A prompt too long for an argument goes
// to stdin, which opencode run appends to its message.
func openCodeArgs(inv Invocation) ([]string, bool) {
	args := []string{"run", "--format", "json", "--thinking"}
	if m := inv.Model; m != "" && m != OpenCodeDefault {
		args = append(args, "--model", m)
	}
	if !inv.Sandboxed {
		switch inv.policy().Mode {
		case ModeBypass, ModeAcceptEdits:
			args = append(args, "--auto")
		default:
			args = append(args, "--agent", "plan")
		}
	}
	if len(inv.Prompt) > MaxArgPrompt || strings.IndexByte(inv.Prompt, 0) >= 0 {
		return args, true
	}
	return append(args, "--", inv.Prompt), false
}

// openCodeUnexpressed lists what of p opencode run cannot apply.
func openCodeUnexpressed(p Policy) []string {
	var out []string
	switch p.Mode {
	case ModeAcceptEdits:
		out = append(out, "mode Accept edits: opencode run cannot ask Lazuli, so it also runs shell commands without asking (--auto)")
	case ModeAsk:
		out = append(out, "mode Ask: opencode run cannot ask Lazuli, so it runs its read-only plan agent")
	}
	return append(out, noRules("OpenCode", p)...)
}

// noRules lists the rules of p a CLI without per-tool rules ignores.
func noRules(title string, p Policy) []string {
	var out []string
	for _, r := range p.Rules {
		out = append(out, r.Action+" "+RuleSpec(r)+": "+title+" takes no per-tool rules from Lazuli; not applied to its runs")
	}
	return out
}
