package chronicle

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/store"
)

// What the improve report looks for. Error turns are read from the store
// newest first, at most errorTurns of them and turnRead events of each.
const (
	errorTurns      = 400
	turnRead        = 400
	toolErrorsMin   = 2 // errors of one tool worth a finding
	failingCmdMin   = 2 // failures of one command worth a finding
	churnMin        = 4 // changes of one file in one session: edited back and forth
	listedMax       = 20
	proposalsPerAsk = 5
)

// reCorrection matches a prompt that corrects the agent.
var reCorrection = regexp.MustCompile(`(?i)^\W*(no\b|nope\b|wrong\b|that'?s (wrong|not (right|it|what))|that is (wrong|not)|` +
	`revert\b|undo\b|stop\b|don'?t\b|do not\b|actually,? no\b|not what i)`)

// toolFailure is a failed tool call read from the store.
type toolFailure struct {
	s        *session
	tool     string
	command  string // a shell call's command
	seq      int64  // the error result
	retrySeq int64  // the same call made again unchanged right after; 0 if not
}

func (h *history) improve(ctx context.Context, f *Facts, projectDir string) error {
	fails, err := h.failures(ctx)
	if err != nil {
		return err
	}
	if err := h.toolErrors(ctx, f, fails); err != nil {
		return err
	}
	h.failingCommands(f, fails)
	h.retried(f, fails)
	if err := h.churned(ctx, f); err != nil {
		return err
	}
	h.corrections(f)
	h.interruptions(f)
	h.propose(f)
	f.Diff, err = proposalDiff(projectDir, f.Proposals)
	return err
}

// failures reads the failed tool calls of the newest turns with errors.
func (h *history) failures(ctx context.Context) ([]toolFailure, error) {
	type turnRef struct {
		s *session
		t insight.TurnRow
	}
	var turns []turnRef
	for i := len(h.sessions) - 1; i >= 0 && len(turns) < errorTurns; i-- {
		s := h.sessions[i]
		for j := len(s.turns) - 1; j >= 0 && len(turns) < errorTurns; j-- {
			if t := s.turns[j]; t.ToolErrors > 0 && h.inWindow(s, t) {
				turns = append(turns, turnRef{s, t})
			}
		}
	}
	var out []toolFailure
	for k := len(turns) - 1; k >= 0; k-- {
		s, t := turns[k].s, turns[k].t
		evs, err := h.sources[s.store].Store.Events().Range(ctx, s.ID, t.FirstSeq, min(t.LastSeq, t.FirstSeq+turnRead))
		if err != nil {
			return nil, err
		}
		out = append(out, failuresIn(s, evs)...)
	}
	return out, nil
}

// failuresIn pairs the error results of evs with their calls, and notes
// a call repeated unchanged after its error.
func failuresIn(s *session, evs []store.StoredEvent) []toolFailure {
	calls := map[string]*codec.Event{}
	var out []toolFailure
	open := map[string]int{} // a failed call's tool and input → its failure, until the next call
	for i := range evs {
		e, seq := &evs[i].Event, evs[i].Seq
		switch e.Kind {
		case codec.KindToolCall:
			calls[e.ToolUseID] = e
			k := e.ToolName + "\x00" + string(e.Input)
			if j, ok := open[k]; ok && out[j].retrySeq == 0 {
				out[j].retrySeq = seq
			}
			clear(open)
		case codec.KindToolResult:
			if !e.IsError {
				continue
			}
			fl := toolFailure{s: s, tool: e.ToolName, seq: seq}
			if c := calls[e.ToolUseID]; c != nil {
				fl.tool = c.ToolName
				fl.command = insight.ShellCommand(c.Input)
				open[c.ToolName+"\x00"+string(c.Input)] = len(out)
			}
			out = append(out, fl)
		}
	}
	return out
}

