package agents

import (
	"strings"

	"github.com/lazuli-app/lazuli/agents/copilot"
	"github.com/lazuli-app/lazuli/agents/parse"
)

// Copilot is GitHub Copilot CLI (@github/copilot).
const Copilot Backend = "copilot"

// CopilotDefault is Copilot's menu entry for the model its own settings
// (or COPILOT_MODEL) name (no --model).
const CopilotDefault = "copilot-default"

func init() {
	register(&Descriptor{
		Name: Copilot, Title: "Copilot CLI", Order: 6, Command: "copilot", EnvVar: "LAZULI_COPILOT",
		Models: []string{CopilotDefault, "claude-sonnet-4.5", "claude-haiku-4.5"},
		Args:   copilotArgs,
		// The Init reports the model asked for (the menu's default when
		// none), which names the backend in the sidebar.
		StreamParser: func(model string) parse.Parser {
			if model == "" {
				model = CopilotDefault
			}
			return copilot.NewParser(parse.Options{Model: model})
		},
		Resume:           func(id string) []string { return []string{"copilot", "--resume", id} },
		Unexpressed:      copilotUnexpressed,
		MeasuresDuration: true,
	})
}

// copilotArgs runs `copilot -p --output-format json`. Copilot's tool
// permissions carry the mode: bypass allows every tool and path, acceptEdits
// allows writes and denies the shell, plan and ask deny both; Bash rules
// become shell(...) allows and denies. Lazuli's MCP servers come in
// --additional-mcp-config, added to the user's own for this run.
func copilotArgs(inv Invocation) ([]string, bool) {
	args := []string{"--output-format", "json", "--no-ask-user"}
	if m := inv.Model; m != "" && m != CopilotDefault {
		args = append(args, "--model", m)
	}
	mode := inv.policy().Mode
	if inv.Sandboxed {
		mode = ModePlan
	}
	switch mode {
	case ModeBypass:
		args = append(args, "--allow-all-tools", "--allow-all-paths")
	case ModeAcceptEdits:
		args = append(args, "--allow-all-tools", "--deny-tool", "shell")
	default:
		args = append(args, "--allow-all-tools", "--deny-tool", "write", "--deny-tool", "shell")
	}
	if !inv.Sandboxed {
		for _, r := range inv.Permissions.Rules {
			if r.Permission != "Bash" {
				continue
			}
			spec := "shell"
			if r.Pattern != "" {
				spec = "shell(" + r.Pattern + ")"
			}
			switch r.Action {
			case ActionAllow:
				args = append(args, "--allow-tool", spec)
			case ActionDeny:
				args = append(args, "--deny-tool", spec)
			}
		}
	}
	if !inv.Sandboxed && len(inv.MCPServers) > 0 {
		args = append(args, "--additional-mcp-config", CopilotMCPConfig(inv.MCPServers...))
	}
	if len(inv.Prompt) > MaxArgPrompt || strings.IndexByte(inv.Prompt, 0) >= 0 {
		return args, true // copilot reads a piped prompt
	}
	return append(args, "-p", inv.Prompt), false
}

// copilotUnexpressed lists what of p copilot -p cannot apply: asking, and
// rules other than Bash allows and denies.
func copilotUnexpressed(p Policy) []string {
	var out []string
	if p.Mode == ModeAsk {
		out = append(out, "mode Ask: copilot -p cannot ask Lazuli, so writes and shell commands are refused")
	}
	for _, r := range p.Rules {
		if r.Permission == "Bash" && r.Action != ActionAsk {
			continue
		}
		out = append(out, r.Action+" "+RuleSpec(r)+": Copilot CLI takes only Bash allow and deny rules from Lazuli; not applied")
	}
	return out
}
