package agents

import (
	"strings"

	"github.com/lazuli-app/lazuli/agents/claude"
	"github.com/lazuli-app/lazuli/agents/parse"
)

// Claude is Claude Code, the default backend.
const Claude Backend = "claude"

// ClaudeModels is Claude's model pool of spec §5.1.
var ClaudeModels = []string{"opus", "sonnet", "haiku"}

func init() {
	register(&Descriptor{
		Name: Claude, Title: "Claude", Order: 0, Command: "claude", EnvVar: "LAZULI_CLAUDE",
		Models: ClaudeModels, Fallback: Codex,
		Args: claudeArgs,
		StreamParser: func(model string) parse.Parser {
			return claude.NewStreamParser(parse.Options{Model: model})
		},
		Resume: func(id string) []string { return []string{"claude", "--resume", id} },
	})
}

// claudeArgs are claude's arguments of spec §5.1. Claude's prompt
// argument comes last, after "--" (spec §5.1 puts it right after -p, where
// a prompt starting with "-" is read as an option).
func claudeArgs(inv Invocation) (args []string, promptOnStdin bool) {
	if inv.Model != "" {
		args = append(args, "--model", inv.Model)
	}
	args = append(args, "-p", "--verbose", "--output-format", "stream-json")
	if !inv.Sandboxed {
		args = append(args, claudePermissionArgs(inv.policy(), inv.AsRoot, inv.PromptTool, inv.MCPServers)...)
	}
	promptOnStdin = len(inv.Prompt) > MaxArgPrompt || strings.IndexByte(inv.Prompt, 0) >= 0
	if !promptOnStdin {
		// After "--", a prompt starting with "-" is not taken for an
		// option (claude would print its version for "-v …").
		args = append(args, "--", inv.Prompt)
	}
	return args, promptOnStdin
}
