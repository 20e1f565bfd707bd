package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/printable"
	"github.com/lazuli-app/lazuli/project"
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
	CostUSD       codec.SerdeFloat `json:"cost_usd"` // 0.0, not 0, as in AZUREAL's dumps
	ExitCode      int              `json:"exit_code"`
	Stopped       bool             `json:"stopped"`
	Compacted     bool             `json:"compacted"`
	AutoContinued bool             `json:"auto_continued"`
	Error         string           `json:"error,omitempty"`
}

// errStopped reports a run stopped by a signal.
var errStopped = errors.New("stopped")

func runRun(ctx context.Context, env *Env, args []string) error {
	req, err := parseRunArgs(env, args)
	if err != nil {
		return err
	}
	st, err := openWritable(ctx, env, req.path) // opening never writes
	if err != nil {
		return err
	}
	defer st.Close()
	defer reportUnreadable(env, st) // before Close: runs first
	st.FullText().SetKeep(req.keepFull)
	if req.session != 0 {
		if _, err := sessionByID(ctx, st, req.session); err != nil {
			return err
		}
	}
	out := &transcriptPrinter{w: env.Stdout, errW: env.Stderr, quiet: req.asJSON, path: req.path}
	req.opts.OnEvent = out.event
	run, runErr := agents.RunWorkflow(ctx, st, req.session, req.prompt, req.opts)
	if !out.started { // it failed before the agent started
		return runErr
	}
	res := newRunResult(req.path, run, runErr)
	if req.asJSON {
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

// runRequest is a parsed `lazuli run` command line.
type runRequest struct {
	path     string
	session  int64
	prompt   string
	asJSON   bool
	keepFull bool // keep full tool results beside the compacted events
	opts     agents.RunOptions
}

// parseRunArgs reads the command line of `lazuli run`.
func parseRunArgs(env *Env, args []string) (runRequest, error) {
	var req runRequest
	fs := newFlags("run", env)
	storeArg := fs.String("store", "", "store file or folder")
	sessionArg := fs.String("session", "", "continue this session (default: a new one)")
	backendArg := fs.String("backend", "", backendNames()+" (default: the model's, else the session's, else claude)")
	model := fs.String("model", "", "model passed to the CLI (default: the session's, else the CLI's)")
	name := fs.String("name", "", "name of the new session (default: its prompt's first line)")
	fs.BoolVar(&req.asJSON, "json", false, "print a JSON result at the end instead of the transcript")
	noFull := fs.Bool("no-full-text", false, fullTextFlagHelp)
	yes := fs.Bool("yes", false, "allow what the agent asks permission for (default: deny it)")
	saveOn := fs.String("save-on", "chunk", "when events are written: chunk (buffered), step (each model step) or turn (at its end only)")
	bufferMS := fs.Int("save-buffer-ms", 0, "chunk: longest wait before a write, in ms (default 250)")
	bufferSize := fs.Int("save-buffer-size", 0, "chunk: write at once when this many events wait (default: no limit)")
	if err := rejectFlagLikePrompt(fs, args); err != nil {
		return req, err
	}
	pos, err := parseFlags(fs, args)
	if err != nil {
		return req, err
	}
	if len(pos) != 1 {
		return req, usagef("want one PROMPT (or - to read it from stdin)")
	}
	req.keepFull = !*noFull
	save, err := saveOptions(fs, *saveOn, *bufferMS, *bufferSize)
	if err != nil {
		return req, err
	}
	if req.prompt, err = readPrompt(pos[0]); err != nil {
		return req, err
	}
	var backend agents.Backend
	if *backendArg != "" {
		if backend, err = agents.ParseBackend(*backendArg); err != nil {
			return req, usagef("%v", err)
		}
		if *model != "" && agents.BackendForModel(*model) != backend {
			return req, usagef("model %q is not a %s model", *model, backend)
		}
	}
	if *sessionArg != "" {
		if req.session, err = ParseSessionID(*sessionArg); err != nil {
			return req, err
		}
	}
	if *name != "" && req.session != 0 {
		return req, usagef("--name names a new session, not S%d", req.session)
	}
	if req.path, err = StorePath(env.Dir, *storeArg); err != nil {
		return req, err
	}
	dir := worktreeDir(req.path)
	defaults, err := project.DefaultPermissions(projectKeyOf(req.path))
	if err != nil {
		return req, err
	}
	servers, err := HistoryServers(dir, projectKeyOf(req.path))
	if err != nil {
		return req, err
	}
	req.opts = agents.RunOptions{Worktree: project.BranchOf(dir), Name: *name,
		Turn: agents.TurnOptions{Backend: backend, Model: *model, Dir: dir, ProjectPermissions: defaults, Save: save, MCPServers: servers,
			Ask:     runAsker(env.Stderr, *yes),
			Notices: &agents.Notices{Show: func(s string) { fmt.Fprintln(env.Stderr, "lazuli: "+s) }}}}
	return req, nil
}

// saveOptions reads --save-on and its buffer flags, which only tune chunk.
func saveOptions(fs *flag.FlagSet, policy string, bufferMS, bufferSize int) (agents.SaveOptions, error) {
	p, err := agents.ParseSavePolicy(policy)
	if err != nil {
		return agents.SaveOptions{}, usagef("--save-on: %v", err)
	}
	if p != agents.SaveChunk && (flagSet(fs, "save-buffer-ms") || flagSet(fs, "save-buffer-size")) {
		return agents.SaveOptions{}, usagef("--save-buffer-ms and --save-buffer-size tune --save-on chunk, not %s", p)
	}
	o := agents.SaveOptions{Policy: p, Buffer: time.Duration(bufferMS) * time.Millisecond, BufferSize: bufferSize}
	if err := o.Validate(); err != nil {
		return o, usagef("%v", err)
	}
	return o, nil
}

// flagSet reports whether the command line set flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// rejectFlagLikePrompt refuses an argument before any "--" that looks like
// an option but is none of fs's (such as "--help" or "-v is broken"): it is
// probably a prompt, and guessing could run the agent on the wrong words
// or print help instead of running it. A prompt after "--" is never read
// as an option.
func rejectFlagLikePrompt(fs *flag.FlagSet, args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			return usagef("%q looks like an option; to send it as the prompt, put -- before it: lazuli run -- %q", a, a)
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) {
			i++ // the option's value
		}
	}
	return nil
}

