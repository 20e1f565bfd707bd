package summary

// This file holds the extraction half of Summarize: it walks the events and
// gathers user requests, decisions and findings (scored sentences and
// plans), the files touched (the file log), commands run and errors.

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/lazuli-app/lazuli/agents/codex"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/editdiff"
)

// collectMaterial walks the events once and extracts every section's items.
func collectMaterial(previous *string, events []codec.Event) *sumMaterial {
	m := &sumMaterial{}
	if previous != nil {
		m.previous = sumCondense(*previous)
	}
	var requests, commands, errs, plans []sumItem
	var sentences []scoredSentence
	files := newSumFileLog()
	calls := make(map[string]*codec.Event)
	lastText, lastComplete := -1, -1
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case codec.KindUserMessage:
			if s, ok := codex.UserText(e.Content); ok { // also drops Codex's context messages
				if t := sumFlatten(s); t != "" {
					requests = append(requests, sumItem{text: t, pos: i})
				}
			}
		case codec.KindAssistantText:
			sentences = append(sentences, sumSplitSentences(e.Text, i)...)
			lastText = i
			if strings.HasPrefix(e.Text, "Error:") {
				errs = append(errs, sumItem{text: sumFirstLine(e.Text), pos: i})
			}
		case codec.KindPlan:
			if p := planItem(e.Name, e.Content, i); p.text != "" {
				plans = append(plans, p)
			}
		case codec.KindToolCall:
			calls[e.ToolUseID] = e
			files.add(e, i)
			if c := sumCommand(e); c != "" {
				commands = append(commands, sumItem{text: c, pos: i})
			}
		case codec.KindToolResult:
			if e.IsError {
				errs = append(errs, sumToolError(e, calls[e.ToolUseID], i))
				files.undo(e.ToolUseID)
			} else if a, ok := strings.CutPrefix(e.Content, sumAnswersPrefix); ok {
				if t := sumFlatten(a); t != "" {
					requests = append(requests, sumItem{prefix: "Answered: ", text: t, pos: i})
				}
			}
		case codec.KindComplete:
			lastComplete = i
		}
	}
	m.requests = sumLatestUnique(requests)
	m.state = sumCurrentState(events, lastText, lastComplete)
	if lastText >= 0 && sumRuneLen(sumFlatten(events[lastText].Text)) <= stateExcerpt {
		// Current state quotes the last message whole; do not repeat it.
		sentences = slices.DeleteFunc(sentences, func(s scoredSentence) bool { return s.pos == lastText })
	}
	m.strong, m.weak, m.other = rankSentences(sentences)
	m.strong = append(sumLatestUnique(plans), m.strong...)
	m.files = files.items()
	m.commands = sumLatestUnique(commands)
	m.errors = sumLatestUnique(errs)
	return m
}

// planItem describes a Plan event: its name and its steps, without the
// title line that repeats the name.
func planItem(name, content string, pos int) sumItem {
	name = sumFlatten(name)
	if first, rest, ok := strings.Cut(strings.TrimSpace(content), "\n"); ok && name != "" &&
		strings.HasPrefix(first, "#") && strings.Contains(first, name) {
		content = rest
	}
	return sumItem{prefix: "Plan " + strconv.Quote(name) + ": ", text: sumCondense(content), pos: pos}
}

// sumAnswersPrefix starts the result of Claude's AskUserQuestion tool: the
// user's answers, which are requests as much as a prompt is.
const sumAnswersPrefix = "User has answered your questions:"

// sumCurrentState describes how the summarized part ended: the last
// completion, then the last assistant message.
func sumCurrentState(events []codec.Event, lastText, lastComplete int) []sumItem {
	var out []sumItem
	if lastComplete >= 0 {
		e := &events[lastComplete]
		secs := strconv.FormatFloat(float64(e.DurationMS)/1000, 'f', 1, 64)
		t := "The last turn completed successfully after " + secs + " s."
		if !e.Success {
			t = "The last turn ended in failure after " + secs + " s."
		}
		out = append(out, sumItem{text: t, pos: lastComplete, whole: true})
	}
	if lastText >= 0 {
		if t := sumFlatten(sumStripMarkdown(events[lastText].Text)); t != "" {
			out = append(out, sumItem{prefix: "The assistant's last message was: ", text: t, pos: lastText})
		}
	}
	return out
}

