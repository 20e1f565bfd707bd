package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/store"
)

// runResult is the --json output of `lazuli run`.
type runResult struct {
	Store         string           `json:"store"`
	Session       int64            `json:"session"`
	Backend       string           `json:"backend"`
	Model         string           `json:"model"`
	EventsSaved   int              `json:"events_saved"`
	Completed     *bool            `json:"completed"`
	DurationMS    uint64           `json:"duration_ms"`
	CostUSD       store.SerdeFloat `json:"cost_usd"` // 0.0, not 0, as in AZUREAL's dumps
	ExitCode      int              `json:"exit_code"`
	Stopped       bool             `json:"stopped"`
	Compacted     bool             `json:"compacted"`
	AutoContinued bool             `json:"auto_continued"`
	Error         string           `json:"error,omitempty"`
}

// errStopped reports a run stopped by a signal.
var errStopped = errors.New("stopped")

// maxAutoRounds bounds compaction + auto-continue rounds of one run.
const maxAutoRounds = 3

func runRun(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("run", env)
	storeArg := fs.String("store", "", "store file or folder")
	sessionArg := fs.String("session", "", "continue this session (default: a new one)")
	backendArg := fs.String("backend", "", "claude or codex (default: the model's, else the session's, else claude)")
	model := fs.String("model", "", "model passed to the CLI (default: the session's, else the CLI's)")
	asJSON := fs.Bool("json", false, "print a JSON result at the end instead of the transcript")
	noFull := fs.Bool("no-full-text", false, fullTextFlagHelp)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one PROMPT (or - to read it from stdin)")
	}
	prompt := pos[0]
	if prompt == "-" {
		b, err := io.ReadAll(io.LimitReader(os.Stdin, 64<<20))
		if err != nil {
			return fmt.Errorf("read prompt: %w", err)
		}
		prompt = string(b)
	}
	if !utf8.ValidString(prompt) {
		return usagef("the prompt is not valid UTF-8")
	}
	if strings.TrimSpace(prompt) == "" {
		return usagef("the prompt is empty")
	}
	var backend agents.Backend
	if *backendArg != "" {
		if backend, err = agents.ParseBackend(*backendArg); err != nil {
			return usagef("%v", err)
		}
		if *model != "" && agents.BackendForModel(*model) != backend {
			return usagef("model %q is not a %s model", *model, backend)
		}
	}
	var sessionID int64
	if *sessionArg != "" {
		if sessionID, err = ParseSessionID(*sessionArg); err != nil {
			return err
		}
	}
	path, err := StorePath(env.Dir, *storeArg)
	if err != nil {
		return err
	}
	st, err := openWritable(ctx, env, path) // opening never writes
	if err != nil {
		return err
	}
	defer st.Close()
	st.SetKeepFullText(!*noFull)
	sessionModel, hasEvents := "", false // the model the session last ran with
	if sessionID != 0 {
		if _, err := sessionByID(ctx, st, sessionID); err != nil {
			return err
		}
		events, err := st.LoadEvents(ctx, sessionID)
		if err != nil {
			return err
		}
		sessionModel, hasEvents = agents.SessionModel(events), len(events) > 0
		if *model == "" && sessionModel != "" && (backend == "" || agents.BackendForModel(sessionModel) == backend) {
			*model = sessionModel
		}
	}
	if backend == "" {
		backend = agents.BackendForModel(*model)
	}
	// Check the CLI before anything is written: a missing agent must not
	// create a file or a session.
	cfg := agents.Config{}
	if info := agents.Detect(ctx, cfg, backend); info.Err != nil {
		return info.Err
	}
	dir := worktreeDir(path)
	if sessionID == 0 {
		s, err := st.CreateSession(ctx, BranchOf(dir), "")
		if err != nil {
			return err
		}
		sessionID = s.ID
	} else if hasEvents && *model != "" && *model != sessionModel {
		// Record the switch as AZUREAL does (a ModelSwitch event).
		if _, err := st.AppendEvents(ctx, sessionID, []store.Event{store.ModelSwitch(*model)}); err != nil {
			return err
		}
	}

	res := runResult{Store: path, Session: sessionID, Backend: string(backend), Model: *model}
	out := &transcriptPrinter{w: env.Stdout, quiet: *asJSON}
	if !*asJSON {
		fmt.Fprintf(env.Stderr, "lazuli: S%d in %s, running %s\n", sessionID, path, backend)
	}
	opts := agents.TurnOptions{Config: cfg, Backend: backend, Model: *model, Dir: dir, OnSaved: out.print}
	turnRes, runErr := agents.RunTurn(ctx, st, sessionID, prompt, opts)
	for round := 0; runErr == nil && turnRes.NeedsCompaction && round < maxAutoRounds && ctx.Err() == nil; round++ {
		outcome, err := agents.CompactSession(ctx, st, sessionID, agents.CompactOptions{Config: cfg, Backend: backend, Model: *model})
		if err != nil {
			fmt.Fprintf(env.Stderr, "lazuli: compaction: %s\n", OneLine(err))
			break
		}
		res.Compacted = true
		out.note(fmt.Sprintf("compacted by %s through seq %d (%d characters of context left)",
			outcome.Agent, outcome.AfterSeq, outcome.CharsAfter))
		if !turnRes.StoppedForCompaction {
			break
		}
		res.AutoContinued = true
		opts.Hidden = true
		next, err := agents.RunTurn(ctx, st, sessionID, agents.AutoContinuePrompt(), opts)
		next.EventsSaved += turnRes.EventsSaved
		turnRes, runErr = next, err
	}
	res.EventsSaved, res.Completed, res.DurationMS, res.CostUSD = turnRes.EventsSaved, turnRes.Completed, turnRes.DurationMS, store.SerdeFloat(turnRes.CostUSD)
	res.ExitCode, res.Stopped = turnRes.ExitCode, turnRes.Stopped
	if res.Model == "" {
		res.Model = turnRes.Model
	}
	switch {
	case runErr != nil:
		res.Error = OneLine(runErr)
	case turnRes.Stopped:
		res.Error = errStopped.Error()
	case !turnRes.Success():
		res.Error = "the agent reported a failure"
		if s := stderrLast(turnRes.Stderr); s != "" {
			res.Error += ": " + s
		}
	}
	if *asJSON {
		b, _ := json.Marshal(res)
		fmt.Fprintln(env.Stdout, string(b))
	} else {
		out.summary(res)
	}
	if res.Error != "" {
		return errors.New(res.Error)
	}
	return nil
}

