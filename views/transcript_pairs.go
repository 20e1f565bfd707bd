package views

// This file orders the transcript's rows for display: each tool result
// follows the call it answers. Parallel calls are stored as all the
// calls, then all the results; shown in that order, the reader matches
// them by eye. The store keeps seq order; only the rows move.

import (
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// pairResults returns rows with every tool result's rows (its thinking,
// the result, its run failures) moved right after the rows of the call
// with the same tool_use_id, and after the results moved there before it.
// A result moves only within its stretch of rows between two prompts (or
// compaction summaries): a prompt, and what forking at it copies, keeps
// every event before it above it. rows is returned as is when nothing
// moves.
func pairResults(rows []transcriptRow, events []store.StoredEvent) []transcriptRow {
	var out []transcriptRow
	for start := 0; start < len(rows); {
		end := segmentEnd(rows, events, start)
		if seg, moved := pairSegment(rows[start:end], events); moved || out != nil {
			if out == nil {
				out = append(make([]transcriptRow, 0, len(rows)), rows[:start]...)
			}
			out = append(out, seg...)
		}
		start = end
	}
	if out == nil {
		return rows
	}
	return out
}

// isBarrier reports a row results never move across: a compaction
// summary, or any user message (a prompt or an interruption).
func isBarrier(row *transcriptRow, events []store.StoredEvent) bool {
	return row.kind == rowCompaction || events[row.event].Kind == codec.KindUserMessage
}

// segmentEnd returns the end of the stretch of rows starting at start: the
// next barrier after start, or len(rows).
func segmentEnd(rows []transcriptRow, events []store.StoredEvent, start int) int {
	for i := start + 1; i < len(rows); i++ {
		if isBarrier(&rows[i], events) {
			return i
		}
	}
	return len(rows)
}

// rowGroup is the rows of one event (or one compaction): rows[from:to].
type rowGroup struct{ from, to int }

// pairSegment orders one stretch of rows and reports whether a row moved.
func pairSegment(rows []transcriptRow, events []store.StoredEvent) ([]transcriptRow, bool) {
	var groups []rowGroup
	for i := 0; i < len(rows); {
		j := i + 1
		for j < len(rows) && rows[i].kind != rowCompaction && rows[j].event == rows[i].event {
			j++
		}
		groups = append(groups, rowGroup{i, j})
		i = j
	}
	calls := map[string]int{}  // tool_use_id → index of its call's group
	after := map[int][]int{}   // group → the result groups shown after it
	attached := map[int]bool{} // result groups shown after their call
	for g, gr := range groups {
		row := &rows[gr.from]
		if row.kind == rowCompaction {
			continue
		}
		e := &events[row.event].Event
		switch {
		case e.Kind == codec.KindToolCall && e.ToolUseID != "":
			calls[e.ToolUseID] = g
		case e.Kind == codec.KindToolResult && e.ToolUseID != "":
			if c, ok := calls[e.ToolUseID]; ok {
				after[c] = append(after[c], g)
				attached[g] = true
			}
		}
	}
	out := make([]transcriptRow, 0, len(rows))
	for g, gr := range groups {
		if attached[g] {
			continue
		}
		out = append(out, rows[gr.from:gr.to]...)
		for _, res := range after[g] {
			out = append(out, rows[groups[res].from:groups[res].to]...)
		}
	}
	for i := range out {
		if out[i].event != rows[i].event || out[i].kind != rows[i].kind || out[i].thought != rows[i].thought {
			return out, true
		}
	}
	return rows, false
}

// pairAppended re-orders the rows from the last barrier before row n (the
// first row just appended) on, so that appended results join their calls,
// and moves the heights measured for the rows that moved with them. The
// list is given the heights of the rows from the first one that moved.
func (r *rowList) pairAppended(n int) {
	start := 0
	for i := min(n, len(r.rows)) - 1; i >= 0; i-- {
		if isBarrier(&r.rows[i], r.events) {
			start = i
			break
		}
	}
	tail := pairResults(r.rows[start:], r.events)
	first := -1
	for i := range tail {
		if tail[i].event != r.rows[start+i].event || tail[i].kind != r.rows[start+i].kind || tail[i].thought != r.rows[start+i].thought {
			first = start + i
			break
		}
	}
	if first < 0 {
		return
	}
	type key struct {
		event, thought int
		kind           rowKind
	}
	old := map[key]int{}
	for i := first; i < len(r.rows); i++ {
		old[key{r.rows[i].event, r.rows[i].thought, r.rows[i].kind}] = i
	}
	heights := make([]float32, len(r.rows)-first)
	for i := range heights {
		row := &tail[first-start+i]
		o := old[key{row.event, row.thought, row.kind}]
		heights[i] = r.heights[o]
	}
	copy(r.rows[first:], tail[first-start:])
	for i, h := range heights {
		id := first + i
		r.heights[id], r.widths[id] = h, 0 // measured again when next shown
		delete(r.pending, id)
		r.list.SetItemHeight(id, r.heightOf(id))
	}
	r.gen = nextGen() // cards bound to the moved ids show other rows now
	if f := r.t.find; len(f.lower) > first {
		f.lower = f.lower[:first]
	}
}

// rowAtSeq is the row ShowEvent and ShowPromptAt go to for seq: the row
// of the event with seq (not its thinking), or the compaction summary
// after seq when compaction is set; when there is none (the read-time
// filter hid the event), the row with the smallest seq after it; with
// eventsOnly, only an event's own row (no summary, thinking or failure).
// Rows are not in seq order (pairResults), so every row is looked at. It
// returns -1 when no row has seq or a later one.
func (r *rowList) rowAtSeq(seq int64, compaction, eventsOnly bool) int {
	row, next := -1, int64(0)
	for i := range r.rows {
		x := &r.rows[i]
		if eventsOnly && isSideRow(x.kind) {
			continue
		}
		var s int64
		if x.kind == rowCompaction {
			s = r.compactions[x.comp].AfterSeq
		} else {
			s = r.events[x.event].Seq
		}
		if x.kind == rowThinking && s == seq {
			continue // the event's own row follows its thinking
		}
		if s == seq && (x.kind == rowCompaction) == compaction {
			return i
		}
		if s > seq && (row < 0 || s < next) {
			row, next = i, s
		}
	}
	return row
}
