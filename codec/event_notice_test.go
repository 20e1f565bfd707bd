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
	} {
		if got := tc.e.Notice(); got != tc.want {
			t.Errorf("%s.Notice() = %q, want %q", tc.e.Kind, got, tc.want)
		}
	}
}
