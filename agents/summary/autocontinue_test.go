package summary_test

import (
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/summary"
	"github.com/lazuli-app/lazuli/codec"
)

// The hidden prompt the runner sends after a mid-turn compaction is not a
// user request (an external test: agents imports this package).
func TestSummarizeAutoContinueIsNotARequest(t *testing.T) {
	events := []codec.Event{
		codec.UserMessage("# Context from my IDE setup:\n\n## Open tabs:\n- a.go\n\n## My request for Codex:\nrename the flag"),
		codec.UserMessage(agents.AutoContinuePrompt()),
	}
	got := summary.Summarize(nil, events)
	if !strings.Contains(got, "- rename the flag") {
		t.Errorf("Summarize = %q, want the request", got)
	}
	if strings.Contains(got, "Carry on") {
		t.Errorf("Summarize = %q, want no auto-continue prompt in it", got)
	}
}
