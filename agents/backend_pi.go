package agents

import (
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/agents/pi"
)

// Pi is the Pi coding agent (@mariozechner/pi-coding-agent).
const Pi Backend = "pi"

// PiDefault is Pi's menu entry for the model its own settings name (no
// --model).
const PiDefault = "pi-default"

// piTools are Pi's built-in tools, all of them (grep, find and ls are off
// unless named), and those that change nothing.
const (
	piAllTools      = "read,bash,edit,write,grep,find,ls"
	piReadOnlyTools = "read,grep,find,ls"
)

func init() {
	register(&Descriptor{
		Name: Pi, Title: "Pi", Order: 5, Command: "pi", EnvVar: "LAZULI_PI",
		Models: []string{PiDefault},
		Args:   piArgs,
		// The Init reports the model asked for (the menu's default when
		// none), which names the backend in the sidebar.
		StreamParser: func(model string) parse.Parser {
			if model == "" {
				model = PiDefault
			}
			return pi.NewParser(parse.Options{Model: model})
		},
		Resume:           func(id string) []string { return []string{"pi", "--session", id} },
		Unexpressed:      piUnexpressed,
		NoMCP:            "Pi has no MCP (by design: its tools are skills and extensions)",
		MeasuresDuration: true,
	})
}

// piArgs runs `pi --mode json -p`: Pi never asks, so bypass and
// acceptEdits get every tool and plan and ask the read-only ones. A prompt
// too long for an argument goes to stdin.
func piArgs(inv Invocation) ([]string, bool) {
	args := []string{"--mode", "json"}
	if m := inv.Model; m != "" && m != PiDefault {
		args = append(args, "--model", m)
	}
	tools := piAllTools
	if inv.Sandboxed {
		tools = piReadOnlyTools
	} else if mode := inv.policy().Mode; mode == ModePlan || mode == ModeAsk {
		tools = piReadOnlyTools
	}
	args = append(args, "--tools", tools, "-p")
	if len(inv.Prompt) > MaxArgPrompt || strings.IndexByte(inv.Prompt, 0) >= 0 || strings.HasPrefix(inv.Prompt, "-") || strings.HasPrefix(inv.Prompt, "@") {
		return args, true
	}
	return append(args, inv.Prompt), false
}

// piUnexpressed lists what of p Pi cannot apply.
func piUnexpressed(p Policy) []string {
	var out []string
	switch p.Mode {
	case ModeAcceptEdits:
		out = append(out, "mode Accept edits: Pi never asks, so it also runs shell commands")
	case ModeAsk:
		out = append(out, "mode Ask: Pi never asks, so it runs with its read-only tools")
	}
	return append(out, noRules("Pi", p)...)
}
