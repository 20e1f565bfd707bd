package agents

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/agents/summary"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/store"
)

// CompactAgent chooses who writes a compaction summary: auto, builtin or
// a backend's name.
type CompactAgent string

// The compaction agents: Auto tries the session's backend (twice), then
// its fallback backend, then the built-in summarizer; a backend named
// runs twice, with no fallback.
const (
	CompactAuto    CompactAgent = "auto"
	CompactBuiltin CompactAgent = "builtin"
	CompactClaude  CompactAgent = "claude"
	CompactCodex   CompactAgent = "codex"
)

// ParseCompactAgent returns the agent named s: auto, builtin or any
// backend.
func ParseCompactAgent(s string) (CompactAgent, error) {
	a := CompactAgent(strings.ToLower(strings.TrimSpace(s)))
	switch a {
	case "":
		return CompactAuto, nil
	case CompactAuto, CompactBuiltin:
		return a, nil
	}
	if _, err := ParseBackend(string(a)); err == nil {
		return a, nil
	}
	return "", fmt.Errorf("unknown compaction agent %q (want %s)", s, display.OrList(append([]string{string(CompactAuto), string(CompactBuiltin)}, BackendNames()...)))
}

// Summary lengths accepted from an agent. The prompt asks for
// summary.MinChars–summary.MaxChars; models miss that by a little, so a
// summary is only rejected when it is far off.
const (
	minAcceptedSummary = summary.MinChars / 2
	maxAcceptedSummary = summary.MaxChars * 2
)

// ErrNoBoundary reports a session without enough user messages since its
// latest compaction to keep any of them verbatim (spec §7.3).
var ErrNoBoundary = errors.New("not enough user messages since the last compaction to compact")

// CompactOptions configure CompactSession.
type CompactOptions struct {
	Config Config
	Agent  CompactAgent // "" means CompactAuto
	// Backend and Model are the session's; "" derives them from the
	// session's last ModelSwitch or Init event.
	Backend Backend
	Model   string
	Env     []string
	// Timeout bounds each agent attempt; 0 means 10 minutes.
	Timeout time.Duration
	// OnAttempt is told about each attempt before it starts.
	OnAttempt func(agent string)
}

// CompactOutcome reports a stored compaction.
type CompactOutcome struct {
	SessionID    int64
	AfterSeq     int64
	SummaryChars int
	Agent        string   // the backend that wrote the summary, or "builtin"
	Attempts     []string // what failed before, e.g. "claude: summary too short (120 characters)"
	CharsBefore  int64
	CharsAfter   int64
}

// CompactSession compacts session sessionID of st (spec §7.3–§7.4): it
// finds the boundary that keeps the last 3 (else 2, else 1) user prompts
// verbatim, has an agent summarize the events before it together with the
// previous summary, checks the summary's length (retrying once, then
// falling back to the other backend and to the built-in summarizer), and
// stores it with after_seq = boundary. No event is changed or removed.
func CompactSession(ctx context.Context, st *store.Store, sessionID int64, opts CompactOptions) (CompactOutcome, error) {
	out := CompactOutcome{SessionID: sessionID}
	if st.ReadOnly() {
		return out, ErrStoreReadOnly
	}
	latest, err := st.Compactions().Latest(ctx, sessionID)
	if err != nil {
		return out, err
	}
	from := int64(1)
	var previous *string
	if latest != nil {
		from, previous = latest.AfterSeq+1, &latest.Summary
	}
	boundary, ok := int64(0), false
	for keep := 3; keep >= 1 && !ok; keep-- {
		if boundary, ok, err = st.Compactions().Boundary(ctx, sessionID, from, keep); err != nil {
			return out, err
		}
	}
	if !ok {
		return out, ErrNoBoundary
	}
	stored, err := st.Events().Range(ctx, sessionID, from, boundary)
	if err != nil {
		return out, err
	}
	if len(stored) == 0 {
		return out, ErrNoBoundary
	}
	events := make([]codec.Event, len(stored))
	for i := range stored {
		events[i] = stored[i].Event
	}
	if out.CharsBefore, err = st.Compactions().CharsSince(ctx, sessionID); err != nil {
		return out, err
	}
	if opts.Backend == "" || opts.Model == "" {
		model, err := StoredSessionModel(ctx, st, sessionID)
		if err != nil {
			return out, err
		}
		if opts.Model == "" && (opts.Backend == "" || BackendForModel(model) == opts.Backend) {
			opts.Model = model
		}
		if opts.Backend == "" {
			opts.Backend = BackendForModel(opts.Model)
		}
	}
	text, agent, attempts, err := summarize(ctx, previous, events, opts)
	out.Attempts = attempts
	if err != nil {
		return out, err
	}
	if _, err := st.Compactions().Add(ctx, sessionID, boundary, text); err != nil {
		return out, err
	}
	out.AfterSeq, out.SummaryChars, out.Agent = boundary, utf8.RuneCountInString(text), agent
	out.CharsAfter, _ = st.Compactions().CharsSince(ctx, sessionID)
	return out, nil
}

