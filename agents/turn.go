package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// Defaults of TurnOptions.
const (
	DefaultFlushInterval = 250 * time.Millisecond
	DefaultGrace         = 2 * time.Second
	DefaultIdleTimeout   = 30 * time.Minute
	// DefaultConnectTimeout is how long an agent may take to get a first
	// answer from its model (anything but its start-up line).
	DefaultConnectTimeout = 5 * time.Minute
)

// TurnOptions configure RunTurn.
type TurnOptions struct {
	Config  Config
	Backend Backend // "" picks the model's backend (BackendForModel)
	Model   string  // "" lets the CLI choose its default model
	Dir     string  // the worktree the agent works in
	Env     []string
	// Hidden sends an internal prompt (the auto-continue block) that is not
	// stored as a user message.
	Hidden bool
	// Save says when parsed events are written (the policy and its
	// buffer); the zero value is SaveChunk every DefaultFlushInterval.
	Save SaveOptions
	// Grace is how long the agent gets between SIGTERM and SIGKILL.
	Grace time.Duration
	// IdleTimeout stops an agent that printed nothing for this long.
	IdleTimeout time.Duration
	// ConnectTimeout stops an agent whose model has not answered this long
	// after it started (a CLI retrying an API it cannot reach prints
	// nothing but retry notices); 0 means DefaultConnectTimeout.
	ConnectTimeout time.Duration
	// OnProgress is told, while the agent runs, each line it prints on
	// stderr and each retry notice ("Reconnecting... 2/5 (…)"), trimmed;
	// none of them is stored.
	OnProgress func(line string)
	// after starts the connect timer; nil means time.After (tests inject
	// their own, so that no test waits for a clock).
	after func(time.Duration) <-chan time.Time
	// Threshold is the compaction threshold; 0 means store.CompactionThreshold.
	// When the session's context reaches it mid-turn, the turn is stopped
	// for compaction unless it is about to finish.
	Threshold int64
	// OnStarted is called once the agent process runs, with the clean
	// prompt already stored under SaveChunk (SaveStep and SaveTurn store
	// it with the first step or the turn).
	OnStarted func()
	// OnSaved is called after each batch of events is written.
	OnSaved func(saved []codec.Event)
	// OnSubagent is called after each batch of a sub-agent's events is
	// written to the sub-agent's own session.
	OnSubagent func(SubagentSaved)
	// ProjectPermissions are the project's defaults; the session's own
	// mode and rules (store.PermissionService.Of) override them.
	ProjectPermissions store.Permissions
	// Ask answers claude's permission prompts that no rule decides, on the
	// prompt server's goroutine; ctx ends when the agent stops waiting.
	// nil leaves them to claude, which denies them in -p mode.
	Ask func(ctx context.Context, req PermissionRequest) PermissionAnswer
	// PermissionServer is the command line of the MCP permission server
	// claude starts; nil runs this executable's `mcp-permissions`.
	PermissionServer []string
	// MCPServers are more MCP servers the agent gets in its MCP
	// configuration (the project's history, `lazuli mcp`, when the
	// project lets agents search it); compaction runs get none.
	MCPServers []MCPServer
	// Notices shows, once each, what Lazuli says about how it runs the
	// agent (RootNotice).
	Notices *Notices
}

// SubagentSaved reports events of a sub-agent written to its session.
type SubagentSaved struct {
	ToolUseID string // the parent's Agent/Task call
	SessionID int64
	Name      string
	Created   bool // this batch created the session
	Saved     []codec.Event
}

// TurnResult reports how a turn ended.
type TurnResult struct {
	Backend      Backend
	Model        string
	CLISessionID string // the CLI's own session or thread id
	EventsSaved  int    // events written, the user's prompt included
	Completed    *bool  // from the turn's last Complete event; nil when none
	DurationMS   uint64
	CostUSD      float64
	ExitCode     int
	Stopped      bool // the caller cancelled the run
	// StoppedForCompaction reports a turn stopped mid-way because the
	// session crossed the threshold; compact, then auto-continue.
	StoppedForCompaction bool
	// NeedsCompaction reports a session at or over the threshold.
	NeedsCompaction bool
	ContextChars    int64 // characters since the latest compaction, after the turn
	Stderr          string
	Elapsed         time.Duration
}

// Success reports a turn that completed successfully.
func (r TurnResult) Success() bool { return r.Completed != nil && *r.Completed }

// Errors of RunTurn.
var (
	ErrAgentFailed   = errors.New("agent failed")
	ErrNoResult      = errors.New("agent exited without a result")
	ErrAgentIdle     = errors.New("agent stopped: no output")
	ErrNoAnswer      = errors.New("agent stopped: no answer from the model")
	ErrStoreReadOnly = errors.New("store is read-only")
)

