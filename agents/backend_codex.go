package agents

import (
	"strings"

	"github.com/lazuli-app/lazuli/agents/codex"
	"github.com/lazuli-app/lazuli/agents/parse"
)

// Codex is OpenAI's Codex CLI.
const Codex Backend = "codex"

// DefaultCodexModel is Codex's default model, and the model a Codex
// fallback runs with (spec §5.1).
const DefaultCodexModel = "gpt-5.5"

// CodexModels is Codex's model pool of spec §5.1.
var CodexModels = []string{"gpt-5.5", "gpt-5.5-pro", "gpt-5.4", "gpt-5.4-pro", "gpt-5.4-mini",
	"gpt-5.4-nano", "gpt-5-mini", "gpt-5-nano", "gpt-5", "gpt-4.1"}

func init() {
	register(&Descriptor{
		Name: Codex, Title: "Codex", Order: 1, Command: "codex", EnvVar: "LAZULI_CODEX",
		Models: CodexModels, FallbackModel: DefaultCodexModel, Fallback: Claude,
		OwnsModel: func(m string) bool { return strings.HasPrefix(m, "gpt-") || m == "codex" },
		Args:      codexArgs,
		// The codex CLI does not print its model: the parser reports the
		// one asked for, or the default.
		StreamParser: func(model string) parse.Parser {
			if model == "" {
				model = DefaultCodexModel
			}
			return codex.NewExecParser(parse.Options{Model: model})
		},
		Resume:           func(id string) []string { return []string{"codex", "resume", id} },
		Unexpressed:      CodexUnexpressed,
		MeasuresDuration: true,
	})
}

// codexArgs are codex exec's arguments of spec §5.1; the prompt goes to
// stdin.
func codexArgs(inv Invocation) ([]string, bool) {
	args := []string{"exec", "--json"}
	if inv.Model != "" {
		args = append(args, "--model", inv.Model)
	}
	if !inv.Sandboxed {
		args = append(args, codexPermissionArgs(inv.policy())...)
		args = append(args, CodexMCPArgs(inv.MCPServers...)...)
	}
	if !insideGitWorkTree(inv.Dir) {
		// codex refuses to run outside a git repository without it.
		args = append(args, "--skip-git-repo-check")
	}
	return append(args, "-"), true
}