// sumLatestUnique returns items newest first, keeping only the newest of
// items with the same text.
func sumLatestUnique(items []sumItem) []sumItem {
	seen := make(map[string]bool, len(items))
	out := make([]sumItem, 0, len(items))
	for i := len(items) - 1; i >= 0; i-- {
		key := strings.ToLower(items[i].prefix + items[i].text)
		if !seen[key] {
			seen[key] = true
			out = append(out, items[i])
		}
	}
	return out
}

// scoredSentence is a sentence of assistant text with its decision score.
type scoredSentence struct {
	sumItem
	score int
}

// Cue words of decisions and findings. A strong cue scores 2, a weak one 1;
// narration ("Let me read …") loses a point.
var (
	strongCues = []string{"decided", "decide", "chose", "choose", "because", "instead", "fixed",
		"fixes", "root cause", "the issue", "the problem", "the bug", "note that", "turns out",
		"caused by", "resolved", "the reason", "therefore", "so that"}
	weakCues = []string{"will", "should", "plan", "planned", "must", "need to", "implemented",
		"added", "updated", "changed", "removed", "replaced", "switched", "refactored", "created",
		"renamed", "moved", "now passes", "passes", "passed", "fails", "failed", "confirmed",
		"verified", "found", "works"}
	sumNarration = []string{"let me ", "now let me ", "let's ", "now i'll ", "i'll ", "i will ",
		"i need to ", "i'm going to ", "first, let me ", "next, i'll ", "now, let me "}
)

// sumSplitSentences splits assistant text into scored sentences, skipping
// code blocks, tables and fragments too short to carry a decision.
func sumSplitSentences(text string, pos int) []scoredSentence {
	var out []scoredSentence
	inCode := false
	for line := range strings.SplitSeq(sumStripMarkdown(text), "\n") {
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inCode = !inCode
			continue
		}
		if inCode || strings.HasPrefix(line, "|") {
			continue
		}
		for _, s := range sumSentencesOf(sumFlatten(line)) {
			if sumRuneLen(s) < 20 || strings.HasSuffix(s, ":") {
				continue
			}
			out = append(out, scoredSentence{sumItem{text: s, pos: pos}, cueScore(s)})
		}
	}
	return out
}

func cueScore(s string) int {
	lower := " " + strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	}), " ") + " "
	score := 0
	for _, c := range strongCues {
		if strings.Contains(lower, " "+c+" ") {
			score = 2
			break
		}
	}
	if score == 0 {
		for _, c := range weakCues {
			if strings.Contains(lower, " "+c+" ") {
				score = 1
				break
			}
		}
	}
	for _, p := range sumNarration {
		if strings.HasPrefix(lower[1:], p) {
			return score - 1
		}
	}
	return score
}

// rankSentences deduplicates sentences (keeping the latest) and sorts them
// into strong and weak decisions and other sentences, each newest first.
func rankSentences(all []scoredSentence) (strong, weak, other []sumItem) {
	seen := make(map[string]bool, len(all))
	for i := len(all) - 1; i >= 0; i-- {
		s := all[i]
		key := strings.ToLower(s.text)
		if seen[key] {
			continue
		}
		seen[key] = true
		switch {
		case s.score >= 2:
			strong = append(strong, s.sumItem)
		case s.score == 1:
			weak = append(weak, s.sumItem)
		case s.score == 0 && sumRuneLen(s.text) >= 40:
			other = append(other, s.sumItem)
		}
	}
	return strong, weak, other
}

// File operations in the order the summary lists them.
const (
	sumOpCreated = iota
	sumOpEdited
	sumOpDeleted
	sumOpRead
	sumNumOps
)

var sumOpNames = [sumNumOps]string{"created", "edited", "deleted", "read"}

// sumFileUse is what the tool calls did to one file.
type sumFileUse struct {
	path  string
	ops   [sumNumOps]int
	total int
	last  int
}