// RunTurn runs one prompt on session sessionID of st: it injects the
// session's context, starts the agent in opts.Dir, stores the clean prompt
// and then every parsed event as opts.Save says (by default in small
// transactions as they arrive, at most DefaultFlushInterval apart), sets
// last_claude_uuid while the agent runs and clears it afterwards. Cancelling ctx stops the agent's process group; the
// partial turn stays stored. The error is nil when the agent ran and its
// turn was stored, whatever its outcome (see TurnResult); it reports a CLI
// that could not start, a store that could not be written, or an agent
// that ended without a result.
func RunTurn(ctx context.Context, st *store.Store, sessionID int64, prompt string, opts TurnOptions) (TurnResult, error) {
	if opts.Backend == "" {
		opts.Backend = BackendForModel(opts.Model)
	}
	res := TurnResult{Backend: opts.Backend, Model: opts.Model}
	if st.ReadOnly() {
		return res, ErrStoreReadOnly
	}
	if err := opts.Save.Validate(); err != nil {
		return res, err
	}
	sess, err := st.Sessions().Get(ctx, sessionID)
	if err != nil {
		return res, err
	}
	if err := clearStaleCLISession(ctx, st, sess); err != nil {
		return res, err
	}
	// The first prompt goes out unchanged, later ones behind the session's
	// history between the context tags (spec §6).
	payload, err := st.Compactions().Context(ctx, sessionID)
	if err != nil {
		return res, err
	}
	full := codec.BuildContextPrompt(payload, prompt)
	before, err := st.Compactions().CharsSince(ctx, sessionID)
	if err != nil {
		return res, err
	}
	t := &turn{st: st, session: sessionID, opts: opts, res: &res, prompt: prompt,
		chars: before, threshold: opts.Threshold}
	if t.threshold <= 0 {
		t.threshold = store.CompactionThreshold
	}
	return t.run(ctx, full)
}

// turn is the state of one RunTurn.
type turn struct {
	st        *store.Store
	session   int64
	opts      TurnOptions
	res       *TurnResult
	prompt    string
	parser    parse.Parser
	proc      *process
	started   time.Time
	pending   []codec.Event
	recent    []codec.Event // the last events of the turn, for the Complete check
	chars     int64
	threshold int64
	echoSeen  bool
	stepEnded bool // a step ended since the last write (SaveStep)
	sawResult bool
	answered  bool   // the agent printed an event beyond its start-up
	progress  string // the last progress line (OnProgress)
	stopWhy   error  // why Lazuli stopped the agent, if it did
	storeErr  error
	usageDone int                // the parser's usage rows stored so far
	flushed   map[codec.Kind]int // anchorable events stored so far, by kind (see parse.PlaceUsageAfter)
	subs      []*subagentSink    // sub-agents' sessions, in the order they began
	mark      *runMark           // held while last_claude_uuid is this run's
}

// subagentSink is a sub-agent's session, written as the turn streams.
type subagentSink struct {
	toolUseID, asked string
	session          int64 // 0 until its first batch is written
	name             string
	pending          []codec.Event
}

func (t *turn) run(ctx context.Context, full string) (TurnResult, error) {
	own, err := t.st.Permissions().Of(ctx, t.session)
	if err != nil {
		return *t.res, err
	}
	inv := Invocation{Backend: t.opts.Backend, Command: t.opts.Config.Executable(t.opts.Backend),
		Model: t.opts.Model, Dir: t.opts.Dir, Prompt: full, Env: t.opts.Env,
		Permissions: EffectivePermissions(t.opts.ProjectPermissions, own), AsRoot: t.opts.Backend == Claude && claudeRefusesBypass(t.opts.Env),
		MCPServers: t.opts.MCPServers}
	if inv.Backend == Claude && inv.AsRoot && inv.Permissions.Mode == ModeBypass {
		t.opts.Notices.say(RootNotice)
	}
	broker, err := t.startPrompts(&inv)
	if err != nil {
		return *t.res, err
	}
	if broker != nil {
		defer broker.Close()
	}
	t.parser = newStreamParser(inv.Backend, t.opts.Model)
	grace := t.opts.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	if err := ctx.Err(); err != nil {
		return *t.res, err
	}
	proc, err := startProcess(inv, grace)
	if err != nil {
		return *t.res, err
	}
	t.proc, t.started = proc, time.Now()
	if !t.opts.Hidden {
		t.pending = append(t.pending, codec.UserMessage(t.prompt))
		if t.opts.Save.policy() == SaveChunk {
			t.flush(ctx) // step and turn write it with the first step, or the turn
		}
	}
	if t.opts.OnStarted != nil {
		t.opts.OnStarted()
	}
	t.loop(ctx)
	code, waitErr := proc.result()
	t.res.ExitCode = code
	t.res.Stderr = proc.stderrTail()
	t.res.Elapsed = time.Since(t.started)
	t.finish(ctx, code, waitErr)

	// The turn is over: clear the CLI id even if the context is cancelled.
	clearCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if t.res.CLISessionID != "" {
		err := t.st.Sessions().SetLastClaudeUUID(clearCtx, t.session, "")
		if err != nil && t.storeErr == nil {
			t.storeErr = err
		}
		t.mark.end(err == nil)
	}
	if chars, err := t.st.Compactions().CharsSince(clearCtx, t.session); err == nil {
		t.chars = chars
	}
	t.res.ContextChars = t.chars
	if t.chars >= t.threshold {
		t.res.NeedsCompaction = true
	}
	switch {
	case t.storeErr != nil:
		return *t.res, fmt.Errorf("saving the turn: %w", t.storeErr)
	case waitErr != nil:
		return *t.res, waitErr
	case t.res.Stopped || t.res.StoppedForCompaction:
		return *t.res, nil
	case t.stopWhy != nil:
		return *t.res, t.stopWhy
	case !t.sawResult:
		return *t.res, fmt.Errorf("%w (exit code %d)%s", ErrNoResult, code, stderrSuffix(t.res.Stderr))
	}
	return *t.res, nil
}

