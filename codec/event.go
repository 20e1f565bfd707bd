package codec

import (
	"encoding/json"
	"strings"
)

// Kind is the variant name of a DisplayEvent, exactly as AZUREAL stores it in
// events.kind and as the tag of the serde JSON.
type Kind string

// The DisplayEvent variants (spec §2.2). MayBeCompacting and Filtered are
// never stored.
const (
	KindInit            Kind = "Init"
	KindHook            Kind = "Hook"
	KindUserMessage     Kind = "UserMessage"
	KindCommand         Kind = "Command"
	KindCompacting      Kind = "Compacting"
	KindCompacted       Kind = "Compacted"
	KindMayBeCompacting Kind = "MayBeCompacting"
	KindPlan            Kind = "Plan"
	KindAssistantText   Kind = "AssistantText"
	KindToolCall        Kind = "ToolCall"
	KindToolResult      Kind = "ToolResult"
	KindComplete        Kind = "Complete"
	KindModelSwitch     Kind = "ModelSwitch"
	KindFiltered        Kind = "Filtered"
)

// Valid reports whether k names a DisplayEvent variant.
func (k Kind) Valid() bool {
	switch k {
	case KindInit, KindHook, KindUserMessage, KindCommand, KindCompacting,
		KindCompacted, KindMayBeCompacting, KindPlan, KindAssistantText,
		KindToolCall, KindToolResult, KindComplete, KindModelSwitch, KindFiltered:
		return true
	}
	return false
}

// IsUnit reports whether k is a unit variant, stored as a bare JSON string.
func (k Kind) IsUnit() bool {
	switch k {
	case KindCompacting, KindCompacted, KindMayBeCompacting, KindFiltered:
		return true
	}
	return false
}

// Event is one AZUREAL DisplayEvent. It is a flat struct: Kind selects which
// fields are meaningful, as listed beside each field. The zero values of the
// unused fields are ignored when encoding.
type Event struct {
	Kind Kind

	CWD        string          // Init
	Model      string          // Init, ModelSwitch
	Name       string          // Hook, Command, Plan
	Output     string          // Hook
	Content    string          // UserMessage, Plan, ToolResult
	Text       string          // AssistantText
	ToolUseID  string          // ToolCall, ToolResult
	ToolName   string          // ToolCall, ToolResult
	FilePath   *string         // ToolCall, ToolResult; nil is JSON null
	Input      json.RawMessage // ToolCall; any JSON value, nil means null
	IsError    bool            // ToolResult
	Success    bool            // Complete
	DurationMS uint64          // Complete
	CostUSD    float64         // Complete; always finite when stored
}

// Init returns an Init event.
func Init(cwd, model string) Event { return Event{Kind: KindInit, CWD: cwd, Model: model} }

// Hook returns a Hook event.
func Hook(name, output string) Event { return Event{Kind: KindHook, Name: name, Output: output} }

// UserMessage returns a UserMessage event.
func UserMessage(content string) Event { return Event{Kind: KindUserMessage, Content: content} }

// Command returns a Command (slash command) event.
func Command(name string) Event { return Event{Kind: KindCommand, Name: name} }

// Plan returns a Plan event.
func Plan(name, content string) Event { return Event{Kind: KindPlan, Name: name, Content: content} }

// AssistantText returns an AssistantText event.
func AssistantText(text string) Event { return Event{Kind: KindAssistantText, Text: text} }

// ToolCall returns a ToolCall event. input must be valid JSON or nil (null).
func ToolCall(toolUseID, toolName string, filePath *string, input json.RawMessage) Event {
	return Event{Kind: KindToolCall, ToolUseID: toolUseID, ToolName: toolName, FilePath: filePath, Input: input}
}

// ToolResult returns a ToolResult event.
func ToolResult(toolUseID, toolName string, filePath *string, content string, isError bool) Event {
	return Event{Kind: KindToolResult, ToolUseID: toolUseID, ToolName: toolName, FilePath: filePath, Content: content, IsError: isError}
}

// Complete returns a Complete event.
func Complete(success bool, durationMS uint64, costUSD float64) Event {
	return Event{Kind: KindComplete, Success: success, DurationMS: durationMS, CostUSD: costUSD}
}