// stderrLast returns the last non-empty line of s, shortened.
func stderrLast(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// transcriptPrinter prints saved events as a short readable transcript.
type transcriptPrinter struct {
	w     io.Writer
	quiet bool
}

func (p *transcriptPrinter) print(events []store.Event) {
	if p.quiet {
		return
	}
	for _, e := range events {
		switch e.Kind {
		case store.KindUserMessage:
			fmt.Fprintf(p.w, "› %s\n", firstLines(e.Content, 3))
		case store.KindAssistantText:
			fmt.Fprintf(p.w, "%s\n", printable.Text(strings.TrimSpace(e.Text)))
		case store.KindToolCall:
			fmt.Fprintf(p.w, "  ⚙ %s %s\n", printable.Line(e.ToolName), printable.Line(store.ToolKeyParam(e.ToolName, e.Input)))
		case store.KindToolResult:
			if e.IsError {
				fmt.Fprintf(p.w, "  ✗ %s\n", firstLines(e.Content, 2))
			}
		case store.KindComplete:
			mark := "✓"
			if !e.Success {
				mark = "✗"
			}
			fmt.Fprintf(p.w, "%s %s\n", mark, display.DurationBadge(int64(e.DurationMS)))
		}
	}
}

func (p *transcriptPrinter) note(s string) {
	if !p.quiet {
		fmt.Fprintf(p.w, "· %s\n", s)
	}
}

func (p *transcriptPrinter) summary(r runResult) {
	fmt.Fprintf(p.w, "· S%d: %d events saved\n", r.Session, r.EventsSaved)
}

// firstLines returns the first n lines of s, marking a cut, its control
// characters escaped.
func firstLines(s string, n int) string {
	lines := strings.SplitN(printable.Text(strings.TrimSpace(s)), "\n", n+1)
	if len(lines) > n {
		return strings.Join(lines[:n], "\n  ") + " …"
	}
	return strings.Join(lines, "\n  ")
}

func runCompact(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("compact", env)
	storeArg := fs.String("store", "", "store file or folder")
	agentArg := fs.String("agent", "auto", "auto, builtin, claude or codex")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want one SESSION")
	}
	agent, err := agents.ParseCompactAgent(*agentArg)
	if err != nil {
		return usagef("%v", err)
	}
	st, sess, err := openSession(ctx, env, *storeArg, pos[0], false)
	if err != nil {
		return err
	}
	defer st.Close()
	out, err := agents.CompactSession(ctx, st, sess.ID, agents.CompactOptions{Agent: agent})
	for _, a := range out.Attempts {
		fmt.Fprintf(env.Stderr, "lazuli compact: %s\n", a)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		b, _ := json.Marshal(map[string]any{"session": out.SessionID, "after_seq": out.AfterSeq,
			"summary_chars": out.SummaryChars, "agent": out.Agent,
			"chars_before": out.CharsBefore, "chars_after": out.CharsAfter})
		fmt.Fprintln(env.Stdout, string(b))
		return nil
	}
	fmt.Fprintf(env.Stdout, "S%d compacted by %s through seq %d: a %d-character summary; context %d → %d characters\n",
		out.SessionID, out.Agent, out.AfterSeq, out.SummaryChars, out.CharsBefore, out.CharsAfter)
	return nil
}