// toolErrors sums each tool's errors over the window's sessions.
func (h *history) toolErrors(ctx context.Context, f *Facts, fails []toolFailure) error {
	type sum struct {
		calls, errors int64
		sessions      []Cite
	}
	by := map[string]*sum{}
	for i, src := range h.sources {
		rows, err := src.Index.Tools().Errors(ctx)
		if err != nil {
			return err
		}
		for _, r := range rows {
			s := h.byKey[sessionKey{i, r.Session}]
			if s == nil {
				continue
			}
			if by[r.Name] == nil {
				by[r.Name] = &sum{}
			}
			by[r.Name].calls += r.Calls
			by[r.Name].errors += r.Errors
			by[r.Name].sessions = append(by[r.Name].sessions, s.cite(0))
		}
	}
	names := make([]string, 0, len(by))
	for n, s := range by {
		if s.errors >= toolErrorsMin {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		if by[names[i]].errors != by[names[j]].errors {
			return by[names[i]].errors > by[names[j]].errors
		}
		return names[i] < names[j]
	})
	for _, n := range names {
		s := by[n]
		var cites []Cite
		for _, fl := range fails {
			if fl.tool == n && len(cites) < citesShown {
				cites = append(cites, fl.s.cite(fl.seq))
			}
		}
		if len(cites) == 0 {
			cites = s.sessions[:min(len(s.sessions), citesShown)]
		}
		f.Findings = append(f.Findings, Finding{Kind: FindToolErrors, Subject: n, Count: int(s.errors),
			Text: fmt.Sprintf("%s failed %d of %s in %s", code(n), s.errors, display.Plural(s.calls, "call"),
				display.Plural(len(s.sessions), "session")), Cites: cites})
	}
	return nil
}

// failingCommands finds shell commands that failed more than once.
func (h *history) failingCommands(f *Facts, fails []toolFailure) {
	by := map[string][]toolFailure{}
	var order []string
	for _, fl := range fails {
		cmd := oneLine(fl.command, 200)
		if cmd == "" {
			continue
		}
		if by[cmd] == nil {
			order = append(order, cmd)
		}
		by[cmd] = append(by[cmd], fl)
	}
	sort.SliceStable(order, func(i, j int) bool { return len(by[order[i]]) > len(by[order[j]]) })
	for _, cmd := range order[:min(len(order), listedMax)] {
		list := by[cmd]
		if len(list) < failingCmdMin {
			continue
		}
		fd := Finding{Kind: FindFailingCmd, Subject: cmd, Count: len(list), Text: fmt.Sprintf("%s failed %d times", code(cmd), len(list))}
		for _, fl := range list[:min(len(list), citesShown)] {
			fd.Cites = append(fd.Cites, fl.s.cite(fl.seq))
		}
		f.Findings = append(f.Findings, fd)
	}
}

// retried finds failed calls made again unchanged, per tool.
func (h *history) retried(f *Facts, fails []toolFailure) {
	by := map[string][]toolFailure{}
	var order []string
	for _, fl := range fails {
		if fl.retrySeq == 0 {
			continue
		}
		if by[fl.tool] == nil {
			order = append(order, fl.tool)
		}
		by[fl.tool] = append(by[fl.tool], fl)
	}
	sort.Strings(order)
	for _, tool := range order {
		list := by[tool]
		fd := Finding{Kind: FindRetried, Subject: tool, Count: len(list),
			Text: fmt.Sprintf("a failed %s call was made again unchanged %s", code(tool), display.Plural(len(list), "time"))}
		for _, fl := range list[:min(len(list), citesShown/2)] {
			fd.Cites = append(fd.Cites, fl.s.cite(fl.seq), fl.s.cite(fl.retrySeq))
		}
		f.Findings = append(f.Findings, fd)
	}
}

// churned finds files changed back and forth in one session.
func (h *history) churned(ctx context.Context, f *Facts) error {
	var found []Finding
	for i, src := range h.sources {
		rows, err := src.Index.Files().Churned(ctx, churnMin)
		if err != nil {
			return err
		}
		for _, c := range rows {
			s := h.byKey[sessionKey{i, c.Session}]
			if s == nil || !s.own(c.LastSeq) {
				continue // gone, or a fork's copy of its parent's changes
			}
			found = append(found, Finding{Kind: FindBackForth, Subject: c.Path, Count: int(c.Count),
				Text:  fmt.Sprintf("%s was changed %d times in %s", code(c.Path), c.Count, s.title()),
				Cites: []Cite{s.cite(c.FirstSeq), s.cite(c.LastSeq)}})
		}
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].Count > found[j].Count })
	f.Findings = append(f.Findings, found[:min(len(found), listedMax)]...)
	return nil
}

// corrections finds prompts where the user corrected the agent.
func (h *history) corrections(f *Facts) {
	h.eachPrompt(f, FindCorrection, func(s *session, i int) (string, []Cite, bool) {
		t := s.turns[i]
		if !reCorrection.MatchString(t.Prompt) {
			return "", nil, false
		}
		return fmt.Sprintf("%s corrected the agent: %s", s.title(), quote(t.Prompt, 100)), []Cite{s.cite(t.FirstSeq)}, true
	})
}

