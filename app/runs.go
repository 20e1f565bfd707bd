package app

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// prefAgentPath is the preference key of backend b's executable path:
// agents.claude_path, agents.codex_path, ….
func prefAgentPath(b agents.Backend) string { return "agents." + string(b) + "_path" }

// runner owns the agents running on the window's sessions: the prompt
// box's run lifecycle (start, progress, stop, the end's report), the
// detected CLIs and their settings, and the model a session switches to.
type runner struct {
	pw *projectWindow

	mu       sync.Mutex
	runs     map[views.SessionRef]*runState // agents running, by session
	backends []views.BackendStatus          // the CLIs as last detected
}

func newRunner(pw *projectWindow) *runner {
	return &runner{pw: pw, runs: map[views.SessionRef]*runState{}}
}

// isRunning reports whether an agent runs on ref.
func (rn *runner) isRunning(ref views.SessionRef) bool {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	return rn.runs[ref] != nil
}

// silentFor reports whether an agent runs on ref and has saved nothing
// for d.
func (rn *runner) silentFor(ref views.SessionRef, d time.Duration) bool {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	rs := rn.runs[ref]
	return rs != nil && time.Since(rs.lastEvent) >= d
}

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
	cfg := agents.Config{Paths: map[agents.Backend]string{}}
	for _, b := range agents.Backends() {
		cfg.Paths[b] = p.String(prefAgentPath(b))
	}
	return cfg
}

// agentSettings returns the settings as the views show them.
func (ui *gui) agentSettings() views.AgentSettings {
	p := ui.fa.Preferences()
	s := views.AgentSettings{Paths: map[string]string{}}
	for _, b := range agents.Backends() {
		if v := p.String(prefAgentPath(b)); v != "" {
			s.Paths[string(b)] = v
		}
	}
	return s
}

// agentBackends describes the backends for the agent settings, one path
// field each, from the backend table.
func agentBackends() []views.AgentBackend {
	var out []views.AgentBackend
	for _, d := range agents.Descriptors() {
		out = append(out, views.AgentBackend{Name: string(d.Name), Title: d.Title, Command: d.Command, EnvVar: d.EnvVar})
	}
	return out
}

// modelChoices lists the models of every backend for the prompt box.
func modelChoices() []views.ModelChoice {
	var out []views.ModelChoice
	for _, d := range agents.Descriptors() {
		for _, m := range d.Models {
			out = append(out, views.ModelChoice{Name: m, Backend: string(d.Name), Title: d.Title})
		}
	}
	return out
}

