package app

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// Preference keys of the agent settings.
const (
	prefClaudePath = "agents.claude_path"
	prefCodexPath  = "agents.codex_path"
)

// bannerAfter is how long a running session at ≥ 90 % of the threshold may
// stay silent before the window says it may be compacting.
const bannerAfter = 30 * time.Second

// runState is an agent running on one session.
type runState struct {
	cancel    context.CancelFunc
	backend   agents.Backend
	started   time.Time
	lastEvent time.Time
}

// agentConfig returns the executables from the settings.
func (ui *gui) agentConfig() agents.Config {
	p := ui.fa.Preferences()
	return agents.Config{ClaudePath: p.String(prefClaudePath), CodexPath: p.String(prefCodexPath)}
}

// agentSettings returns the settings as the views show them.
func (ui *gui) agentSettings() views.AgentSettings {
	p := ui.fa.Preferences()
	return views.AgentSettings{ClaudePath: p.String(prefClaudePath), CodexPath: p.String(prefCodexPath)}
}

// modelChoices lists the models of both backends for the prompt box.
func modelChoices() []views.ModelChoice {
	var out []views.ModelChoice
	for _, m := range agents.ClaudeModels {
		out = append(out, views.ModelChoice{Name: m, Backend: string(agents.Claude)})
	}
	for _, m := range agents.CodexModels {
		out = append(out, views.ModelChoice{Name: m, Backend: string(agents.Codex)})
	}
	return out
}

// detectBackends finds both CLIs and shows what it found.
func (pw *projectWindow) detectBackends() {
	cfg := pw.ui.agentConfig()
	pw.wg.Go(func() {
		var status []views.BackendStatus
		for _, b := range agents.Backends {
			info := agents.Detect(pw.ctx, cfg, b)
			s := views.BackendStatus{Backend: string(b), Path: info.Command, Version: info.Version}
			if info.Path != "" {
				s.Path = info.Path
			}
			switch {
			case errors.Is(info.Err, agents.ErrCLINotFound):
				s.Err = "not found"
			case info.Err != nil:
				s.Err = project.OneLine(info.Err)
			}
			status = append(status, s)
		}
		pw.mu.Lock()
		pw.backends = status
		pw.mu.Unlock()
		fyne.Do(func() { pw.mv.PromptBox().SetBackends(status) })
	})
}

// worktreeDir returns the folder an agent for the store at path works in.
func (pw *projectWindow) worktreeDir(storePath string) string {
	for _, wt := range pw.wts {
		if wt.StorePath == storePath && wt.Dir != "" {
			return wt.Dir
		}
	}
	return ""
}

// running reports the sessions with an agent running, by store path.
func (pw *projectWindow) running() map[string]map[int64]bool {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	out := map[string]map[int64]bool{}
	for ref := range pw.runs {
		if out[ref.StorePath] == nil {
			out[ref.StorePath] = map[int64]bool{}
		}
		out[ref.StorePath][ref.ID] = true
	}
	return out
}

// SendPrompt runs the session's agent on the prompt. A prompt for a new
// session (req.Ref.ID 0, see NewSession) creates the session once its
// agent has started.
func (pw *projectWindow) SendPrompt(req views.PromptRequest) {
	if pw.readOnly {
		pw.showError("send prompt", errReadOnly)
		return
	}
	pw.startRun(req.Ref, req.Prompt, req.Model)
}

// runName is how the status line names the session of a run.
func runName(ref views.SessionRef) string {
	if ref.ID == 0 {
		return "the new session"
	}
	return store.DisplayName(ref.ID, "")
}

// startRun runs the run workflow for a prompt on ref in the background:
// the turn, and the compaction and auto-continue it may need. The prompt
// box keeps the prompt until the agent has started, and says why when it
// could not.
func (pw *projectWindow) startRun(ref views.SessionRef, prompt, model string) {
	dir := pw.worktreeDir(ref.StorePath)
	if dir == "" {
		why := "this store has no worktree folder for an agent to work in"
		pw.setStatus(ref, "Not sent: "+why+".", true)
		pw.mv.PromptBox().SendFailed(ref, why)
		return
	}
	ctx, cancel := context.WithCancel(pw.ctx)
	backend := agents.BackendForModel(model)
	rs := &runState{cancel: cancel, backend: backend, started: time.Now(), lastEvent: time.Now()}
	pw.mu.Lock()
	if pw.runs[ref] != nil {
		pw.mu.Unlock()
		cancel()
		return
	}
	pw.runs[ref] = rs
	worktree := pw.newWorktree
	pw.mu.Unlock()
	pw.showRunning(ref)
	pw.setStatus(ref, fmt.Sprintf("Running %s on %s…", backend, runName(ref)), false)
	pw.wg.Go(func() {
		defer cancel()
		run := &runRef{ref: ref}
		err := pw.runWorkflow(ctx, run, prompt, model, worktree, rs)
		pw.mu.Lock()
		delete(pw.runs, run.ref)
		pw.mu.Unlock()
		pw.showRunning(run.ref)
		if run.started {
			return
		}
		// The agent never ran: nothing was stored; the prompt stays, and
		// why is said under it.
		if err == nil {
			err = errors.New("the agent did not start")
		}
		if errors.Is(err, context.Canceled) && pw.ctx.Err() != nil {
			return // the window closed
		}
		log.Printf("run %s: %v", runName(ref), err)
		pw.setStatus(ref, "Not sent; the prompt is still in the box.", true)
		why := project.OneLine(err)
		fyne.Do(func() { pw.mv.PromptBox().SendFailed(ref, why) })
	})
}