// loop feeds the agent's output to the parser and flushes parsed events
// as the save policy says until the process and its pipes have ended.
func (t *turn) loop(ctx context.Context) {
	idle := t.opts.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	var tickC <-chan time.Time // only SaveChunk writes on a clock
	if t.opts.Save.policy() == SaveChunk {
		tick := time.NewTicker(t.opts.Save.interval())
		defer tick.Stop()
		tickC = tick.C
	}
	idleTimer := time.NewTimer(idle)
	defer idleTimer.Stop()
	connectWait := t.opts.ConnectTimeout
	if connectWait <= 0 {
		connectWait = DefaultConnectTimeout
	}
	after := t.opts.after
	if after == nil {
		after = time.After
	}
	connect := after(connectWait)
	done := ctx.Done()
	for {
		if t.answered {
			connect = nil
		}
		select {
		case l, ok := <-t.proc.lines:
			if !ok {
				return
			}
			if !idleTimer.Stop() {
				select {
				case <-idleTimer.C:
				default:
				}
			}
			idleTimer.Reset(idle)
			t.feed(ctx, l)
		case <-tickC:
			t.flush(ctx)
		case <-idleTimer.C:
			t.stopWhy = fmt.Errorf("%w for %s", ErrAgentIdle, idle)
			t.proc.stop()
		case <-connect:
			connect = nil
			t.stopWhy = fmt.Errorf("%w within %s", ErrNoAnswer, connectWait)
			t.proc.stop()
		case <-done:
			done = nil
			t.res.Stopped = true
			t.proc.stop()
		}
	}
}

// feed parses one output line.
func (t *turn) feed(ctx context.Context, l line) {
	if l.stderr {
		t.report(string(l.data))
		return // kept in the stderr tail for messages, never stored
	}
	if bytes.Contains(l.data, []byte(`"Reconnecting...`)) {
		if o, ok := parse.DecodeObject(l.data); ok && o.Str("type") == "error" {
			t.report(o.Str("message")) // a retry notice: the parser drops it
		}
	}
	if l.tooLong {
		parse.FeedTooLong(t.parser)
		return
	}
	t.captureSessionID(ctx, l.data)
	for _, e := range store.FilterInjectedEvents(t.parser.Feed(l.data)) {
		t.add(e)
	}
	t.takeSubagents()
	t.saveDue(ctx)
	if t.res.StoppedForCompaction || t.res.Stopped {
		return
	}
	if t.chars >= t.threshold && !t.res.NeedsCompaction {
		// Mid-turn trigger (spec §7.2 #1): store what we have now (as far
		// as the save policy writes mid-turn) and stop the agent unless it
		// is finishing anyway.
		t.res.NeedsCompaction = true
		if t.opts.Save.policy() == SaveChunk {
			t.flush(ctx)
		}
		if !hasComplete(t.recent) {
			t.res.StoppedForCompaction = true
			t.proc.stop()
		}
	}
}

// add queues one parsed event. An Init without a folder (Gemini CLI's,
// Qwen Code's and OpenCode's streams name none) gets the run's.
func (t *turn) add(e codec.Event) {
	if e.Kind == codec.KindInit && e.CWD == "" {
		e.CWD = t.opts.Dir
	}
	if e.Kind == codec.KindUserMessage && !t.echoSeen && e.Content == t.prompt {
		t.echoSeen = true // the CLI echoed the prompt stored already
		return
	}
	if e.Kind == codec.KindComplete {
		t.sawResult = true
		if t.opts.Backend.desc().MeasuresDuration && e.DurationMS == 0 {
			e.DurationMS = uint64(time.Since(t.started).Milliseconds())
		}
		ok := e.Success
		t.res.Completed, t.res.DurationMS, t.res.CostUSD = &ok, e.DurationMS, e.CostUSD
	} else if e.IsTurnContent() {
		t.res.Completed = nil
	}
	if e.Kind != codec.KindInit && e.Kind != codec.KindHook { // start-up, not the model
		t.answered = true
	}
	t.pending = append(t.pending, e)
	t.stepEnded = t.stepEnded || endsStep(e)
	t.recent = append(t.recent, e)
	if len(t.recent) > 20 {
		t.recent = t.recent[len(t.recent)-20:]
	}
	t.chars += codec.CharLen(codec.CompactEvent(e))
}