// detectBackends finds every backend's CLI and shows what it found.
func (rn *runner) detectBackends() {
	cfg := rn.pw.ui.agentConfig()
	rn.pw.wg.Go(func() {
		var status []views.BackendStatus
		for _, b := range agents.Backends() {
			info := agents.Detect(rn.pw.ctx, cfg, b)
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
		rn.mu.Lock()
		rn.backends = status
		rn.mu.Unlock()
		onUI(func() { rn.pw.mv.PromptBox().SetBackends(status) })
	})
}

// worktreeDir returns the folder an agent for the store at path works in.
func (rn *runner) worktreeDir(storePath string) string {
	for _, wt := range rn.pw.wts {
		if wt.StorePath == storePath && wt.Dir != "" {
			return wt.Dir
		}
	}
	return ""
}

// running reports the sessions with an agent running, by store path.
func (rn *runner) running() map[string]map[int64]bool {
	rn.mu.Lock()
	defer rn.mu.Unlock()
	out := map[string]map[int64]bool{}
	for ref := range rn.runs {
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
func (rn *runner) SendPrompt(req views.PromptRequest) {
	if rn.pw.readOnly {
		rn.pw.showError("send prompt", errReadOnly)
		return
	}
	rn.startRun(req.Ref, req.Prompt, req.Model)
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
func (rn *runner) startRun(ref views.SessionRef, prompt, model string) {
	dir := rn.worktreeDir(ref.StorePath)
	if dir == "" {
		rn.pw.mv.PromptBox().SendFailed(ref, "this store has no worktree folder for an agent to work in") // said once, under the box
		return
	}
	ctx, cancel := context.WithCancel(rn.pw.ctx)
	backend := agents.BackendForModel(model)
	rs := &runState{cancel: cancel, backend: backend, started: time.Now(), lastEvent: time.Now()}
	worktree := rn.pw.shown.newSessionWorktree()
	rn.mu.Lock()
	if rn.runs[ref] != nil {
		rn.mu.Unlock()
		cancel()
		return
	}
	rn.runs[ref] = rs
	rn.mu.Unlock()
	if rn.pw.shown.ref() == ref {
		rn.pw.mv.PromptBox().SetRunning(true)
	}
	rn.pw.status.set(ref, fmt.Sprintf("Running %s on %s…", backend, runName(ref)), false)
	// One goroutine does all of the run's window work after this, so that
	// it happens in order.
	rn.pw.wg.Go(func() {
		defer cancel()
		rn.pw.list.refreshList() // the sidebar's ●
		run := &runRef{ref: ref}
		err := rn.runWorkflow(ctx, run, prompt, model, worktree, rs)
		rn.mu.Lock()
		delete(rn.runs, run.ref)
		rn.mu.Unlock()
		rn.pw.list.refreshList()
		rn.showRunning(run.ref)
		if run.started {
			return
		}
		// The agent never ran: nothing was stored; the prompt stays, and
		// why is said under it (only there).
		if err == nil {
			err = errors.New("the agent did not start")
		}
		if errors.Is(err, context.Canceled) && rn.pw.ctx.Err() != nil {
			return // the window closed
		}
		log.Printf("run %s: %v", runName(ref), err)
		rn.pw.status.set(ref, "", false) // the "Running…" of this send; why is said once, under the box
		why := project.OneLine(err)
		onUI(func() { rn.pw.mv.PromptBox().SendFailed(ref, why) })
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
func (rn *runner) runWorkflow(ctx context.Context, run *runRef, prompt, model, worktree string, rs *runState) error {
	st, err := rn.pw.store(run.ref.StorePath)
	if err != nil {
		return err
	}
	defaults, err := rn.pw.perms.projectDefaults()
	if err != nil {
		return err
	}
	servers, err := rn.historyServers(rn.worktreeDir(run.ref.StorePath))
	if err != nil {
		return err
	}
	// The window's store watcher shows what the turns save; RunSaved only
	// feeds the "may be compacting" banner.
	opts := agents.RunOptions{
		Turn: agents.TurnOptions{Config: rn.pw.ui.agentConfig(), Model: model, Dir: rn.worktreeDir(run.ref.StorePath),
			Save: rn.saveOptions(), MCPServers: servers,
			OnProgress: func(line string) {
				rn.pw.status.set(run.ref, fmt.Sprintf("Running %s on %s — %s", rs.backend, runName(run.ref), project.OneLine(errors.New(line))), false)
			},
			ProjectPermissions: defaults, Ask: rn.pw.perms.ask(run.ref.StorePath), Notices: rn.pw.perms.notices},
		Worktree: worktree,
		Compact:  rn.pw.compact.compactForRun(run.ref.StorePath),
		OnEvent: func(ev agents.RunEvent) {
			switch ev.Kind {
			case agents.RunStarted:
				rn.agentStarted(run, ev.SessionID, prompt)
			case agents.RunSaved:
				rn.mu.Lock()
				rs.lastEvent = time.Now()
				rn.mu.Unlock()
			case agents.RunTurnEnded:
				if run.started {
					rn.turnEnded(run.ref, ev.Turn, ev.Err)
				}
			case agents.RunContinuing:
				rn.pw.status.set(run.ref, fmt.Sprintf("Continuing after compaction with %s on %s…", ev.Backend,
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
func (rn *runner) agentStarted(run *runRef, id int64, prompt string) {
	old := run.ref
	run.started = true
	if old.ID == 0 {
		run.ref = views.SessionRef{StorePath: old.StorePath, ID: id}
		rn.mu.Lock()
		if rs := rn.runs[old]; rs != nil {
			delete(rn.runs, old)
			rn.runs[run.ref] = rs
		}
		rn.mu.Unlock()
		gen, shown := rn.pw.shown.stored(old, run.ref)
		rn.pw.status.moved(old, run.ref)
		rn.pw.list.refreshList()
		onUI(func() {
			rn.pw.mv.PromptBox().PromptStarted(old, prompt)
			if shown {
				rn.pw.ui.rememberSession(run.ref)
			}
		})
		if shown {
			rn.pw.shown.loadSession(run.ref, gen) // on this goroutine, in order with the run's other window work
		}
		return
	}
	onUI(func() { rn.pw.mv.PromptBox().PromptStarted(old, prompt) })
}

// turnEnded reports a finished turn.
func (rn *runner) turnEnded(ref views.SessionRef, res agents.TurnResult, err error) {
	name := runName(ref)
	var msg string
	isErr := false
	switch {
	case err != nil && errors.Is(err, context.Canceled) && rn.pw.ctx.Err() != nil:
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
	rn.pw.status.set(ref, msg, isErr)
	if rn.pw.shown.ref() == ref {
		rn.pw.wg.Go(func() { rn.pw.shown.showSessionInsight(ref) }) // the turn's tokens and files
	}
	if !res.Stopped && !res.StoppedForCompaction {
		rn.pw.ui.fa.SendNotification(fyne.NewNotification("Lazuli — "+name, msg))
	}
}

// StopRun stops the agent running on ref.
func (rn *runner) StopRun(ref views.SessionRef) {
	rn.mu.Lock()
	rs := rn.runs[ref]
	rn.mu.Unlock()
	if rs != nil {
		rn.pw.status.set(ref, "Stopping…", false)
		rs.cancel()
	}
}

// SwitchModel records the model the user chose for ref (a ModelSwitch
// event, as AZUREAL stores it).
func (rn *runner) SwitchModel(ref views.SessionRef, model string) {
	if rn.pw.readOnly || model == "" {
		return
	}
	rn.pw.wg.Go(func() {
		st, err := rn.pw.store(ref.StorePath)
		if err != nil {
			rn.pw.showError("switch model", err)
			return
		}
		s, err := st.Sessions().Get(rn.pw.ctx, ref.ID)
		if err != nil || s.EventCount == 0 {
			return // a new session records its model with its first turn
		}
		if cur, err := agents.StoredSessionModel(rn.pw.ctx, st, ref.ID); err != nil || cur == model {
			return
		}
		if _, err := st.Events().Append(rn.pw.ctx, ref.ID, []codec.Event{codec.ModelSwitch(model)}); err != nil {
			rn.pw.showError("switch model", err)
		}
	})
}

// SaveAgentSettings stores the executables and detects the CLIs again,
// and keeps the project's history switch (project.SetShareHistory).
func (rn *runner) SaveAgentSettings(s views.AgentSettings) {
	p := rn.pw.ui.fa.Preferences()
	for _, b := range agents.Backends() {
		p.SetString(prefAgentPath(b), s.Paths[string(b)])
	}
	if on, err := project.ShareHistory(rn.pw.projectKey()); err != nil || on != s.ShareHistory {
		if err := project.SetShareHistory(rn.pw.projectKey(), s.ShareHistory); err != nil {
			rn.pw.showError("save the history setting", err)
		}
	}
	rn.detectBackends()
}

// showAgentSettings opens the settings dialog.
func (rn *runner) showAgentSettings() {
	rn.mu.Lock()
	status := rn.backends
	rn.mu.Unlock()
	cur := rn.pw.ui.agentSettings()
	on, err := project.ShareHistory(rn.pw.projectKey())
	if err != nil {
		fyne.LogError("read the history setting", err)
	}
	cur.ShareHistory = on
	views.ShowAgentSettings(rn.pw.win, agentBackends(), cur, status, rn.SaveAgentSettings)
}

// historyServers is the MCP servers a run in the worktree dir gets: the
// project's history when its setting is on (Settings › Agents).
func (rn *runner) historyServers(dir string) ([]agents.MCPServer, error) {
	on, err := project.ShareHistory(rn.pw.projectKey())
	if err != nil || !on {
		return nil, err
	}
	s, err := agents.HistoryServer(dir)
	if err != nil {
		return nil, err
	}
	return []agents.MCPServer{s}, nil
}

// showRunning updates the prompt box of the session shown when it is ref
// (the caller refreshes the sidebar's ●).
func (rn *runner) showRunning(ref views.SessionRef) {
	shown := rn.pw.shown.ref() == ref
	running := rn.isRunning(ref)
	if shown {
		onUI(func() { rn.pw.mv.PromptBox().SetRunning(running) })
	}
}

// onStop stops the agent of the session shown.
func (rn *runner) onStop() {
	rn.StopRun(rn.pw.shown.ref())
}