// ModelSwitch returns a ModelSwitch event.
func ModelSwitch(model string) Event { return Event{Kind: KindModelSwitch, Model: model} }

// Unit returns a unit-variant event (Compacting, Compacted, MayBeCompacting, Filtered).
func Unit(k Kind) Event { return Event{Kind: k} }

// IsTurnContent reports whether e counts as turn content for the completion
// columns (spec §2.1 step 4).
func (e Event) IsTurnContent() bool {
	switch e.Kind {
	case KindInit, KindUserMessage, KindCommand, KindPlan, KindAssistantText, KindToolCall, KindToolResult:
		return true
	}
	return false
}

// IsInterruption reports whether content is the note Claude Code records
// as a user message when the user stops a turn: "[Request interrupted by
// user]" or "[Request interrupted by user for tool use]". The user typed
// nothing; the window shows it as a marker, not as a prompt.
func IsInterruption(content string) bool {
	t := strings.TrimSpace(content)
	return strings.HasPrefix(t, "[Request interrupted by user") && strings.HasSuffix(t, "]") &&
		!strings.ContainsAny(t[1:len(t)-1], "[]\n")
}

// IsPrompt reports whether e is a prompt the user sent: a user message
// that is not an interruption (IsInterruption). Prompts are what the
// window lists and navigates and where a fork may start.
func (e Event) IsPrompt() bool {
	return e.Kind == KindUserMessage && !IsInterruption(e.Content)
}

// IsSubagentTool reports whether a tool of that name is Claude's Agent (or
// Task) tool, whose call starts a sub-agent and whose result is its report.
func IsSubagentTool(name string) bool {
	switch name {
	case "Agent", "agent", "Task", "task":
		return true
	}
	return false
}

// Notice is the one-line text of an event shown as a notice rather than as
// content: Init, Hook, Command, ModelSwitch, the unit variants and an
// interruption (IsInterruption). Other kinds give their kind's name.
func (e Event) Notice() string {
	switch e.Kind {
	case KindUserMessage:
		if IsInterruption(e.Content) {
			return "Interrupted by the user"
		}
	case KindInit:
		return joinNonEmpty(" · ", "Session started", e.Model, e.CWD)
	case KindHook:
		out := strings.TrimSpace(e.Output)
		if i := strings.IndexByte(out, '\n'); i >= 0 {
			out = out[:i] + " …"
		}
		return joinNonEmpty(": ", "Hook "+e.Name, out)
	case KindCommand:
		return "Command " + e.Name
	case KindModelSwitch:
		return "Model switched to " + e.Model
	case KindCompacting:
		return "Compacting the conversation…"
	case KindCompacted:
		return "Conversation compacted"
	case KindMayBeCompacting:
		return "The conversation may be compacting…"
	case KindFiltered:
		return "Filtered"
	case KindUnreadable:
		return joinNonEmpty(": ", "1 event could not be read", e.Text)
	}
	return string(e.Kind)
}

// joinNonEmpty joins the non-empty parts with sep.
func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// KindRunFailure marks an Event that says why an agent run failed. It is
// not a DisplayEvent variant (Valid reports false): writes keep it in
// RunFailureTable, after the event stored before it, never in events, so
// the window's live view gets it with the batch that ends the run.
const KindRunFailure Kind = "RunFailure"

// KindThinking marks an Event that is an agent's thinking. It is not a
// DisplayEvent variant (Valid reports false): writes keep it in
// ThinkingTable, before the next event stored, never in events.
const KindThinking Kind = "Thinking"

// KindUnreadable marks a placeholder Event that stands where a load left
// out a row it could not read (see WithUnreadable). It is not a
// DisplayEvent variant: a view shows it, nothing stores it (encoding it
// fails).
const KindUnreadable Kind = "Unreadable"

// InternKind returns the kind column as a Kind, without allocating for the
// known variant names.
func InternKind(b []byte) Kind {
	for _, k := range AllKinds {
		if string(k) == string(b) {
			return k
		}
	}
	return Kind(b)
}

var AllKinds = []Kind{KindToolResult, KindToolCall, KindAssistantText, KindUserMessage, KindComplete,
	KindInit, KindHook, KindCommand, KindPlan, KindCompacting, KindCompacted, KindModelSwitch,
	KindMayBeCompacting, KindFiltered}
