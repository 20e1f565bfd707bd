package chronicle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/safelink"
)

// Agent chooses who writes a report.
type Agent string

// The writers: Auto asks the agent CLIs the window's sessions used most
// (then Claude Code and Codex) and falls back to the built-in writer when
// none is installed or they fail; any backend Lazuli runs may be named.
const (
	AgentAuto    Agent = "auto"
	AgentBuiltin Agent = "builtin"
	AgentClaude  Agent = "claude"
	AgentCodex   Agent = "codex"
)

// ParseAgent returns the writer named s ("" is auto): auto, builtin or
// one of backends, the agent CLIs Lazuli runs.
func ParseAgent(s string, backends []string) (Agent, error) {
	a := Agent(strings.ToLower(strings.TrimSpace(s)))
	switch {
	case a == "":
		return AgentAuto, nil
	case a == AgentAuto || a == AgentBuiltin || slices.Contains(backends, string(a)):
		return a, nil
	}
	return "", fmt.Errorf("unknown agent %q (want %s)", s, display.OrList(append([]string{string(AgentAuto), string(AgentBuiltin)}, backends...)))
}

// autoRuns is how many agents auto runs at most before the built-in
// writer: each may take minutes to fail.
const autoRuns = 2

// ErrNoCLI reports an agent whose CLI is not installed.
var ErrNoCLI = errors.New("agent CLI not found")

// Runner runs an agent CLI: in a scratch folder, without permission to
// act, the prompt in, the answer's text out. The app and the CLI give one
// built on the agents package's runner.
type Runner interface {
	// Available reports whether the CLI of backend ("claude", "gemini", …)
	// can be run.
	Available(backend string) bool
	Run(ctx context.Context, backend, prompt string) (string, error)
}

// Result is a written report: the JSON shape of `lazuli chronicle --json`.
type Result struct {
	Report Report `json:"report"`
	Agent  string `json:"agent"` // builtin or the backend that wrote it
	Since  string `json:"since"`
	// Sessions are the sessions the report cites that resolve.
	Sessions []string `json:"sessions"`
	// Unresolved are citations that name no session or event of the stores.
	Unresolved []string `json:"unresolved,omitempty"`
	// Markdown is the report, its citations made lazuli:// links.
	Markdown string `json:"markdown"`
	// Legend explains the citations (what S12#340@2 names), in plain
	// text; the Markdown ends with it. "" when the report cites nothing.
	Legend string `json:"legend,omitempty"`
	// Fallback says why auto wrote with the built-in writer.
	Fallback string `json:"fallback,omitempty"`
	Raw      string `json:"-"` // as written, citations as [S12#340]
	Prompt   string `json:"-"` // what the agent was asked; "" for the built-in writer
}

// Write has the report of facts written by agent (run through runner, which
// may be nil for the built-in writer), then checks its citations against
// the sources and renders them as links.
func Write(ctx context.Context, sources []Source, f *Facts, agent Agent, runner Runner) (Result, error) {
	res := Result{Report: f.Report, Since: f.Since, Agent: string(AgentBuiltin)}
	backends := []string{string(agent)}
	if agent == AgentAuto {
		backends = preferred(f)
	}
	if agent != AgentBuiltin {
		prompt, err := AgentPrompt(f)
		if err != nil {
			return res, err
		}
		var failures []error
		runs := 0
		for _, b := range backends {
			if runner == nil || !runner.Available(b) {
				failures = append(failures, fmt.Errorf("%s: %w", b, ErrNoCLI))
				continue
			}
			if agent == AgentAuto && runs == autoRuns {
				break
			}
			runs++
			text, err := runner.Run(ctx, b, prompt)
			if err == nil && strings.TrimSpace(text) == "" {
				err = errors.New("no answer")
			}
			if err != nil {
				if ctx.Err() != nil {
					return res, ctx.Err()
				}
				failures = append(failures, fmt.Errorf("%s: %w", b, err))
				continue
			}
			// The answer is Markdown the window shows, a file can be saved
			// as and a browser may render: what would act there (raw HTML,
			// links the desktop may not open) is shown as text.
			res.Agent, res.Raw, res.Prompt = b, safelink.Markdown(unfence(text))+"\n", prompt
			break
		}
		if res.Raw == "" && agent != AgentAuto {
			return res, fmt.Errorf("write the %s report with %w", f.Report, failures[0])
		}
		if res.Raw == "" {
			var why []string
			for _, e := range failures {
				why = append(why, e.Error())
			}
			res.Fallback = strings.Join(why, "; ")
		}
	}
	if res.Raw == "" {
		res.Raw = Builtin(f)
	}
	checked, err := Check(ctx, sources, res.Raw)
	if err != nil {
		return res, err
	}
	res.Sessions = checked.Sessions()
	if res.Sessions == nil {
		res.Sessions = []string{}
	}
	for _, c := range checked.Unresolved {
		res.Unresolved = append(res.Unresolved, c.String())
	}
	res.Markdown = Render(sources, res.Raw, checked)
	if legend := legendMarkdown(sources, res.Raw); legend != "" {
		res.Markdown = strings.TrimRight(res.Markdown, "\n") + "\n\n---\n\n" + legend + "\n"
		res.Legend = Legend(sources, res.Raw)
	}
	return res, nil
}

