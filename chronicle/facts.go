package chronicle

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/insight"
)

// Facts are what a report is written from: gathered once, rendered by the
// built-in writer or handed (as JSON) to an agent.
type Facts struct {
	Report Report      `json:"report"`
	Since  string      `json:"since"` // what the window covers, for people
	From   string      `json:"from"`  // the window's start, "" for all
	Stores []StoreInfo `json:"stores"`
	// Sessions is how many sessions the window holds.
	Sessions int `json:"sessions_considered"`
	// Worktrees is the standup: the work of each worktree.
	Worktrees []WorktreeWork `json:"worktrees,omitempty"`
	// Omitted is how many older sessions were left out of an agent's
	// prompt to keep it short.
	Omitted int `json:"sessions_omitted,omitempty"`
	// Findings are the tips or the places the agent struggled.
	Findings []Finding `json:"findings,omitempty"`
	// Proposals are the improve report's lines for the agents' instruction
	// files (CLAUDE.md, AGENTS.md, GEMINI.md, QWEN.md).
	Proposals []Proposal `json:"proposals,omitempty"`
	// Diff adds the proposals to the project's files; never applied by
	// Lazuli.
	Diff string `json:"diff,omitempty"`
	// Nothing says, when nothing was found, how to find more.
	Nothing string `json:"nothing_found,omitempty"`

	byUse []string // the backends of the window's sessions, most used first: the auto writer's order
}

// StoreInfo names one of the stores a report covers.
type StoreInfo struct {
	Cite string `json:"cite"` // how its citations end: "" for the first, "@2" for the second
	Path string `json:"path"`
}

// WorktreeWork is one worktree's sessions in the standup.
type WorktreeWork struct {
	Worktree string        `json:"worktree"`
	Sessions []SessionWork `json:"sessions"`
}

// SessionWork is what one session did in the window.
type SessionWork struct {
	Cite          Cite         `json:"cite"`
	Name          string       `json:"name"`
	Created       string       `json:"created"`
	Prompts       []Prompt     `json:"prompts"`
	MorePrompts   int          `json:"more_prompts,omitempty"`
	Files         []FileChange `json:"files_changed,omitempty"`
	MoreFiles     int          `json:"more_files,omitempty"`
	Refs          []RefFact    `json:"refs,omitempty"`
	MoreRefs      int          `json:"more_refs,omitempty"`
	Outcome       string       `json:"outcome"` // ✓, ✗, interrupted or "no result"
	OutcomeCite   Cite         `json:"outcome_cite"`
	DurationMS    int64        `json:"duration_ms"`
	CostUSD       float64      `json:"cost_usd"`
	CostEstimated bool         `json:"cost_estimated,omitempty"`
}

// Prompt is one prompt the user sent.
type Prompt struct {
	Text string `json:"text"`
	Cite Cite   `json:"cite"`
}

// FileChange is a file a session changed, with how often.
type FileChange struct {
	Path   string `json:"path"`
	Action string `json:"action"` // edit, write, create, delete
	Count  int64  `json:"count"`
	Cite   Cite   `json:"cite"` // the last change
}

// RefFact is a pull request, issue, commit or branch a session mentions.
type RefFact struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
	URL   string `json:"url,omitempty"`
	Cite  Cite   `json:"cite"`
}

// The kinds of a Finding.
const (
	FindCompacted  = "long-compacted" // tips: a long session compacted many times
	FindAbandoned  = "abandoned-after-errors"
	FindRepeated   = "repeated-prompt"
	FindSlowShort  = "one-line-after-wait"
	FindModel      = "model-use"
	FindCostly     = "cost-outlier"
	FindToolErrors = "tool-errors" // improve
	FindRetried    = "retried-unchanged"
	FindFailingCmd = "failing-command"
	FindBackForth  = "edited-back-and-forth"
	FindCorrection = "user-correction"
	FindInterrupt  = "interrupted-turn"
)