// runRef is the session of a run: a new session's ref changes from id 0
// to the stored session's once its agent has started.
type runRef struct {
	ref     views.SessionRef
	started bool // the agent process ran (RunStarted)
}

// runWorkflow runs the workflow against run's store and shows its
// progress. The error is the workflow's.
func (pw *projectWindow) runWorkflow(ctx context.Context, run *runRef, prompt, model, worktree string, rs *runState) error {
	st, err := pw.store(run.ref.StorePath)
	if err != nil {
		return err
	}
	// The window's store watcher shows what the turns save; RunSaved only
	// feeds the "may be compacting" banner.
	opts := agents.RunOptions{
		Turn: agents.TurnOptions{Config: pw.ui.agentConfig(), Model: model, Dir: pw.worktreeDir(run.ref.StorePath),
			OnProgress: func(line string) {
				pw.setStatus(run.ref, fmt.Sprintf("Running %s on %s — %s", rs.backend, runName(run.ref), project.OneLine(errors.New(line))), false)
			}},
		Worktree: worktree,
		Compact:  pw.compactForRun(run.ref.StorePath),
		OnEvent: func(ev agents.RunEvent) {
			switch ev.Kind {
			case agents.RunStarted:
				pw.agentStarted(run, ev.SessionID, prompt)
			case agents.RunSaved:
				pw.mu.Lock()
				rs.lastEvent = time.Now()
				pw.mu.Unlock()
			case agents.RunTurnEnded:
				if run.started {
					pw.turnEnded(run.ref, ev.Turn, ev.Err)
				}
			case agents.RunContinuing:
				pw.setStatus(run.ref, fmt.Sprintf("Continuing after compaction with %s on %s…", ev.Backend,
					runName(run.ref)), false)
			}
		},
	}
	_, err = agents.RunWorkflow(ctx, st, run.ref.ID, prompt, opts)
	return err
}

// agentStarted follows a run whose agent process runs: the prompt box lets
// go of the prompt, and a new session, stored now, takes the run over and
// is shown when the window still shows the new session.
func (pw *projectWindow) agentStarted(run *runRef, id int64, prompt string) {
	old := run.ref
	run.started = true
	if old.ID == 0 {
		run.ref = views.SessionRef{StorePath: old.StorePath, ID: id}
		pw.mu.Lock()
		if rs := pw.runs[old]; rs != nil {
			delete(pw.runs, old)
			pw.runs[run.ref] = rs
		}
		shown := pw.current == old
		if shown {
			pw.focusPrompt = run.ref
		}
		if pw.statusRef == old {
			pw.statusRef = run.ref
		}
		pw.mu.Unlock()
		pw.refresh()
		fyne.Do(func() {
			pw.mv.PromptBox().PromptStarted(old, prompt)
			if shown {
				pw.SelectSession(run.ref)
			}
		})
		return
	}
	fyne.Do(func() { pw.mv.PromptBox().PromptStarted(old, prompt) })
}

// compactForRun is the run workflow's compaction for a session of the
// store at storePath: a job of the
// window's compaction worker (so no session is compacted twice at once),
// waited for.
func (pw *projectWindow) compactForRun(storePath string) func(context.Context, agents.CompactRequest) (agents.CompactOutcome, error) {
	return func(ctx context.Context, req agents.CompactRequest) (agents.CompactOutcome, error) {
		ref := views.SessionRef{StorePath: storePath, ID: req.SessionID}
		if pw.readOnly || pw.compactor == nil {
			return agents.CompactOutcome{}, errReadOnly
		}
		done := make(chan agents.CompactNotice, 1)
		pw.mu.Lock()
		if pw.compactWaiters == nil {
			pw.compactWaiters = map[views.SessionRef][]chan agents.CompactNotice{}
		}
		pw.compactWaiters[ref] = append(pw.compactWaiters[ref], done)
		pw.mu.Unlock()
		defer pw.dropCompactWaiter(ref, done)
		queued := pw.requestCompaction(ref, "after turn", req.AutoContinue, req.ContextChars, req.Model)
		if !queued && !pw.compactor.Busy(ref.StorePath, ref.ID) {
			select {
			case n := <-done: // it ended just now
				return n.Outcome, n.Err
			default:
				return agents.CompactOutcome{}, errNotCompactable
			}
		}
		select {
		case n := <-done:
			return n.Outcome, n.Err
		case <-ctx.Done():
			return agents.CompactOutcome{}, ctx.Err()
		}
	}
}

