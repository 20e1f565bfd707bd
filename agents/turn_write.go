package agents

import (
	"context"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/store"
)

// This file holds how a turn's events reach the store: the sub-agents'
// events queued beside the parent's, and the flushes the save policy
// (savepolicy.go) decides, each session's batch in a transaction of its own.

// takeSubagents queues what the parser read of sub-agents.
func (t *turn) takeSubagents() {
	src, ok := t.parser.(parse.SubagentSource)
	if !ok {
		return
	}
	for _, se := range src.TakeSubagents() {
		var sink *subagentSink
		for _, s := range t.subs {
			if s.toolUseID == se.ToolUseID {
				sink = s
			}
		}
		if sink == nil {
			sink = &subagentSink{toolUseID: se.ToolUseID, asked: se.Asked}
			t.subs = append(t.subs, sink)
		}
		sink.pending = append(sink.pending, se.Events...)
		t.stepEnded = t.stepEnded || anyEndsStep(se.Events)
	}
}

// saveDue writes the queued events, after a line of output, when the save
// policy says so: SaveStep when a step (the parent's or a sub-agent's)
// ended, SaveChunk when its buffer is full. SaveTurn writes only at the
// end (finish), SaveChunk also on its clock (loop).
func (t *turn) saveDue(ctx context.Context) {
	switch t.opts.Save.policy() {
	case SaveStep:
		if t.stepEnded {
			t.flush(ctx)
		}
	case SaveChunk:
		if n := t.opts.Save.BufferSize; n > 0 && t.queued() >= n {
			t.flush(ctx)
		}
	}
	t.stepEnded = false
}

// queued is the number of events waiting to be written, the sub-agents'
// included.
func (t *turn) queued() int {
	n := len(t.pending)
	for _, s := range t.subs {
		n += len(s.pending)
	}
	return n
}

// flush writes the queued events: each sub-agent's, then the parent's (so
// the list, newest first, shows the parent above its sub-agents), each
// batch in one transaction. A failed write keeps its events queued for the
// next flush.
func (t *turn) flush(ctx context.Context) {
	wctx := context.WithoutCancel(ctx) // a stop must not lose what was parsed
	wctx, cancel := context.WithTimeout(wctx, 30*time.Second)
	defer cancel()
	for _, s := range t.subs {
		t.flushSubagent(wctx, s)
	}
	if len(t.pending) == 0 {
		return
	}
	var rows []parse.UsageRow
	if up, ok := t.parser.(parse.UsageParser); ok {
		rows = up.Usage()[t.usageDone:]
	}
	usage := parse.PlaceUsageAfter(t.pending, rows, t.flushed)
	for i := range usage {
		if usage[i].At == "" { // a live turn ends now; the list shows it as the session's last activity
			usage[i].At = time.Now().UTC().Format(store.TimeFormat)
		}
	}
	n, err := t.st.Events().Append(wctx, t.session, t.pending, usage...)
	if err != nil {
		t.storeErr = err
		return
	}
	t.usageDone += len(rows)
	t.flushed = parse.CountAnchors(t.flushed, t.pending)
	t.storeErr = nil
	t.res.EventsSaved += n
	saved := t.pending
	t.pending = nil
	if t.opts.OnSaved != nil {
		t.opts.OnSaved(saved)
	}
}

// flushSubagent writes a sub-agent's queued events, creating its session
// (named after its parent and what it was asked, linked to the parent's
// call) with the first batch.
func (t *turn) flushSubagent(ctx context.Context, s *subagentSink) {
	if len(s.pending) == 0 {
		return
	}
	saved := SubagentSaved{ToolUseID: s.toolUseID, Saved: s.pending}
	if s.session == 0 {
		id, name, err := t.st.Subagents().Create(ctx, t.session, subagentBatch(s.toolUseID, s.asked, s.pending))
		if err != nil {
			t.storeErr = err
			return
		}
		s.session, s.name, saved.Created = id, name, true
	} else if _, err := t.st.Events().Append(ctx, s.session, s.pending); err != nil {
		t.storeErr = err
		return
	}
	s.pending = nil
	saved.SessionID, saved.Name = s.session, s.name
	if t.opts.OnSubagent != nil {
		t.opts.OnSubagent(saved)
	}
}