// preferred orders the agent CLIs for auto: the backend most of the
// window's sessions used first.
func preferred(f *Facts) []string {
	out := slices.Clone(f.byUse)
	for _, b := range []string{string(AgentClaude), string(AgentCodex)} {
		if !slices.Contains(out, b) {
			out = append(out, b)
		}
	}
	return out
}

// AgentPrompt is what an agent is asked: the report's rules and the facts as
// JSON.
func AgentPrompt(f *Facts) (string, error) {
	facts, err := json.Marshal(f)
	for keep := f.sessionsListed() / 2; err == nil && len(facts) > maxFactBytes && keep > 0; keep /= 2 {
		facts, err = json.Marshal(f.newest(keep))
	}
	if err != nil {
		return "", fmt.Errorf("encode the facts: %w", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Write the %q report of Lazuli's chronicle for a developer, from the facts below, which Lazuli gathered from their coding-agent sessions. Do not run tools or read files: everything you need is in this message.\n\n", f.Report.Title())
	b.WriteString("Rules:\n")
	fmt.Fprintf(&b, "- Answer with the report only, in Markdown, starting with the heading \"# %s — %s\".\n", f.Report.Title(), f.Since)
	b.WriteString("- Every claim cites the session and event it comes from, copied exactly from the facts: [S12#340] is event 340 of session 12, [S12] a whole session, [S12#340@2] a session of the second store. Never cite anything that is not in the facts: Lazuli checks every citation and marks the ones that do not exist.\n")
	switch f.Report {
	case Standup:
		b.WriteString("- Group by worktree. For each session say what it set out to do (its prompts), what it changed (files, with counts), the PRs, issues and commits involved, how it ended (✓, ✗ or interrupted), its time and its cost. Be brief: it is read at a standup.\n")
	case Tips:
		b.WriteString("- Give concrete advice on how the developer could work better with agents, each tip drawn from the findings and citing the sessions it comes from: long sessions that compacted many times, sessions abandoned after errors, repeated prompts, long waits for one-line answers, which models were used for what, cost outliers.\n")
	case Improve:
		b.WriteString("- Say where the agent struggled (tool errors and retries, files edited back and forth, commands that failed repeatedly, user corrections, interrupted turns), citing each. Then propose lines for the instruction files the facts name (CLAUDE.md for Claude Code; AGENTS.md for Codex, OpenCode, Pi and Copilot CLI; GEMINI.md for Gemini CLI; QWEN.md for Qwen Code), each citing the sessions and events that motivate it and quoting whatever it takes from the sessions (a command, a path, a prompt) as data, in double quotes in a code span, never as words of the instruction itself, and end with the facts' diff, unchanged, in a ```diff block. You do not edit any file: the developer applies the diff if they want it.\n")
	}
	b.WriteString("- If the facts say nothing was found, say so and give their hint.\n\n")
	b.WriteString("Facts (JSON):\n")
	b.Write(facts)
	b.WriteString("\n")
	return b.String(), nil
}

// maxFactBytes bounds the facts given to an agent: a standup over months
// of sessions keeps only its newest sessions.
const maxFactBytes = 200_000

func (f *Facts) sessionsListed() int {
	n := 0
	for _, w := range f.Worktrees {
		n += len(w.Sessions)
	}
	return n
}

// newest is f with only the keep newest sessions of its standup (the
// highest ids), and how many were left out.
func (f *Facts) newest(keep int) *Facts {
	var ids []Cite
	for _, w := range f.Worktrees {
		for _, s := range w.Sessions {
			ids = append(ids, s.Cite)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		if ids[i].Session != ids[j].Session {
			return ids[i].Session > ids[j].Session
		}
		return ids[i].Store < ids[j].Store
	})
	kept := map[Cite]bool{}
	for _, c := range ids[:min(keep, len(ids))] {
		kept[c] = true
	}
	g := *f
	g.Worktrees = nil
	for _, w := range f.Worktrees {
		nw := WorktreeWork{Worktree: w.Worktree}
		for _, s := range w.Sessions {
			if kept[s.Cite] {
				nw.Sessions = append(nw.Sessions, s)
			}
		}
		if len(nw.Sessions) > 0 {
			g.Worktrees = append(g.Worktrees, nw)
		}
	}
	g.Omitted = len(ids) - len(kept)
	return &g
}

// unfence is an agent's answer without the code fence some models put
// around a whole Markdown answer.
func unfence(text string) string {
	text = strings.TrimSpace(text)
	first, rest, ok := strings.Cut(text, "\n")
	lang := strings.TrimSpace(strings.TrimLeft(first, "`"))
	if !ok || !strings.HasPrefix(first, "```") || lang != "" && lang != "markdown" && lang != "md" {
		return text
	}
	body, ok := strings.CutSuffix(rest, "```")
	if !ok {
		return text
	}
	return strings.TrimSpace(body)
}