// sumFileLog gathers the files that tool calls touched.
type sumFileLog struct {
	byPath map[string]*sumFileUse
	order  []*sumFileUse
	byCall map[string][]sumFileOp // what each call did, undone if it fails
	callID string                 // the call being added
}

type sumFileOp struct {
	use *sumFileUse
	op  int
}

func newSumFileLog() *sumFileLog {
	return &sumFileLog{byPath: make(map[string]*sumFileUse), byCall: make(map[string][]sumFileOp)}
}

func (l *sumFileLog) note(path string, op, pos int) {
	path = sumFlatten(path)
	if path == "" {
		return
	}
	u := l.byPath[path]
	if u == nil {
		u = &sumFileUse{path: path}
		l.byPath[path] = u
		l.order = append(l.order, u)
	}
	u.ops[op]++
	u.total++
	u.last = pos
	l.byCall[l.callID] = append(l.byCall[l.callID], sumFileOp{u, op})
}

// undo forgets what the call with id did: its result was an error.
func (l *sumFileLog) undo(id string) {
	for _, f := range l.byCall[id] {
		f.use.ops[f.op]--
		f.use.total--
	}
	delete(l.byCall, id)
}

// add records the files a tool call reads, writes, edits or deletes.
func (l *sumFileLog) add(e *codec.Event, pos int) {
	l.callID = e.ToolUseID
	delete(l.byCall, e.ToolUseID) // a reused id: only the latest call can fail
	var in map[string]json.RawMessage
	_ = json.Unmarshal(e.Input, &in) // a non-object input names no path
	path := sumInputString(in, "file_path", "path", "notebook_path")
	if e.FilePath != nil && *e.FilePath != "" {
		path = *e.FilePath
	}
	switch strings.ToLower(e.ToolName) {
	case "read":
		l.note(path, sumOpRead, pos)
	case "write":
		op := sumOpCreated
		if l.byPath[sumFlatten(path)] != nil {
			op = sumOpEdited // an existing file overwritten
		}
		l.note(path, op, pos)
	case "edit", "multiedit", "notebookedit", "apply_patch":
		if patch := sumPatchText(e.Input, in); patch != "" && l.addPatch(patch, pos) {
			return
		}
		op := sumOpEdited
		switch sumInputString(in, "kind") {
		case "add":
			op = sumOpCreated
		case "delete":
			op = sumOpDeleted
		}
		l.note(path, op, pos)
	case "bash", "shell", "shell_command", "exec_command", "local_shell":
		var in struct {
			Command json.RawMessage `json:"command"`
		}
		_ = json.Unmarshal(e.Input, &in) // no command, no files
		cmd := sumShellText(in.Command)
		if patch := editdiff.ShellPatch(cmd); patch != "" {
			l.addPatch(patch, pos) // apply_patch run through the shell
		} else {
			for _, p := range sumRemovedPaths(cmd) {
				l.note(p, sumOpDeleted, pos)
			}
		}
	}
}

// sumPatchOps are the file ops of apply_patch header lines.
var sumPatchOps = map[string]int{
	editdiff.PatchAdd: sumOpCreated, editdiff.PatchUpdate: sumOpEdited,
	editdiff.PatchDelete: sumOpDeleted, editdiff.PatchMove: sumOpCreated,
}

// addPatch records the files of an apply_patch text and reports whether
// it named any.
func (l *sumFileLog) addPatch(patch string, pos int) bool {
	found := false
	for line := range strings.SplitSeq(patch, "\n") {
		if path, op, ok := editdiff.PatchHeader(strings.TrimSpace(line)); ok {
			l.note(path, sumPatchOps[op], pos)
			found = true
		}
	}
	return found
}

