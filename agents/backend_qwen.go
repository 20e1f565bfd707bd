package agents

import (
	"fmt"
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/agents/qwen"
)

// Qwen is Alibaba's Qwen Code (@qwen-code/qwen-code).
const Qwen Backend = "qwen"

// QwenModels is Qwen Code's model menu; which of them answer depends on
// the provider the user set up (Qwen OAuth, DashScope or any
// OpenAI-compatible endpoint).
var QwenModels = []string{"qwen3-coder-plus", "qwen3-coder-flash", "qwen3-max"}

func init() {
	register(&Descriptor{
		Name: Qwen, Title: "Qwen Code", Order: 3, Command: "qwen", EnvVar: "LAZULI_QWEN",
		Models: QwenModels, Fallback: Claude,
		OwnsModel: func(m string) bool { return strings.HasPrefix(m, "qwen") },
		Args:      qwenArgs,
		StreamParser: func(model string) parse.Parser {
			return qwen.NewStreamParser(model)
		},
		Resume:      func(id string) []string { return []string{"qwen", "--resume", id} },
		Unexpressed: qwenUnexpressed,
		RunEnv:      qwenDefaults.runEnv,
	})
}

// qwenArgs are Qwen Code's headless arguments: stream-json output, the
// model, the approval mode of the permission mode, then the prompt (on
// stdin when too long for one argument).
func qwenArgs(inv Invocation) ([]string, bool) {
	args := []string{"--output-format", "stream-json"}
	if inv.Model != "" {
		args = append(args, "--model", inv.Model)
	}
	if !inv.Sandboxed {
		args = append(args, "--approval-mode", qwenApprovalMode(inv.policy().Mode))
	}
	if len(inv.Prompt) > MaxArgPrompt || strings.IndexByte(inv.Prompt, 0) >= 0 {
		return args, true // qwen reads the prompt from stdin
	}
	// --prompt= (deprecated in favour of the positional prompt, which qwen
	// does not take after "--") keeps a prompt starting with "-" from
	// being read as an option.
	return append(args, "--prompt="+inv.Prompt), false
}

// qwenApprovalMode maps a permission mode to --approval-mode: bypass is
// yolo, accept edits auto-edit, plan plan; ask is default, under which a
// headless run refuses what would ask.
func qwenApprovalMode(m PermissionMode) string {
	switch m {
	case ModeBypass:
		return "yolo"
	case ModeAcceptEdits:
		return "auto-edit"
	case ModePlan:
		return "plan"
	}
	return "default"
}

// qwenUnexpressed lists what of p Qwen Code cannot apply: its ask mode
// and every rule.
func qwenUnexpressed(p Policy) []string {
	var out []string
	if p.Mode == ModeAsk {
		out = append(out, "mode Ask: qwen cannot ask Lazuli in a headless run, so what would ask is refused")
	}
	for _, r := range p.Rules {
		out = append(out, fmt.Sprintf("%s %s: Qwen Code takes no per-tool rules from Lazuli; not applied to Qwen runs", r.Action, RuleSpec(r)))
	}
	return out
}