// summarize produces the summary with the agents opts asks for.
func summarize(ctx context.Context, previous *string, events []codec.Event, opts CompactOptions) (written, agent string, attempts []string, err error) {
	type try struct {
		backend Backend
		model   string
	}
	var plan []try
	builtinLast := false
	switch opts.Agent {
	case CompactBuiltin:
	case "", CompactAuto:
		other := opts.Backend.Other()
		plan = []try{{opts.Backend, opts.Model}, {opts.Backend, opts.Model}, {other, fallbackModel(other)}}
		builtinLast = true
	default: // a backend (ParseCompactAgent)
		b := Backend(opts.Agent)
		model := fallbackModel(b)
		if b == opts.Backend {
			model = opts.Model
		}
		plan = []try{{b, model}, {b, model}}
	}
	prompt := BuildCompactionPrompt(previous, events)
	missing := map[Backend]bool{}
	for _, tr := range plan {
		if missing[tr.backend] {
			continue // no point retrying a CLI that is not installed
		}
		if opts.OnAttempt != nil {
			opts.OnAttempt(string(tr.backend))
		}
		text, err := runSummaryAgent(ctx, prompt, tr.backend, tr.model, opts)
		if ctx.Err() != nil {
			return "", "", attempts, ctx.Err()
		}
		if err == nil {
			err = checkSummary(text)
		}
		if err == nil {
			return text, string(tr.backend), attempts, nil
		}
		if errors.Is(err, ErrCLINotFound) {
			missing[tr.backend] = true
		}
		attempts = append(attempts, fmt.Sprintf("%s: %v", tr.backend, err))
	}
	if len(plan) > 0 && !builtinLast {
		return "", "", attempts, fmt.Errorf("compaction with %s failed: %s", plan[0].backend, strings.Join(attempts, "; "))
	}
	if opts.OnAttempt != nil {
		opts.OnAttempt("builtin")
	}
	s := summary.Summarize(previous, events)
	if strings.TrimSpace(s) == "" {
		return "", "", attempts, errors.New("nothing to summarize")
	}
	return s, "builtin", attempts, nil
}

// checkSummary rejects a summary far from the requested length.
func checkSummary(text string) error {
	n := utf8.RuneCountInString(text)
	switch {
	case n == 0:
		return errors.New("no summary text")
	case n < minAcceptedSummary:
		return fmt.Errorf("summary too short (%d characters)", n)
	case n > maxAcceptedSummary:
		return fmt.Errorf("summary too long (%d characters)", n)
	}
	return nil
}

// runSummaryAgent runs the compaction prompt on backend in a scratch
// folder, without the flags that let the agent act unasked, and returns
// its text (spec §7.4). It never writes to a store.
func runSummaryAgent(ctx context.Context, prompt string, backend Backend, model string, opts CompactOptions) (string, error) {
	return RunScratch(ctx, ScratchRun{Config: opts.Config, Backend: backend, Model: model, Prompt: prompt,
		Env: opts.Env, Timeout: opts.Timeout, Folder: "compact"})
}

// SessionModel returns the model a session was last run with, as a pool
// name (spec §5.8 step 6): the last ModelSwitch, else the last Init's
// model mapped by ModelAlias; "" when there is neither.
func SessionModel(events []store.StoredEvent) string {
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i].Event
		switch e.Kind {
		case codec.KindModelSwitch:
			return e.Model
		}
	}
	for i := len(events) - 1; i >= 0; i-- {
		if e := events[i].Event; e.Kind == codec.KindInit {
			return ModelAlias(e.Model)
		}
	}
	return ""
}

// StoredSessionModel is SessionModel of a stored session, read without
// loading its events (for a session too long to hold in memory at once),
// then WithUsageBackend.
func StoredSessionModel(ctx context.Context, st *store.Store, sessionID int64) (string, error) {
	model := ""
	e, ok, err := st.Events().LastOfKind(ctx, sessionID, codec.KindModelSwitch)
	switch {
	case err != nil:
		return "", err
	case ok:
		model = e.Event.Model
	default:
		if e, ok, err = st.Events().LastOfKind(ctx, sessionID, codec.KindInit); err != nil {
			return "", err
		} else if ok {
			model = ModelAlias(e.Event.Model)
		}
	}
	return WithUsageBackend(ctx, st, sessionID, model)
}

// WithUsageBackend is MenuModel of model for the backend the session's
// last usage row names (store.SessionService.UsageBackend): the parser
// that read its last turn knew the agent, while a model name may be
// another backend's (Pi and Copilot run Claude's models). model itself
// when no usage row names one.
func WithUsageBackend(ctx context.Context, st *store.Store, sessionID int64, model string) (string, error) {
	usage, err := st.Sessions().UsageBackend(ctx, sessionID)
	if err != nil || usage == "" {
		return model, err
	}
	b, err := ParseBackend(usage)
	if err != nil {
		return model, nil // a backend this build does not know: the model tells
	}
	return MenuModel(model, b), nil
}
