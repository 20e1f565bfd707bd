package codec

import "testing"

func TestEventNotice(t *testing.T) {
	for _, tc := range []struct {
		e    Event
		want string
	}{
		{Init("/w", "opus"), "Session started · opus · /w"},
		{Init("", ""), "Session started"},
		{Hook("pre", "line one\nline two"), "Hook pre: line one …"},
		{Hook("pre", ""), "Hook pre"},
		{Command("/clear"), "Command /clear"},
		{ModelSwitch("gpt-5"), "Model switched to gpt-5"},
		{Unit(KindCompacted), "Conversation compacted"},
		{Unit(KindFiltered), "Filtered"},
		{AssistantText("x"), "AssistantText"},
		{UserMessage("[Request interrupted by user for tool use]"), "Interrupted by the user"},
		{UserMessage("go on"), "UserMessage"},
	} {
		if got := tc.e.Notice(); got != tc.want {
			t.Errorf("%s.Notice() = %q, want %q", tc.e.Kind, got, tc.want)
		}
	}
}

func TestIsPrompt(t *testing.T) {
	for _, tc := range []struct {
		e    Event
		want bool
	}{
		{UserMessage("Fix the bug"), true},
		{UserMessage("[Request interrupted by user]"), false},
		{UserMessage("[Request interrupted by user for tool use]"), false},
		{UserMessage(" [Request interrupted by user for tool use]\n"), false},
		{UserMessage("[Request interrupted by user] and then I said more [x]"), true},
		{UserMessage("[Request interrupted by user]\nnow do this instead"), true},
		{UserMessage("Why does it say [Request interrupted by user]?"), true},
		{AssistantText("[Request interrupted by user]"), false},
		{Hook("pre", ""), false},
	} {
		if got := tc.e.IsPrompt(); got != tc.want {
			t.Errorf("IsPrompt(%s %q) = %v, want %v", tc.e.Kind, tc.e.Content+tc.e.Text, got, tc.want)
		}
	}
}

func TestIsSubagentTool(t *testing.T) {
	for name, want := range map[string]bool{"Agent": true, "agent": true, "Task": true, "task": true, "Bash": false, "TaskList": false, "": false} {
		if got := IsSubagentTool(name); got != want {
			t.Errorf("IsSubagentTool(%q) = %v, want %v", name, got, want)
		}
	}
}
