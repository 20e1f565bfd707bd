package views

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/editdiff"
	"github.com/lazuli-app/lazuli/store"
)

// rowKind selects the card a transcript row is drawn with.
type rowKind uint8

const (
	rowMuted      rowKind = iota // a one-line notice: Init, Hook, Command, ModelSwitch, an interruption, banners
	rowUser                      // a user prompt
	rowAssistant                 // assistant text, as markdown
	rowPlan                      // a plan, as markdown under its name
	rowTool                      // a tool call: name, key parameter, input on demand
	rowEdit                      // an Edit tool call with a diff
	rowWrite                     // a Write tool call: path, line count, purpose
	rowResult                    // a tool result
	rowComplete                  // the end of a turn: ✓/✗, duration, cost
	rowCompaction                // the summary of the conversation before it
	rowThinking                  // the agent's thinking before an event, collapsed
	rowFailure                   // why the run that ended with an event failed
)

// transcriptRow is the view-model of one transcript row. Building it only
// classifies the event; what is costly to compute (key parameter, diff,
// pretty JSON) is computed once, the first time the row is shown.
type transcriptRow struct {
	kind    rowKind
	event   int  // index into rowList.events; -1 for a compaction
	comp    int  // index into rowList.compactions; -1 for an event
	thought int  // rowThinking, rowFailure: index into the event's Thinking, RunFailures
	open    bool // tool input shown / summary expanded
	version uint32
	detail  *rowDetail
}

// rowDetail is what a card shows beyond the raw event fields.
type rowDetail struct {
	title     string // the card's header: tool name, file path, notice text
	param     string // the tool's key parameter
	input     string // pretty-printed input JSON; "" when there is nothing to show
	diffs     []editdiff.File
	truncated string // the ingestion-compaction note of a tool result
}

// buildRows makes the rows of events with each compaction inserted after
// the last event its summary covers (seq ≤ after_seq). compactions must be
// sorted by AfterSeq; events by Seq.
func buildRows(events []store.StoredEvent, compactions []store.Compaction) []transcriptRow {
	return buildRowsFrom(events, compactions, 0)
}

// buildRowsFrom is buildRows that leaves out the compactions before index
// first (those of a session's earlier events, when only its newest are
// shown); rows still refer to compactions by their index in compactions.
// Each tool result is shown after its call (pairResults).
func buildRowsFrom(events []store.StoredEvent, compactions []store.Compaction, first int) []transcriptRow {
	rows := make([]transcriptRow, 0, len(events)+len(compactions)-first)
	c := first
	for i := range events {
		for c < len(compactions) && compactions[c].AfterSeq < events[i].Seq {
			rows = append(rows, transcriptRow{kind: rowCompaction, event: -1, comp: c})
			c++
		}
		rows = appendEventRows(rows, &events[i], i)
	}
	for ; c < len(compactions); c++ {
		rows = append(rows, transcriptRow{kind: rowCompaction, event: -1, comp: c})
	}
	return pairResults(rows, events)
}

// appendRows adds the rows of events, which start at index first of the
// transcript's events.
func appendRows(rows []transcriptRow, events []store.StoredEvent, first int) []transcriptRow {
	for i := range events {
		rows = appendEventRows(rows, &events[i], first+i)
	}
	return rows
}

// appendEventRows adds the rows of e, the transcript's event at index i:
// the thinking that came before it (collapsed), the event itself, then why
// the run it ended failed.
func appendEventRows(rows []transcriptRow, e *store.StoredEvent, i int) []transcriptRow {
	for k := range e.Thinking {
		rows = append(rows, transcriptRow{kind: rowThinking, event: i, comp: -1, thought: k})
	}
	rows = append(rows, transcriptRow{kind: eventRowKind(&e.Event), event: i, comp: -1})
	for k := range e.RunFailures {
		rows = append(rows, transcriptRow{kind: rowFailure, event: i, comp: -1, thought: k})
	}
	return rows
}

// isSideRow reports a row that is not an event's own: a compaction
// summary, thinking, a run's failure.
func isSideRow(k rowKind) bool { return k == rowCompaction || k == rowThinking || k == rowFailure }

func eventRowKind(e *codec.Event) rowKind {
	switch e.Kind {
	case codec.KindUserMessage:
		if !e.IsPrompt() {
			return rowMuted // an interruption: a notice, not a prompt
		}
		return rowUser
	case codec.KindAssistantText:
		return rowAssistant
	case codec.KindPlan:
		return rowPlan
	case codec.KindToolResult:
		return rowResult
	case codec.KindComplete:
		return rowComplete
	case codec.KindToolCall:
		switch e.ToolName {
		case "Edit", "edit":
			return rowEdit
		case "Write", "write":
			return rowWrite
		}
		if editdiff.IsShellPatch(e.Input) {
			return rowEdit // apply_patch run through the shell
		}
		return rowTool
	}
	return rowMuted
}