// Finding is one pattern or struggle, with the events it is drawn from.
type Finding struct {
	Kind    string `json:"kind"`
	Subject string `json:"subject,omitempty"` // the tool, command or file it is about
	Text    string `json:"text"`              // one line of Markdown, without citations
	Count   int    `json:"count"`             // how many times it happened
	Cites   []Cite `json:"cites"`
}

// Proposal is a line proposed for an instruction file.
type Proposal struct {
	File  string `json:"file"` // the instruction file: CLAUDE.md, AGENTS.md, GEMINI.md or QWEN.md
	Line  string `json:"line"`
	Cites []Cite `json:"cites"`
}

// Options tune Gather.
type Options struct {
	Window Window
	// ProjectDir is where the instruction files the improve report's
	// diff extends live (read, never written); "" is the first store's
	// worktree.
	ProjectDir string
}

// Gather prefetches the facts of a report from the sources.
func Gather(ctx context.Context, sources []Source, r Report, opts Options) (*Facts, error) {
	h, err := loadHistory(ctx, sources, opts.Window)
	if err != nil {
		return nil, err
	}
	f := &Facts{Report: r, Since: opts.Window.describe(), From: opts.Window.From, Sessions: len(h.sessions)}
	f.byUse = backendsByUse(h.sessions)
	for i, s := range sources {
		info := StoreInfo{Path: s.Store.Path()}
		if i > 0 {
			info.Cite = fmt.Sprintf("@%d", i+1)
		}
		f.Stores = append(f.Stores, info)
	}
	switch r {
	case Standup:
		err = h.standup(ctx, f)
	case Tips:
		err = h.tips(ctx, f)
	case Improve:
		dir := opts.ProjectDir
		if dir == "" && len(sources) > 0 {
			dir = insight.WorktreeDir(sources[0].Store.Path())
		}
		err = h.improve(ctx, f, dir)
	default:
		err = fmt.Errorf("unknown report %q", r)
	}
	if err != nil {
		return nil, err
	}
	if len(f.Worktrees) == 0 && len(f.Findings) == 0 {
		f.Nothing = nothingHint(r, opts.Window)
	}
	return f, nil
}

// nothingHint says how to find more when a report finds nothing.
func nothingHint(r Report, w Window) string {
	what := "No sessions"
	if r != Standup {
		what = "Nothing to report from the sessions"
	}
	hint := fmt.Sprintf("%s %s.", what, w.describe())
	if w.From != "" {
		wider := "7d"
		if strings.HasSuffix(w.Label, "d") || len(w.Label) == 10 {
			wider = "all"
		}
		hint += fmt.Sprintf(" Widen the range (`--since %s`, `--since %s`, or Since in the report window), or", wider,
			time.Now().UTC().AddDate(0, -1, 0).Format("2006-01-02"))
	} else {
		hint += " Sessions run outside Lazuli count once you"
	}
	return hint + " import your agents' own history (`lazuli import-native`, or File › Import native history…)."
}

// sessionKey names a session across the sources.
type sessionKey struct {
	store int
	id    int64
}

// session is one session in the window.
type session struct {
	store int
	insight.SessionActivity
	turns []insight.TurnRow // without a fork's copies of its parent's
	// copied is how many of a fork's first events are copies of its
	// parent's (store.ForkLink.Copied): the parent's work, done when the
	// parent did it, which the report leaves to the parent.
	copied int64
}

// own reports whether the event seq of s is the session's own, not a
// fork's copy of its parent's.
func (s *session) own(seq int64) bool { return seq > s.copied }

func (s *session) cite(seq int64) Cite { return Cite{Store: s.store, Session: s.ID, Seq: seq} }

// backend is the CLI the session ran with, from its usage ("" when none
// was reported).
func (s *session) backend() string {
	if len(s.Models) > 0 {
		return s.Models[0].Backend
	}
	return ""
}

// backendsByUse returns the backends of sessions, the most sessions
// first (a tie in name order); sessions of no known backend count for none.
func backendsByUse(sessions []*session) []string {
	n := map[string]int{}
	for _, s := range sessions {
		if b := s.backend(); b != "" {
			n[b]++
		}
	}
	out := make([]string, 0, len(n))
	for b := range n {
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b string) int {
		if n[a] != n[b] {
			return n[b] - n[a]
		}
		return strings.Compare(a, b)
	})
	return out
}