// items lists the files, changed ones first, then by how often and how
// recently they were touched.
func (l *sumFileLog) items() []sumItem {
	var uses []*sumFileUse
	for _, u := range l.order {
		if u.total > 0 {
			uses = append(uses, u)
		}
	}
	changed := func(u *sumFileUse) bool { return u.ops[sumOpRead] < u.total }
	sort.SliceStable(uses, func(i, j int) bool {
		a, b := uses[i], uses[j]
		switch {
		case changed(a) != changed(b):
			return changed(a)
		case a.total != b.total:
			return a.total > b.total
		case a.last != b.last:
			return a.last > b.last
		}
		return a.path < b.path
	})
	out := make([]sumItem, len(uses))
	for i, u := range uses {
		var ops []string
		for op, n := range u.ops {
			switch {
			case n == 1:
				ops = append(ops, sumOpNames[op])
			case n > 1:
				ops = append(ops, sumOpNames[op]+" "+strconv.Itoa(n)+" times")
			}
		}
		out[i] = sumItem{text: sumTruncate(u.path, 200) + " (" + strings.Join(ops, ", ") + ")", pos: u.last, whole: true}
	}
	return out
}

// sumPatchText returns the apply_patch text of an edit: its "patch" field, or
// the whole input when that is a JSON string.
func sumPatchText(raw json.RawMessage, in map[string]json.RawMessage) string {
	if p := sumInputString(in, "patch"); p != "" {
		return p
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && strings.Contains(s, "*** ") {
		return s
	}
	return ""
}

// sumInputString returns the first of keys whose value is a JSON string.
func sumInputString(in map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if v, ok := in[k]; ok && json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// sumRemovedPaths returns the files a plain `rm` or `git rm` command deletes;
// nothing for commands with shell syntax it cannot follow.
func sumRemovedPaths(cmd string) []string {
	if strings.ContainsAny(cmd, "&|;<>$`*?(){}\"'…") {
		return nil
	}
	f := strings.Fields(cmd)
	switch {
	case len(f) > 1 && f[0] == "rm":
		f = f[1:]
	case len(f) > 2 && f[0] == "git" && f[1] == "rm":
		f = f[2:]
	default:
		return nil
	}
	var out []string
	for _, a := range f {
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

// sumCommand returns the one-line shell command of a Bash-like tool call.
func sumCommand(e *codec.Event) string {
	switch strings.ToLower(e.ToolName) {
	case "bash", "shell", "shell_command", "exec_command", "local_shell":
	default:
		return ""
	}
	var in struct {
		Command json.RawMessage `json:"command"`
		Cmd     json.RawMessage `json:"cmd"`
	}
	if json.Unmarshal(e.Input, &in) != nil {
		return ""
	}
	raw := in.Command
	if len(raw) == 0 {
		raw = in.Cmd
	}
	cmd := sumShellText(raw)
	if strings.HasPrefix(cmd, "poll session") {
		return "" // Codex polling a running command, not a command of its own
	}
	lines := strings.Split(strings.TrimSpace(cmd), "\n")
	line := sumFirstLine(lines[0])
	if len(lines) > 1 && strings.Contains(line, "<<") {
		// A here-document, as in git commit -m "$(cat <<'EOF' …": its first
		// line says more than the command does.
		line += " " + sumFirstLine(strings.Join(lines[1:], "\n"))
	}
	if line != "" && len(lines) > 1 {
		line += " …"
	}
	return line
}

// sumShellText returns a command given as a string or an argv array, without
// the `bash -lc` wrapper Codex puts around it.
func sumShellText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) != nil {
		return ""
	}
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		switch argv[0] {
		case "bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh":
			return argv[2]
		}
	}
	return strings.Join(argv, " ")
}

// sumToolErrorTags wrap Claude Code's tool errors.
var sumToolErrorTags = strings.NewReplacer("<tool_use_error>", "", "</tool_use_error>", "")

// sumToolError describes a failed tool call by its tool, what it worked on,
// and the first line of its output.
func sumToolError(e, call *codec.Event, pos int) sumItem {
	prefix := sumFlatten(e.ToolName)
	if call != nil {
		p := sumCommand(call)
		if p == "" {
			p = sumFlatten(sumFirstLine(codec.ToolKeyParam(call.ToolName, call.Input)))
		}
		if p != "" {
			prefix += " (" + sumTruncate(p, 80) + ")"
		}
	}
	text := sumToolErrorTags.Replace(codec.CompactResult(e.Content))
	if text = sumFirstLine(text); text == "" {
		text = "failed with no output"
	}
	return sumItem{prefix: prefix + ": ", text: text, pos: pos}
}