// computeDetail fills the detail of a row of event e (nil for compactions).
func computeDetail(kind rowKind, e *codec.Event) *rowDetail {
	d := &rowDetail{}
	if e == nil {
		d.title = "Summary of earlier conversation"
		return d
	}
	switch kind {
	case rowTool, rowEdit, rowWrite:
		d.title = e.ToolName
		d.param = codec.ToolKeyParam(e.ToolName, e.Input)
		d.input = display.ToolInput(e.Input)
		if kind == rowEdit {
			d.diffs = editdiff.Files(editdiff.Deref(e.FilePath), e.Input)
		}
		if kind == rowWrite {
			d.param = writeSummary(d.param, e.Input)
		}
	case rowResult:
		d.title = e.ToolName
		d.truncated = truncationNote(e.ToolName, e.Content)
	case rowMuted:
		d.title = e.Notice()
	}
	return d
}

// writeSummary is the Write card's header detail: the path, the line count
// and the purpose line that ingestion kept (spec §4.3).
func writeSummary(path string, input json.RawMessage) string {
	var in struct {
		Lines   *int64 `json:"_lines"`
		Purpose string `json:"_purpose"`
	}
	_ = json.Unmarshal(input, &in) // a malformed input just shows the path
	parts := []string{path}
	if in.Lines != nil {
		parts = append(parts, display.Plural(*in.Lines, "line"))
	}
	if in.Purpose != "" {
		parts = append(parts, in.Purpose)
	}
	return strings.Join(parts, " · ")
}

// The markers compact_event leaves in a tool result (spec §4.2).
var (
	readMarker  = regexp.MustCompile(`\n  \((\d+) lines\)\n`)
	moreMarker  = regexp.MustCompile(`\n  \(\+(\d+) more( lines)?\)$`)
	globMarker  = regexp.MustCompile(`^(\d+) files$`)
	bashResults = map[string]bool{"Bash": true, "bash": true}
)

// truncationNote says how ingestion shortened a tool result, or "" when
// no marker shows it was. Bash results keep only their last two lines,
// which leaves no marker, so they cannot be flagged.
func truncationNote(tool, content string) string {
	switch {
	case bashResults[tool]:
		return ""
	case (tool == "Glob" || tool == "glob") && globMarker.MatchString(content):
		return "truncated at ingestion: only the file count was stored"
	case readMarker.MatchString(content):
		m := readMarker.FindStringSubmatch(content)
		return "truncated at ingestion: first and last of " + m[1] + " lines stored"
	case moreMarker.MatchString(content):
		m := moreMarker.FindStringSubmatch(content)
		return "truncated at ingestion: " + m[1] + " more lines not stored"
	}
	return ""
}

// completeText is the Complete row: "✓ Completed in 12.3s · $0.0123".
func completeText(e *codec.Event) string {
	return completeHead(e) + fmt.Sprintf(" · $%.4f", e.CostUSD)
}

func completeHead(e *codec.Event) string {
	verb := "✓ Completed"
	if !e.Success {
		verb = "✗ Failed"
	}
	return fmt.Sprintf("%s in %.1fs", verb, float64(e.DurationMS)/1000)
}

// completeRowText is the Complete row of the event at seq: with the
// tokens and cost of its turn when the insight index gave them (see
// Transcript.SetTurnUsage), "✓ Completed in 12.3s · 12.3k in · 450 out ·
// 1.2M cache · ~$0.0421 (estimated)".
func (cs *cardSet) completeRowText(seq int64, e *codec.Event) string {
	if u, ok := cs.turnUsageAt(seq); ok {
		return completeHead(e) + " · " + u.text()
	}
	return completeText(e)
}

func joinNonEmpty(sep string, parts ...string) string {
	out := parts[:0:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// diffText writes diffs as unified-style text, for Copy and find.
func diffText(diffs []editdiff.File) string {
	var b strings.Builder
	for _, f := range diffs {
		b.WriteString(joinNonEmpty(" ", f.Path, f.Op))
		b.WriteByte('\n')
		for _, l := range f.Lines {
			b.WriteString([...]string{editdiff.Equal: " ", editdiff.Delete: "-", editdiff.Insert: "+", editdiff.Hunk: "", editdiff.Meta: ""}[l.Op])
			b.WriteString(l.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}
