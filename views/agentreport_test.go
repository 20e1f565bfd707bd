package views

import (
	"testing"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

func TestAgentReport(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     string
		more     int
	}{
		{"Plain", "Done.\n\n**Report:**\n- a", "Done.\n\n**Report:**\n- a", 0},
		{"HandBackAfter", "Round 1 complete.\n- x\nagentId: a52886dc180afb356 (use SendMessage with to: 'a52886dc180afb356' to continue this agent)\nworktreePath: /w/agent-a5\nworktreeBranch: worktree-agent-a5\n<usage>total_tokens: 28812\ntool_uses: 6\nduration_ms: 208554</usage>",
			"Round 1 complete.\n- x", 0},
		{"HandBackFirst", "Sub-agent finished.\nagentId: a2271d1 (for resuming to continue this agent's work if needed)\n\nThe report\nsecond line", "The report\nsecond line", 0},
		{"Long", "1\n2\n3\n4\n5\n6\n7\n8\nagentId: x", "1\n2\n3\n4\n5\n6", 2},
		{"Compacted", "Sub-agent finished.\nagentId: x\n\nThe report\n  (+8 more)", "The report", 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, more := agentReport(tc.in, agentReportLines)
			if got != tc.want || more != tc.more {
				t.Errorf("agentReport(%q) = %q, %d; want %q, %d", tc.in, got, more, tc.want, tc.more)
			}
		})
	}
}

// TestAgentResultCard: a collapsed Agent result shows its report's first
// lines (from the full text when kept), not the hand-back lines.
func TestAgentResultCard(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(700, 800))
	full := "Sub-agent finished.\nagentId: a1 (use SendMessage with to: 'a1' to continue this agent)\n\n## Report\n- found the bug\n- fixed it\n- tests pass\n- docs\n- more\n- and more\n<usage>total_tokens: 5</usage>"
	tr.SetSession(store.Session{ID: 1}, stored(
		codec.ToolCall("t1", "Agent", nil, rawJSON(t, map[string]any{"description": "fix", "prompt": "fix it"})),
		codec.ToolResult("t1", "Agent", nil, codec.CompactEvent(codec.ToolResult("t1", "Agent", nil, full, false)).Content, false),
	), nil)
	tr.SetFullText(map[int64]string{2: full})
	q.drain()
	c := cardsByRow(tr)[1]
	if c == nil {
		t.Fatal("no result card")
	}
	if got, want := cardBody(c), "## Report\n- found the bug\n- fixed it\n- tests pass\n- docs\n- more\n… 1 more line"; got != want {
		t.Errorf("collapsed Agent result = %q, want %q", got, want)
	}
}