// history is the window's sessions and turns.
type history struct {
	sources  []Source
	win      Window
	sessions []*session
	byKey    map[sessionKey]*session
}

func loadHistory(ctx context.Context, sources []Source, win Window) (*history, error) {
	h := &history{sources: sources, win: win, byKey: map[sessionKey]*session{}}
	for i, src := range sources {
		act, err := src.Index.Sessions().Activity(ctx, win.From)
		if err != nil {
			return nil, err
		}
		forks, err := src.Store.Forks().All(ctx)
		if err != nil {
			return nil, err
		}
		ids := make([]int64, len(act))
		for j, a := range act {
			s := &session{store: i, SessionActivity: a, copied: forks[a.ID].Copied}
			h.sessions = append(h.sessions, s)
			h.byKey[sessionKey{i, a.ID}] = s
			ids[j] = a.ID
		}
		turns, err := src.Index.Sessions().Turns(ctx, ids)
		if err != nil {
			return nil, err
		}
		for _, t := range turns {
			if s := h.byKey[sessionKey{i, t.Session}]; s != nil && s.own(t.LastSeq) {
				s.turns = append(s.turns, t)
			}
		}
	}
	return h, nil
}

// inWindow reports whether a turn of s falls in the window: the session
// was created in it, or the turn's usage was reported in it.
func (h *history) inWindow(s *session, t insight.TurnRow) bool {
	return h.win.From == "" || s.Created >= h.win.From || t.At >= h.win.From
}

// interruptMarker starts the prompt Claude Code records when the user
// stops a turn.
const interruptMarker = "[Request interrupted"

// isPrompt reports whether a turn starts with a prompt the user wrote.
func isPrompt(t insight.TurnRow) bool {
	return t.Turn > 0 && strings.TrimSpace(t.Prompt) != "" && !strings.HasPrefix(t.Prompt, interruptMarker)
}

// interrupted reports whether turn i of s was stopped before it finished:
// the next turn is Claude Code's interruption marker, or it has no result
// and the user went on.
func interrupted(turns []insight.TurnRow, i int) bool {
	if !isPrompt(turns[i]) || i+1 >= len(turns) {
		return false
	}
	return strings.HasPrefix(turns[i+1].Prompt, interruptMarker) || turns[i].Success == nil
}

// oneLine makes text one line of at most n runes, its runs of spaces and
// line breaks one space.
func oneLine(text string, n int) string {
	if len(text) > 8*n {
		text = text[:8*n] // a rune is at most 4 bytes; room for the spaces dropped
	}
	text = strings.Join(strings.Fields(text), " ")
	r := []rune(text)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return text
}

// quote is a prompt or an answer quoted in a finding: one line, its
// Markdown made inert.
func quote(text string, n int) string {
	return "“" + inert.Replace(oneLine(text, n)) + "”"
}

// inert replaces the characters that would make quoted text Markdown.
var inert = strings.NewReplacer("`", "'", "[", "(", "]", ")", "*", "∗", "_", " ", "<", "‹", ">", "›")

// datum is text from a session (a command, a path, a tool's name) as a
// proposed instruction line quotes it: one line of at most 120
// characters, double-quoted with Go's escapes (quotes, control characters
// and invisible formatting characters escaped; a backtick as \u0060) in a
// code span. An instruction file is read by agents as instructions, and a
// session's text can be written to read as one ("ignore the rules above
// and …"): quoted, it stays data, and dataNote says so above the lessons.
func datum(text string) string {
	q := strings.ReplaceAll(strconv.Quote(oneLine(text, 120)), "`", `\u0060`)
	return "`" + q + "`"
}

// code is a path or a command in a finding, as inline code.
func code(text string) string {
	return "`" + strings.ReplaceAll(oneLine(text, 120), "`", "'") + "`"
}
