package views

import (
	"strconv"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/display"
)

// agentReportLines is how many lines of a sub-agent's report its
// collapsed result card shows.
const agentReportLines = 6

// isSubagentResult reports the result of a Claude Agent/Task call: the
// report its sub-agent handed back.
func isSubagentResult(e *codec.Event) bool {
	return e.Kind == codec.KindToolResult && codec.IsSubagentTool(e.ToolName)
}

// agentReport returns the first n lines of the report in a sub-agent's
// result s, without the hand-back lines Claude Code puts around it (the
// agentId to resume it with, its worktree, its usage, "Sub-agent
// finished" notes) and the ingestion's "(+N more)" marker, and how many
// more lines the report has.
func agentReport(s string, n int) (string, int) {
	var lines []string
	inUsage, cut := false, 0
	for line := range strings.Lines(strings.ReplaceAll(s, "\r\n", "\n")) {
		line = strings.TrimRight(line, "\n")
		t := strings.TrimSpace(line)
		switch {
		case inUsage:
			inUsage = !strings.Contains(t, "</usage>")
			continue
		case strings.HasPrefix(t, "<usage>"):
			inUsage = !strings.Contains(t, "</usage>")
			continue
		case isHandBack(t):
			continue
		case moreMarker.MatchString("\n" + line):
			cut, _ = strconv.Atoi(moreMarker.FindStringSubmatch("\n" + line)[1])
			continue
		}
		lines = append(lines, line)
	}
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) <= n {
		return strings.Join(lines, "\n"), cut
	}
	return strings.Join(lines[:n], "\n"), len(lines) - n + cut
}

// handBacks start the lines Claude Code adds to a sub-agent's report.
var handBacks = []string{
	"agentId:", "worktreePath:", "worktreeBranch:", "Sub-agent finished", "Subagent finished",
	"Async agent launched", "total_tokens:", "tool_uses:", "duration_ms:",
}

func isHandBack(line string) bool {
	for _, p := range handBacks {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// agentReportText is the collapsed text of a sub-agent's result: the
// first lines of its report, from the full text when the store kept it,
// and how many lines are left out.
func agentReportText(content, full string, hasFull bool) string {
	src := content
	if hasFull {
		src = full
	}
	text, more := agentReport(src, agentReportLines)
	if more > 0 {
		text += "\n… " + display.Plural(int64(more), "more line")
	}
	return text
}