// errNotCompactable reports a session that failed to compact at its
// current size before; the worker does not try again until it grows.
var errNotCompactable = errors.New("it could not be compacted at this size before")

// dropCompactWaiter forgets a waiter of compactForRun.
func (pw *projectWindow) dropCompactWaiter(ref views.SessionRef, done chan agents.CompactNotice) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	ws := pw.compactWaiters[ref]
	for i, w := range ws {
		if w == done {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(pw.compactWaiters, ref)
	} else {
		pw.compactWaiters[ref] = ws
	}
}

// turnEnded reports a finished turn.
func (pw *projectWindow) turnEnded(ref views.SessionRef, res agents.TurnResult, err error) {
	name := runName(ref)
	var msg string
	isErr := false
	switch {
	case err != nil && errors.Is(err, context.Canceled) && pw.ctx.Err() != nil:
		return // the window closed
	case err != nil:
		msg, isErr = fmt.Sprintf("%s: %s", name, project.OneLine(err)), true
	case res.Stopped:
		msg = fmt.Sprintf("%s: stopped; the partial turn is saved.", name)
	case res.StoppedForCompaction:
		msg = fmt.Sprintf("%s: paused to compact the session; it will continue by itself.", name)
	case res.Success():
		msg = fmt.Sprintf("%s: finished in %s.", name, display.DurationBadge(int64(res.DurationMS)))
	default:
		msg, isErr = fmt.Sprintf("%s: the agent reported a failure.", name), true
	}
	if err != nil {
		log.Printf("run %s: %v (stderr: %s)", name, err, res.Stderr)
	}
	pw.setStatus(ref, msg, isErr)
	if !res.Stopped && !res.StoppedForCompaction {
		pw.ui.fa.SendNotification(fyne.NewNotification("Lazuli — "+name, msg))
	}
}

// StopRun stops the agent running on ref.
func (pw *projectWindow) StopRun(ref views.SessionRef) {
	pw.mu.Lock()
	rs := pw.runs[ref]
	pw.mu.Unlock()
	if rs != nil {
		pw.setStatus(ref, "Stopping…", false)
		rs.cancel()
	}
}

// SwitchModel records the model the user chose for ref (a ModelSwitch
// event, as AZUREAL stores it).
func (pw *projectWindow) SwitchModel(ref views.SessionRef, model string) {
	if pw.readOnly || model == "" {
		return
	}
	pw.wg.Go(func() {
		st, err := pw.store(ref.StorePath)
		if err != nil {
			pw.showError("switch model", err)
			return
		}
		s, err := st.GetSession(pw.ctx, ref.ID)
		if err != nil || s.EventCount == 0 {
			return // a new session records its model with its first turn
		}
		if cur, err := agents.StoredSessionModel(pw.ctx, st, ref.ID); err != nil || cur == model {
			return
		}
		if _, err := st.AppendEvents(pw.ctx, ref.ID, []store.Event{store.ModelSwitch(model)}); err != nil {
			pw.showError("switch model", err)
		}
	})
}

// SaveAgentSettings stores the executables and detects the CLIs again.
func (pw *projectWindow) SaveAgentSettings(s views.AgentSettings) {
	p := pw.ui.fa.Preferences()
	p.SetString(prefClaudePath, s.ClaudePath)
	p.SetString(prefCodexPath, s.CodexPath)
	pw.detectBackends()
}

// showAgentSettings opens the settings dialog.
func (pw *projectWindow) showAgentSettings() {
	pw.mu.Lock()
	status := pw.backends
	pw.mu.Unlock()
	views.ShowAgentSettings(pw.win, pw.ui.agentSettings(), status, pw.SaveAgentSettings)
}

// showRunning updates the running indicators: the sidebar's ● and, for
// the session shown, the prompt box.
func (pw *projectWindow) showRunning(ref views.SessionRef) {
	pw.refresh()
	pw.mu.Lock()
	shown := pw.current == ref
	running := pw.runs[ref] != nil
	pw.mu.Unlock()
	if shown {
		fyne.Do(func() { pw.mv.PromptBox().SetRunning(running) })
	}
}

