package agents

// This file holds the run workflow, the one place that decides what a
// prompt sent to a session does: resolve the model and backend, record a
// model switch, run the turn, compact the session when it needs it and
// continue a turn stopped for compaction with the hidden auto-continue
// prompt. `lazuli run` and the window's prompt box both use it and only
// show its progress.

import (
	"context"
	"errors"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// MaxAutoRounds bounds the compaction + auto-continue rounds of one run.
const MaxAutoRounds = 3

// RunOptions configure RunWorkflow.
type RunOptions struct {
	// Turn holds the options of every turn. Its Backend and Model are the
	// ones asked for: "" model means the session's (when its backend
	// fits), else the CLI's default; "" backend means the model's. Its
	// Save is the save policy of every turn, the auto-continued ones
	// included. Its Hidden, OnSaved and OnSubagent are set by the workflow.
	Turn TurnOptions
	// Worktree is the branch recorded in a new session (sessionID 0).
	Worktree string
	// Name is the name of a new session; "" names it after its prompt
	// (PromptName), as imports name theirs.
	Name string
	// Compact compacts the session; nil compacts it here with
	// CompactSession and the run's backend and model.
	Compact func(ctx context.Context, req CompactRequest) (CompactOutcome, error)
	// OnEvent, when set, is told about the run's progress, on the
	// workflow's goroutine.
	OnEvent func(RunEvent)
}

// CompactRequest asks RunOptions.Compact to compact a session after a turn.
type CompactRequest struct {
	SessionID int64
	Backend   Backend
	Model     string
	// AutoContinue reports a turn stopped for compaction: the workflow
	// continues it once the session is compacted.
	AutoContinue bool
	ContextChars int64
}

// RunEventKind says what a RunEvent reports.
type RunEventKind int

// The kinds of RunEvent.
const (
	RunStarting   RunEventKind = iota + 1 // the session is ready; the agent starts
	RunStarted                            // the agent process of the first turn runs, its prompt stored (SaveChunk; else queued)
	RunSaved                              // Saved were written to the session
	RunSubagent                           // a sub-agent's events were written to its own session
	RunTurnEnded                          // a turn ended: Turn, Err
	RunCompacting                         // the session is being compacted
	RunCompacted                          // compaction ended: Outcome, or Err
	RunContinuing                         // the hidden auto-continue turn starts
)

// RunEvent reports the progress of RunWorkflow.
type RunEvent struct {
	Kind      RunEventKind
	SessionID int64
	Backend   Backend
	Model     string
	Saved     []codec.Event
	Subagent  SubagentSaved
	Turn      TurnResult
	Outcome   CompactOutcome
	Err       error
}

// RunResult reports a whole run.
type RunResult struct {
	SessionID int64
	Backend   Backend
	Model     string
	// Turn is the last turn; its EventsSaved counts every turn of the run.
	Turn          TurnResult
	Compacted     bool
	AutoContinued bool
}

// RunWorkflow sends prompt to session sessionID of st, or to a new session
// when sessionID is 0. Before anything is written it resolves the model
// and backend and checks that the CLI runs: a missing agent creates no
// session and records nothing; a new session whose agent then fails to
// start is deleted again (RunResult.SessionID is 0), so that no empty
// session is left. A model other than the session's is
// recorded as a ModelSwitch event, as AZUREAL does. After a turn that
// leaves the session at the compaction threshold, it compacts the session
// and, when the turn was stopped for compaction, continues it with the
// hidden auto-continue prompt, at most MaxAutoRounds times. A compaction
// that fails ends the run without an error (OnEvent is told). The error is
// the last turn's (see RunTurn), or why the run could not start.
func RunWorkflow(ctx context.Context, st *store.Store, sessionID int64, prompt string, opts RunOptions) (RunResult, error) {
	topts := opts.Turn
	res := RunResult{SessionID: sessionID}
	if st.ReadOnly() {
		return res, ErrStoreReadOnly
	}
	if err := topts.Save.Validate(); err != nil {
		return res, err
	}
	sessionModel, hasEvents := "", false // the model the session last ran with
	if sessionID != 0 {
		s, err := st.Sessions().Get(ctx, sessionID)
		if err != nil {
			return res, err
		}
		if sessionModel, err = StoredSessionModel(ctx, st, sessionID); err != nil {
			return res, err
		}
		hasEvents = s.EventCount > 0
		if topts.Model == "" && sessionModel != "" && (topts.Backend == "" || BackendForModel(sessionModel) == topts.Backend) {
			topts.Model = sessionModel
		}
	}
	if topts.Backend == "" {
		topts.Backend = BackendForModel(topts.Model)
	}
	res.Backend, res.Model = topts.Backend, topts.Model
	// A CLI that is missing, or that fails to say its version, stops the run
	// before a session is made; one too slow to answer (a busy machine) runs.
	if info := Detect(ctx, topts.Config, topts.Backend); info.Err != nil && !errors.Is(info.Err, ErrSlowVersion) {
		return res, info.Err
	}
	created := sessionID == 0
	if created {
		name := opts.Name
		if name == "" {
			name = PromptName(prompt)
		}
		s, err := st.Sessions().Create(ctx, opts.Worktree, name)
		if err != nil {
			return res, err
		}
		sessionID, res.SessionID = s.ID, s.ID
	} else if hasEvents && topts.Model != "" && topts.Model != sessionModel {
		if _, err := st.Events().Append(ctx, sessionID, []codec.Event{codec.ModelSwitch(topts.Model)}); err != nil {
			return res, err
		}
	}
	w := &workflow{st: st, session: sessionID, opts: opts, res: &res}
	topts.OnSaved = func(saved []codec.Event) { w.emit(RunEvent{Kind: RunSaved, Saved: saved}) }
	topts.OnSubagent = func(s SubagentSaved) { w.emit(RunEvent{Kind: RunSubagent, Subagent: s}) }
	started, onStarted := false, topts.OnStarted
	topts.OnStarted = func() {
		if onStarted != nil {
			onStarted()
		}
		if !started {
			started = true
			w.emit(RunEvent{Kind: RunStarted})
		}
	}
	w.emit(RunEvent{Kind: RunStarting})
	out, err := w.run(ctx, prompt, topts)
	if created && !started {
		// The agent never ran: the new session holds nothing. Delete it
		// with a context of its own (ctx may be what stopped the start).
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		if derr := st.Sessions().Delete(dctx, sessionID); derr == nil {
			out.SessionID = 0
		}
	}
	return out, err
}

// workflow is the state of one RunWorkflow.
type workflow struct {
	st      *store.Store
	session int64
	opts    RunOptions
	res     *RunResult
}

// emit tells OnEvent about ev.
func (w *workflow) emit(ev RunEvent) {
	if w.opts.OnEvent == nil {
		return
	}
	ev.SessionID, ev.Backend, ev.Model = w.session, w.res.Backend, w.res.Model
	w.opts.OnEvent(ev)
}

// run runs the turn, then the compaction + auto-continue rounds.
func (w *workflow) run(ctx context.Context, prompt string, topts TurnOptions) (RunResult, error) {
	turn, err := RunTurn(ctx, w.st, w.session, prompt, topts)
	w.emit(RunEvent{Kind: RunTurnEnded, Turn: turn, Err: err})
	for round := 0; err == nil && turn.NeedsCompaction && round < MaxAutoRounds && ctx.Err() == nil; round++ {
		w.emit(RunEvent{Kind: RunCompacting})
		outcome, cerr := w.compact(ctx, CompactRequest{SessionID: w.session, Backend: topts.Backend, Model: topts.Model,
			AutoContinue: turn.StoppedForCompaction, ContextChars: turn.ContextChars})
		w.emit(RunEvent{Kind: RunCompacted, Outcome: outcome, Err: cerr})
		if cerr != nil {
			break
		}
		w.res.Compacted = true
		if !turn.StoppedForCompaction {
			break
		}
		w.res.AutoContinued = true
		w.emit(RunEvent{Kind: RunContinuing})
		topts.Hidden = true
		next, nerr := RunTurn(ctx, w.st, w.session, AutoContinuePrompt(), topts)
		w.emit(RunEvent{Kind: RunTurnEnded, Turn: next, Err: nerr})
		next.EventsSaved += turn.EventsSaved
		turn, err = next, nerr
	}
	w.res.Turn = turn
	return *w.res, err
}

// compact compacts the session with the owner's function, else here.
func (w *workflow) compact(ctx context.Context, req CompactRequest) (CompactOutcome, error) {
	if w.opts.Compact != nil {
		return w.opts.Compact(ctx, req)
	}
	return CompactSession(ctx, w.st, req.SessionID, CompactOptions{Config: w.opts.Turn.Config,
		Backend: req.Backend, Model: req.Model, Env: w.opts.Turn.Env})
}
