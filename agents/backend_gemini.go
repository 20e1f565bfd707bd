package agents

import (
	"fmt"
	"strings"

	"github.com/lazuli-app/lazuli/agents/gemini"
	"github.com/lazuli-app/lazuli/agents/parse"
)

// Gemini is Google's Gemini CLI (@google/gemini-cli).
const Gemini Backend = "gemini"

// GeminiModels is Gemini CLI's model menu; "auto" lets the CLI route.
var GeminiModels = []string{"gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite", "auto"}

func init() {
	register(&Descriptor{
		Name: Gemini, Title: "Gemini CLI", Order: 2, Command: "gemini", EnvVar: "LAZULI_GEMINI",
		Models: GeminiModels, Fallback: Claude,
		// With no --model (the menu's auto) the CLI routes, and its init
		// line names the router ("auto-gemini-2.5"): such a session was
		// run with auto, and shows so in the menu.
		FallbackModel: "auto",
		OwnsModel: func(m string) bool {
			return strings.HasPrefix(m, "gemini-") || strings.HasPrefix(m, "auto-gemini")
		},
		Args: geminiArgs,
		StreamParser: func(model string) parse.Parser {
			return gemini.NewStreamParser(model)
		},
		Resume:      func(id string) []string { return []string{"gemini", "--resume", id} },
		Unexpressed: geminiUnexpressed,
		NoMCP: "Gemini CLI takes MCP servers only from its settings files (~/.gemini, the project's .gemini) " +
			"or from system settings it reads only when root owns them in folders no one else can write",
	})
}

// geminiArgs are Gemini CLI's headless arguments: -p with the prompt (on
// stdin, without -p, when it is too long for one argument), stream-json
// output, the model, and the approval mode of the permission mode.
func geminiArgs(inv Invocation) ([]string, bool) {
	args := []string{"--output-format", "stream-json"}
	if inv.Model != "" && inv.Model != "auto" {
		args = append(args, "--model", inv.Model)
	}
	if !inv.Sandboxed {
		args = append(args, "--approval-mode", geminiApprovalMode(inv.policy().Mode))
	}
	if len(inv.Prompt) > MaxArgPrompt || strings.IndexByte(inv.Prompt, 0) >= 0 {
		return args, true // gemini reads a prompt from stdin when it gets none
	}
	// "-p=" keeps a prompt starting with "-" from being read as an option.
	return append(args, "--prompt="+inv.Prompt), false
}

// geminiApprovalMode maps a permission mode to --approval-mode: bypass is
// yolo, accept edits auto_edit, plan plan; ask is default, under which a
// headless run refuses what would ask.
func geminiApprovalMode(m PermissionMode) string {
	switch m {
	case ModeBypass:
		return "yolo"
	case ModeAcceptEdits:
		return "auto_edit"
	case ModePlan:
		return "plan"
	}
	return "default"
}

// geminiUnexpressed lists what of p Gemini CLI cannot apply: its ask mode
// (a headless run cannot ask) and every rule.
func geminiUnexpressed(p Policy) []string {
	var out []string
	if p.Mode == ModeAsk {
		out = append(out, "mode Ask: gemini -p cannot ask Lazuli, so what would ask is refused")
	}
	for _, r := range p.Rules {
		out = append(out, fmt.Sprintf("%s %s: Gemini CLI takes no per-tool rules from Lazuli; not applied to Gemini runs", r.Action, RuleSpec(r)))
	}
	return out
}
