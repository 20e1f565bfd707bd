package codec

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// ContextPayload is what build_context produces for a session (spec §6.1):
// the summary of the latest compaction, if any, and the read-time filtered
// events stored after it. It is the input of BuildTranscript and
// BuildContextPrompt.
type ContextPayload struct {
	Summary *string // latest compaction summary; nil when never compacted
	Events  []Event // stored events after the compaction, already filtered
}

// BuildContextPrompt returns prompt prefixed with the session history
// between the context tags, byte for byte as AZUREAL sends it (spec §6.3).
// A nil payload, or one whose transcript is empty, leaves prompt unchanged.
func BuildContextPrompt(p *ContextPayload, prompt string) string {
	if p == nil {
		return prompt
	}
	t := BuildTranscript(*p)
	if t == "" {
		return prompt
	}
	var b strings.Builder
	b.Grow(len(ContextOpenTag) + len(t) + len(ContextCloseTag) + len(prompt) + 4)
	b.WriteString(ContextOpenTag)
	b.WriteByte('\n')
	b.WriteString(t)
	b.WriteByte('\n')
	b.WriteString(ContextCloseTag)
	b.WriteString("\n\n")
	b.WriteString(prompt)
	return b.String()
}

// BuildTranscript renders a payload as the plain-text transcript AZUREAL
// injects (spec §6.2): the summary block, then one block per content event
// separated by blank lines, right-trimmed of Unicode white space.
func BuildTranscript(p ContextPayload) string {
	var b strings.Builder
	b.Grow(transcriptSizeHint(p))
	if p.Summary != nil {
		b.WriteString("[Previous conversation summary]\n")
		b.WriteString(*p.Summary)
		b.WriteString("\n\n[Conversation continues]\n\n")
	}
	for i := range p.Events {
		if writeEventBlock(&b, &p.Events[i]) {
			b.WriteByte('\n')
		}
	}
	return TrimEnd(b.String())
}

// transcriptSizeHint estimates the transcript length so the builder grows
// once. Tool results usually shrink, so this is an upper bound in practice.
func transcriptSizeHint(p ContextPayload) int {
	n := 64
	if p.Summary != nil {
		n += len(*p.Summary)
	}
	for i := range p.Events {
		e := &p.Events[i]
		n += 48 + len(e.Content) + len(e.Text) + len(e.Name) + len(e.ToolName)
	}
	return n
}

// writeEventBlock writes the transcript block of e and reports whether e has
// one; Init, Hook, ModelSwitch and the banner variants have none.
func writeEventBlock(b *strings.Builder, e *Event) bool {
	switch e.Kind {
	case KindUserMessage:
		writeStrings(b, "## User\n", e.Content, "\n")
	case KindAssistantText:
		writeStrings(b, "## Assistant\n", e.Text, "\n")
	case KindToolCall:
		if param := ToolKeyParam(e.ToolName, e.Input); param != "" {
			writeStrings(b, "## Tool: ", e.ToolName, " (", param, ")\n")
		} else {
			writeStrings(b, "## Tool: ", e.ToolName, "\n")
		}
	case KindToolResult:
		label := "[Result: "
		if e.IsError {
			label = "[Error: "
		}
		writeStrings(b, label, e.ToolName, "] ", CompactResult(e.Content), "\n")
	case KindPlan:
		writeStrings(b, "## Plan: ", e.Name, "\n", e.Content, "\n")
	case KindCommand:
		writeStrings(b, "## Command: ", e.Name, "\n")
	case KindComplete:
		secs := float64(e.DurationMS) / 1000
		writeStrings(b, "[Session complete: ", rustFixed(secs, 1), "s, $", rustFixed(e.CostUSD, 4), "]\n")
	default:
		return false
	}
	return true
}

func writeStrings(b *strings.Builder, parts ...string) {
	for _, s := range parts {
		b.WriteString(s)
	}
}

// rustFixed formats f like Rust's format!("{:.prec$}", f): exact decimal
// expansion rounded half to even, as strconv does, with Rust's spelling of
// the non-finite values.
func rustFixed(f float64, prec int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'f', prec, 64)
}

// CompactResult shortens a tool result for the transcript (spec §6.2
// compact_result): the text before the first <system-reminder>,
// right-trimmed; kept whole up to 6 lines, else the first 3 lines, a
// "(+N more lines)" marker and the last 3 lines.
func CompactResult(content string) string {
	content = cutReminder(content)
	lines := rustLines(content)
	n := len(lines)
	if n <= 6 {
		return content
	}
	return strings.Join(lines[:3], "\n") + "\n(+" + strconv.Itoa(n-6) + " more lines)\n" +
		strings.Join(lines[n-3:], "\n")
}

// toolParamKeys maps a tool name to the input key that best describes the
// call (spec §6.2); other tools use "file_path".
var toolParamKeys = map[string]string{
	"Bash": "command", "bash": "command",
	"Read": "file_path", "read": "file_path",
	"Edit": "file_path", "edit": "file_path",
	"Write": "file_path", "write": "file_path",
	"Glob": "pattern", "glob": "pattern",
	"Grep": "pattern", "grep": "pattern",
	"WebFetch": "url", "webfetch": "url",
	"WebSearch": "query", "websearch": "query",
	"Agent": "description", "agent": "description",
	"Task": "description", "task": "description",
	"LSP": "operation", "lsp": "operation",
}

// ToolKeyParam returns the input parameter that names what a tool call
// works on (a command, path, pattern, URL, …), as the transcript and the
// tool cards show it. It is input[key] for the tool's key, or input["path"]
// when that key is absent, and "" unless the value is a JSON string. A key
// that is present with a non-string value does not fall back to "path".
func ToolKeyParam(toolName string, input json.RawMessage) string {
	key, ok := toolParamKeys[toolName]
	if !ok {
		key = "file_path"
	}
	var obj map[string]json.RawMessage // duplicate keys: the last wins, as in serde
	if len(input) == 0 || json.Unmarshal(input, &obj) != nil {
		return ""
	}
	v, ok := obj[key]
	if !ok {
		v = obj["path"]
	}
	var s string
	if len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}