// setStatus shows a one-line status about session ref in the prompt box.
// It stays until another status replaces it or a session other than ref
// is shown (clearStaleStatus): a status never outlives what it is about.
func (pw *projectWindow) setStatus(ref views.SessionRef, text string, isError bool) {
	pw.mu.Lock()
	pw.statusRef = ref
	pw.mu.Unlock()
	fyne.Do(func() { pw.mv.PromptBox().SetStatus(text, isError) })
}

// clearStaleStatus clears the status when it is about a session other than
// ref, which is being shown. It runs on the Fyne goroutine.
func (pw *projectWindow) clearStaleStatus(ref views.SessionRef) {
	pw.mu.Lock()
	stale := pw.statusRef != ref
	if stale {
		pw.statusRef = views.SessionRef{}
	}
	pw.mu.Unlock()
	if stale {
		pw.mv.PromptBox().SetStatus("", false)
	}
}

// requestCompaction queues session ref for the compaction worker and
// reports whether it was queued.
func (pw *projectWindow) requestCompaction(ref views.SessionRef, reason string, autoContinue bool,
	chars int64, model string) bool {
	if pw.readOnly || pw.compactor == nil {
		return false
	}
	job := agents.CompactJob{StorePath: ref.StorePath, SessionID: ref.ID, Reason: reason, AutoContinue: autoContinue}
	if !pw.compactor.Request(job, chars) {
		return false
	}
	pw.mu.Lock()
	pw.compactModels[ref] = model
	pw.mu.Unlock()
	pw.updateBanner()
	return true
}

// compactOptions are the options of a compaction job.
func (pw *projectWindow) compactOptions(job agents.CompactJob) agents.CompactOptions {
	ref := views.SessionRef{StorePath: job.StorePath, ID: job.SessionID}
	pw.mu.Lock()
	model := pw.compactModels[ref]
	pw.mu.Unlock()
	// With no model, CompactSession uses the session's own.
	return agents.CompactOptions{Config: pw.ui.agentConfig(), Model: model}
}

// onCompactNotice reports the compaction worker's progress, and its end to
// the run workflows waiting for it (compactForRun).
func (pw *projectWindow) onCompactNotice(n agents.CompactNotice) {
	ref := views.SessionRef{StorePath: n.Job.StorePath, ID: n.Job.SessionID}
	name := store.DisplayName(ref.ID, "")
	if n.Started {
		pw.setStatus(ref, fmt.Sprintf("Compacting %s with %s…", name, n.Agent), false)
		pw.updateBanner()
		return
	}
	defer func() {
		pw.mu.Lock()
		waiters := pw.compactWaiters[ref]
		delete(pw.compactWaiters, ref)
		pw.mu.Unlock()
		for _, w := range waiters {
			w <- n // buffered, one notice each
		}
	}()
	if n.Err != nil {
		log.Printf("compaction: %s of %s: %v", name, ref.StorePath, n.Err)
	} else {
		log.Printf("compaction: %s of %s by %s through seq %d, context %d → %d characters",
			name, ref.StorePath, n.Outcome.Agent, n.Outcome.AfterSeq, n.Outcome.CharsBefore, n.Outcome.CharsAfter)
	}
	pw.updateBanner()
	switch {
	case errors.Is(n.Err, context.Canceled):
		return
	case errors.Is(n.Err, agents.ErrNoBoundary):
		pw.setStatus(ref, fmt.Sprintf("%s was not compacted: it needs at least two prompts since its last compaction.", name), true)
		return
	case n.Err != nil:
		pw.setStatus(ref, fmt.Sprintf("Compacting %s failed: %s", name, project.OneLine(n.Err)), true)
		return
	}
	pw.setStatus(ref, fmt.Sprintf("Compacted %s with %s: context down from %s to %s characters.", name, n.Outcome.Agent,
		display.Count(n.Outcome.CharsBefore), display.Count(n.Outcome.CharsAfter)), false)
}

// updateBanner shows "may be compacting" for the session shown when it is
// being compacted, or when its agent runs at ≥ 90 % of the threshold and
// has been silent for bannerAfter.
func (pw *projectWindow) updateBanner() {
	pw.mu.Lock()
	ref := pw.current
	rs := pw.runs[ref]
	silent := rs != nil && time.Since(rs.lastEvent) >= bannerAfter
	chars := pw.currentChars
	pw.mu.Unlock()
	text := ""
	switch {
	case ref.ID != 0 && pw.compactor != nil && pw.compactor.Busy(ref.StorePath, ref.ID):
		text = "Compacting this session's older history into a summary…"
	case silent && chars*10 >= store.CompactionThreshold*9:
		text = "This session may be compacting…"
	}
	pw.mu.Lock()
	changed := text != pw.banner
	pw.banner = text
	pw.mu.Unlock()
	if changed { // called on every watch tick
		fyne.Do(func() { pw.mv.SetBanner(text) })
	}
}