// readPrompt returns the prompt argument, or stdin for "-", checked.
func readPrompt(arg string) (string, error) {
	prompt := arg
	if prompt == "-" {
		b, err := io.ReadAll(io.LimitReader(os.Stdin, 64<<20))
		if err != nil {
			return "", fmt.Errorf("read prompt: %w", err)
		}
		prompt = string(b)
	}
	if !utf8.ValidString(prompt) {
		return "", usagef("the prompt is not valid UTF-8")
	}
	if strings.TrimSpace(prompt) == "" {
		return "", usagef("the prompt is empty")
	}
	return prompt, nil
}

// newRunResult is the --json result of a run.
func newRunResult(path string, run agents.RunResult, runErr error) runResult {
	t := run.Turn
	res := runResult{Store: path, Session: run.SessionID, Backend: string(run.Backend), Model: run.Model,
		EventsSaved: t.EventsSaved, Completed: t.Completed, DurationMS: t.DurationMS, CostUSD: codec.SerdeFloat(t.CostUSD),
		ExitCode: t.ExitCode, Stopped: t.Stopped, Compacted: run.Compacted, AutoContinued: run.AutoContinued}
	switch {
	case runErr != nil:
		res.Error = project.OneLine(runErr)
	case t.Stopped:
		res.Error = errStopped.Error()
	case !t.Success():
		res.Error = "the agent reported a failure"
		if s := stderrLast(t.Stderr); s != "" {
			res.Error += ": " + s
		}
	}
	return res
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

// transcriptPrinter prints a run's progress: saved events as a short
// readable transcript, and notes.
type transcriptPrinter struct {
	w, errW io.Writer
	quiet   bool
	path    string
	started bool // the workflow reached RunStarting
}

// event shows one step of the run workflow.
func (p *transcriptPrinter) event(ev agents.RunEvent) {
	switch ev.Kind {
	case agents.RunStarting:
		p.started = true
		if !p.quiet {
			fmt.Fprintf(p.errW, "lazuli: S%d in %s, running %s\n", ev.SessionID, p.path, ev.Backend)
		}
	case agents.RunSaved:
		p.print(ev.Saved)
	case agents.RunSubagent:
		if ev.Subagent.Created {
			p.note(fmt.Sprintf("a sub-agent works in S%d (%s)", ev.Subagent.SessionID, printable.Line(ev.Subagent.Name)))
		}
	case agents.RunCompacted:
		if ev.Err != nil {
			fmt.Fprintf(p.errW, "lazuli: compaction: %s\n", project.OneLine(ev.Err))
			return
		}
		o := ev.Outcome
		p.note(fmt.Sprintf("compacted by %s through seq %d (%d characters of context left)", o.Agent, o.AfterSeq, o.CharsAfter))
	}
}

func (p *transcriptPrinter) print(events []codec.Event) {
	if p.quiet {
		return
	}
	for _, e := range events {
		switch e.Kind {
		case codec.KindUserMessage:
			fmt.Fprintf(p.w, "› %s\n", firstLines(e.Content, 3))
		case codec.KindAssistantText:
			fmt.Fprintf(p.w, "%s\n", printable.Text(strings.TrimSpace(e.Text)))
		case codec.KindToolCall:
			fmt.Fprintf(p.w, "  ⚙ %s %s\n", printable.Line(e.ToolName), printable.Line(codec.ToolKeyParam(e.ToolName, e.Input)))
		case codec.KindToolResult:
			if e.IsError {
				fmt.Fprintf(p.w, "  ✗ %s\n", firstLines(e.Content, 2))
			}
		case codec.KindComplete:
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
	agentArg := fs.String("agent", "auto", "auto, builtin or a backend: "+backendNames())
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
	defer reportUnreadable(env, st) // before Close: runs first
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

// backendNames lists the backends for help texts: "claude, codex, …".
func backendNames() string { return strings.Join(agents.BackendNames(), ", ") }

// backendChoices lists the backends for usage lines: "claude|codex|…".
func backendChoices() string { return strings.Join(agents.BackendNames(), "|") }