// interruptions finds turns the user stopped.
func (h *history) interruptions(f *Facts) {
	h.eachPrompt(f, FindInterrupt, func(s *session, i int) (string, []Cite, bool) {
		if !interrupted(s.turns, i) {
			return "", nil, false
		}
		t := s.turns[i]
		return fmt.Sprintf("%s: the turn of %s was interrupted", s.title(), quote(t.Prompt, 80)),
			[]Cite{s.cite(t.FirstSeq), s.cite(t.LastSeq)}, true
	})
}

// eachPrompt adds a finding of kind for each prompt of the window match
// accepts, newest last, at most listedMax of them (the newest); Count
// says how many there were in all.
func (h *history) eachPrompt(f *Facts, kind string, match func(*session, int) (string, []Cite, bool)) {
	var found []Finding
	for _, s := range h.sessions {
		for i, t := range s.turns {
			if !isPrompt(t) || !h.inWindow(s, t) {
				continue
			}
			if text, cites, ok := match(s, i); ok {
				found = append(found, Finding{Kind: kind, Text: text, Cites: cites})
			}
		}
	}
	for _, fd := range found[max(0, len(found)-listedMax):] {
		fd.Count = len(found)
		f.Findings = append(f.Findings, fd)
	}
}

// shellTools run commands: their failures are told by command.
var shellTools = map[string]bool{"Bash": true, "shell": true, "exec_command": true, "local_shell": true}

// instruction files by backend: the file each agent CLI reads from the
// project's folder (Claude Code's for a session of no known backend).
const claudeFile = "CLAUDE.md"

var instructionFiles = map[string]string{
	"claude": claudeFile, "codex": "AGENTS.md", "opencode": "AGENTS.md", "pi": "AGENTS.md", "copilot": "AGENTS.md",
	"gemini": "GEMINI.md", "qwen": "QWEN.md",
}

// filesFor is the instruction files the cited sessions read (see
// instructionFiles), in name order.
func (h *history) filesFor(cites []Cite) []string {
	var out []string
	for _, c := range cites {
		file := claudeFile
		if s := h.byKey[sessionKey{c.Store, c.Session}]; s != nil {
			if f, ok := instructionFiles[s.backend()]; ok {
				file = f
			}
		}
		if !slices.Contains(out, file) {
			out = append(out, file)
		}
	}
	slices.Sort(out)
	return out
}

// propose turns the findings into lines for the instruction files.
func (h *history) propose(f *Facts) {
	counts := map[string]int{}
	var corrections, interrupts, retries []Cite
	for _, fd := range f.Findings {
		var line string
		switch fd.Kind {
		case FindFailingCmd:
			line = fmt.Sprintf("- A command has failed here repeatedly (%d times): check what it needs (setup, working folder, flags) before running it, and do not rerun it unchanged. The command: %s",
				fd.Count, datum(fd.Subject))
		case FindBackForth:
			line = fmt.Sprintf("- Read this file whole and plan the change before editing it: it was edited back and forth (%d changes in one session). The file: %s",
				fd.Count, datum(fd.Subject))
		case FindToolErrors:
			if shellTools[fd.Subject] {
				continue // its commands are the failing-command findings
			}
			line = fmt.Sprintf("- A tool failed %d times: check its input against the current state (paths, exact text to replace) before calling it. The tool: %s",
				fd.Count, datum(fd.Subject))
		case FindRetried:
			retries = append(retries, fd.Cites...)
		case FindCorrection:
			corrections = append(corrections, fd.Cites...)
		case FindInterrupt:
			interrupts = append(interrupts, fd.Cites[0])
		}
		if line != "" && counts[fd.Kind] < proposalsPerAsk {
			counts[fd.Kind]++
			h.addProposal(f, line, fd.Cites)
		}
	}
	if len(retries) > 0 {
		h.addProposal(f, "- When a tool call fails, read the error and change the call before trying again; never repeat it unchanged.", retries)
	}
	if len(corrections) > 0 {
		h.addProposal(f, fmt.Sprintf("- Say in one sentence what you are about to change before large or destructive edits, and wait if unsure: the user had to correct course %s.",
			display.Plural(len(corrections), "time")), corrections[:min(len(corrections), citesShown)])
	}
	if len(interrupts) >= 2 {
		h.addProposal(f, fmt.Sprintf("- Work in small steps and say what you will do before long-running commands: %d turns were interrupted.",
			len(interrupts)), interrupts[:min(len(interrupts), citesShown)])
	}
}

func (h *history) addProposal(f *Facts, line string, cites []Cite) {
	for _, file := range h.filesFor(cites) {
		f.Proposals = append(f.Proposals, Proposal{File: file, Line: line, Cites: cites})
	}
}