// captureSessionID records the CLI's session id in last_claude_uuid the
// first time the agent reports it (spec §5.2).
func (t *turn) captureSessionID(ctx context.Context, b []byte) {
	if t.res.CLISessionID != "" {
		return
	}
	id := sessionIDOf(b)
	if id == "" {
		return
	}
	t.res.CLISessionID = id
	if err := t.st.Sessions().SetLastClaudeUUID(ctx, t.session, id); err != nil {
		if t.storeErr == nil && ctx.Err() == nil {
			t.storeErr = err
		}
		return
	}
	t.mark = markRun(t.st.Path(), t.session, id)
}

// sessionIDOf returns the session id a Claude init line or a Codex
// thread.started / session_meta line carries.
func sessionIDOf(b []byte) string {
	switch {
	case bytes.Contains(b, []byte(`"subtype":"init"`)):
		var v struct {
			SessionID string `json:"session_id"`
		}
		if json.Unmarshal(b, &v) == nil {
			return v.SessionID
		}
	case bytes.Contains(b, []byte(`"thread.started"`)):
		var v struct {
			ThreadID string `json:"thread_id"`
		}
		if json.Unmarshal(b, &v) == nil {
			return v.ThreadID
		}
	case bytes.Contains(b, []byte(`"type":"session_meta"`)):
		var v struct {
			Payload struct {
				ID string `json:"id"`
			} `json:"payload"`
		}
		if json.Unmarshal(b, &v) == nil {
			return v.Payload.ID
		}
	}
	return ""
}

// finish stores what the parser held back and, when the agent failed
// without reporting it, a failed Complete so the session shows ✗, with why
// it failed (store.RunFailed) in the same batch.
func (t *turn) finish(ctx context.Context, exitCode int, waitErr error) {
	for _, e := range store.FilterInjectedEvents(t.parser.Finish()) {
		t.add(e)
	}
	t.takeSubagents()
	stoppedByUs := t.res.Stopped || t.res.StoppedForCompaction
	if !t.sawResult && !stoppedByUs && (t.stopWhy != nil || exitCode != 0 || t.res.EventsSaved+len(t.pending) > 0) {
		fail := codec.Complete(false, uint64(time.Since(t.started).Milliseconds()), 0)
		t.pending = append(t.pending, fail)
		ok := false
		t.res.Completed, t.res.DurationMS = &ok, fail.DurationMS
	}
	if why := t.failure(exitCode, waitErr); why != "" {
		t.pending = append(t.pending, store.RunFailed(why))
	}
	t.flush(ctx)
}

// report passes a progress line to OnProgress and keeps it for the
// failure reason.
func (t *turn) report(s string) {
	if s = strings.TrimSpace(s); s == "" {
		return
	}
	t.progress = s
	if t.opts.OnProgress != nil {
		t.opts.OnProgress(s)
	}
}

// failure returns why the turn failed, for the session's record of it
// (store.RunFailed), or "" when it did not fail or the user
// stopped it: Lazuli's reason for stopping the agent, else what ended it
// without a result, then the end of what it printed on stderr (or its last
// retry notice).
func (t *turn) failure(exitCode int, waitErr error) string {
	var why string
	switch {
	case t.res.Stopped || t.res.StoppedForCompaction:
		return ""
	case t.stopWhy != nil:
		why = t.stopWhy.Error()
	case waitErr != nil:
		why = waitErr.Error()
	case !t.sawResult:
		why = fmt.Sprintf("%s (exit code %d)", ErrNoResult, exitCode)
	default:
		return ""
	}
	if tail := strings.TrimSpace(t.res.Stderr); tail != "" {
		return why + "\n" + tail
	}
	if t.progress != "" {
		return why + "\n" + t.progress
	}
	return why
}

// hasComplete reports whether events hold a Complete.
func hasComplete(events []codec.Event) bool {
	for _, e := range events {
		if e.Kind == codec.KindComplete {
			return true
		}
	}
	return false
}

// stderrSuffix formats the last stderr line for an error message.
func stderrSuffix(stderr string) string {
	s := strings.TrimSpace(stderr)
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return ": " + s
}
