package agents

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/store"
)

// MinSummaryChars and MaxSummaryChars bound a compaction summary, in
// characters (runes). The compaction prompt asks agents for this range,
// and Summarize keeps to it whenever its input has enough material.
const (
	MinSummaryChars = 2000
	MaxSummaryChars = 4000
)

// summaryTarget is the length Summarize aims at when it has more material
// than fits; the gap to MaxSummaryChars absorbs the layout's rounding.
// thinTarget is the aim when the material had to be widened to reach
// MinSummaryChars: just past the floor, so long excerpts do not swamp it.
const (
	summaryTarget = 3600
	thinTarget    = MinSummaryChars + 500
)

// maxLevel is the last expansion level: each level widens the excerpts and
// admits more material, for inputs too thin to reach MinSummaryChars.
const maxLevel = 3

// stateExcerpt is how much of the last assistant message Current state
// quotes before any widening.
const stateExcerpt = 400

// summaryTags are the tags the summary must never contain: it is injected
// between the context tags later, and a tag inside would cut it short.
var summaryTags = []string{store.ContextOpenTag, store.ContextCloseTag,
	store.AutoContinueOpenTag, store.AutoContinueCloseTag}

// Summarize returns a deterministic, extractive summary of events (the
// older part of a session being compacted), folding in the previous
// compaction summary when there is one. The result is 2,000–4,000
// characters (runes) whenever the input has enough material, never more
// than MaxSummaryChars, and never empty for non-empty input. It is plain
// text under headings: Earlier summary, User requests, Decisions and
// findings, Files touched, Commands run, Errors and Current state, each
// present only when it has content.
func Summarize(previous *string, events []store.Event) string {
	m := collectMaterial(previous, events)
	level, target := 0, summaryTarget
	for level < maxLevel && totalDemand(m.sections(level), target) < MinSummaryChars+150 {
		level, target = level+1, thinTarget
	}
	secs := m.sections(level)
	out := layout(secs, target)
	// Word-boundary cuts and items that do not fit leave the text short
	// of its allocation; give the layout more room until it reaches the floor.
	for try := 0; try < 3 && runeLen(out) < MinSummaryChars; try++ {
		if totalDemand(secs, MaxSummaryChars) <= runeLen(out) {
			break
		}
		target = min(target+MinSummaryChars-runeLen(out)+60, MaxSummaryChars-100)
		out = layout(secs, target)
	}
	if out == "" && len(events) > 0 {
		out = eventCounts(events)
	}
	return capLines(stripTags(out), MaxSummaryChars)
}

// sumItem is one extracted piece of text, shown as prefix + text. pos (the
// event index) orders items in time; a whole item is never cut.
type sumItem struct {
	prefix string
	text   string
	pos    int
	whole  bool
}

// section is one heading of the summary with its items in priority order.
type section struct {
	heading  string
	items    []sumItem
	chrono   bool // show the chosen items in time order
	bullet   bool
	weight   int // share of the budget, relative to the other sections
	limitPct int // most of the budget the section may take
	minItem  int // shortest excerpt worth showing
	maxItem  int // longest excerpt at the current expansion level
}

func (s *section) itemCap(it *sumItem) int {
	n := runeLen(it.text)
	if it.whole {
		return n
	}
	return min(n, s.maxItem)
}

func (s *section) itemMin(it *sumItem) int {
	if it.whole {
		return runeLen(it.text)
	}
	return min(runeLen(it.text), s.minItem)
}

func (s *section) overhead(it *sumItem) int {
	n := runeLen(it.prefix) + 1
	if s.bullet {
		n += 2
	}
	return n
}

// demand is the length the section takes at its natural excerpt length,
// bounded by its share limit of target.
func (s *section) demand(target int) int {
	if len(s.items) == 0 {
		return 0
	}
	n := runeLen(s.heading) + 3
	for i := range s.items {
		n += s.overhead(&s.items[i]) + s.itemCap(&s.items[i])
	}
	return min(n, target*s.limitPct/100)
}

// render returns the section's text within room runes, "" when not even
// its first item fits.
func (s *section) render(room int) string {
	room -= runeLen(s.heading) + 3
	var chosen []sumItem
	var caps, mins []int
	for i := range s.items {
		it := &s.items[i]
		need := s.overhead(it) + s.itemMin(it)
		if need > room {
			break
		}
		room -= need
		chosen = append(chosen, *it)
		caps = append(caps, s.itemCap(it))
		mins = append(mins, s.itemMin(it))
	}
	if len(chosen) == 0 {
		return ""
	}
	for i := range caps {
		caps[i] -= mins[i] // what each item could still take
	}
	extra := waterFill(caps, nil, room)
	lines := make([]string, len(chosen))
	order := make([]int, len(chosen))
	for i := range chosen {
		order[i] = i
		lines[i] = chosen[i].prefix + truncateText(chosen[i].text, mins[i]+extra[i])
		if s.bullet {
			lines[i] = "- " + lines[i]
		}
	}
	if s.chrono {
		sort.SliceStable(order, func(a, b int) bool { return chosen[order[a]].pos < chosen[order[b]].pos })
	}
	var b strings.Builder
	b.WriteString(s.heading)
	for _, i := range order {
		b.WriteByte('\n')
		b.WriteString(lines[i])
	}
	return b.String()
}

// waterFill splits total among parties with the given demands, in
// proportion to weights (equal when nil); no party gets more than it
// demands, and what one leaves goes to the others.
func waterFill(demands, weights []int, total int) []int {
	alloc := make([]int, len(demands))
	active := make([]int, 0, len(demands))
	for i, d := range demands {
		if d > 0 {
			active = append(active, i)
		}
	}
	weight := func(i int) int {
		if weights == nil {
			return 1
		}
		return weights[i]
	}
	for len(active) > 0 && total > 0 {
		sumW := 0
		for _, i := range active {
			sumW += weight(i)
		}
		var rest []int
		left := total
		for _, i := range active {
			if share := total * weight(i) / sumW; demands[i] <= share {
				alloc[i] = demands[i]
				left -= demands[i]
			} else {
				rest = append(rest, i)
			}
		}
		if len(rest) == len(active) {
			for _, i := range active {
				alloc[i] = total * weight(i) / sumW
			}
			break
		}
		active, total = rest, left
	}
	return alloc
}

func totalDemand(secs []section, target int) int {
	n := 0
	for i := range secs {
		n += secs[i].demand(target)
	}
	return min(n, target)
}

// layout shares target among the sections by weight and renders them.
func layout(secs []section, target int) string {
	demands := make([]int, len(secs))
	weights := make([]int, len(secs))
	for i := range secs {
		demands[i], weights[i] = secs[i].demand(target), secs[i].weight
	}
	alloc := waterFill(demands, weights, target)
	var parts []string
	for i := range secs {
		if t := secs[i].render(alloc[i]); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// material is what Summarize extracts from the events.
type material struct {
	previous string
	requests []sumItem // newest first, deduplicated
	strong   []sumItem // decision sentences with strong cue words
	weak     []sumItem
	other    []sumItem // remaining assistant sentences, used when material is thin
	files    []sumItem
	commands []sumItem
	errors   []sumItem
	state    []sumItem
}

// sections lays the material out as sections at expansion level.
func (m *material) sections(level int) []section {
	// Each level admits more items and longer excerpts; the last one
	// quotes items whole.
	n := func(base int) int { return base * (1 + level) }
	excerpt := func(base int) int {
		if level == maxLevel {
			return 1 << 20
		}
		return base << level
	}
	decisions := append(append([]sumItem{}, m.strong...), m.weak...)
	if level > 0 {
		decisions = append(decisions, m.other...)
	}
	secs := []section{
		{heading: "Earlier summary", weight: 20, limitPct: []int{30, 45, 60, 100}[level], minItem: 200, maxItem: 1 << 20},
		{heading: "User requests", items: firstN(m.requests, n(8)), chrono: true, bullet: true, weight: 20, limitPct: 100, minItem: 150, maxItem: excerpt(280)},
		{heading: "Decisions and findings", items: firstN(decisions, n(14)), chrono: true, bullet: true, weight: 25, limitPct: 100, minItem: 150, maxItem: excerpt(240)},
		{heading: "Files touched", items: firstN(m.files, n(20)), bullet: true, weight: 12, limitPct: 100},
		{heading: "Commands run", items: firstN(m.commands, n(14)), bullet: true, weight: 10, limitPct: 100, minItem: 60, maxItem: excerpt(140)},
		{heading: "Errors", items: firstN(m.errors, n(6)), bullet: true, weight: 6, limitPct: 100, minItem: 60, maxItem: excerpt(160)},
		{heading: "Current state", items: m.state, chrono: true, weight: 12, limitPct: 100, minItem: 120, maxItem: excerpt(stateExcerpt)},
	}
	if m.previous != "" {
		secs[0].items = []sumItem{{text: m.previous}}
	}
	return secs
}

func firstN(items []sumItem, n int) []sumItem { return items[:min(n, len(items))] }

// collectMaterial walks the events once and extracts every section's items.
func collectMaterial(previous *string, events []store.Event) *material {
	m := &material{}
	if previous != nil {
		m.previous = condense(*previous)
	}
	var requests, commands, errs, plans []sumItem
	var sentences []scoredSentence
	files := newFileLog()
	calls := make(map[string]*store.Event)
	lastText, lastComplete := -1, -1
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case store.KindUserMessage:
			if s, ok := codexUserText(e.Content); ok { // also drops Codex's context messages
				if t := flatten(s); t != "" {
					requests = append(requests, sumItem{text: t, pos: i})
				}
			}
		case store.KindAssistantText:
			sentences = append(sentences, splitSentences(e.Text, i)...)
			lastText = i
			if strings.HasPrefix(e.Text, "Error:") {
				errs = append(errs, sumItem{text: firstLine(e.Text), pos: i})
			}
		case store.KindPlan:
			if p := planItem(e.Name, e.Content, i); p.text != "" {
				plans = append(plans, p)
			}
		case store.KindToolCall:
			calls[e.ToolUseID] = e
			files.add(e, i)
			if c := commandOf(e); c != "" {
				commands = append(commands, sumItem{text: c, pos: i})
			}
		case store.KindToolResult:
			if e.IsError {
				errs = append(errs, toolError(e, calls[e.ToolUseID], i))
				files.undo(e.ToolUseID)
			} else if a, ok := strings.CutPrefix(e.Content, answersPrefix); ok {
				if t := flatten(a); t != "" {
					requests = append(requests, sumItem{prefix: "Answered: ", text: t, pos: i})
				}
			}
		case store.KindComplete:
			lastComplete = i
		}
	}
	m.requests = latestUnique(requests)
	m.state = currentState(events, lastText, lastComplete)
	if lastText >= 0 && runeLen(flatten(events[lastText].Text)) <= stateExcerpt {
		// Current state quotes the last message whole; do not repeat it.
		sentences = slices.DeleteFunc(sentences, func(s scoredSentence) bool { return s.pos == lastText })
	}
	m.strong, m.weak, m.other = rankSentences(sentences)
	m.strong = append(latestUnique(plans), m.strong...)
	m.files = files.items()
	m.commands = latestUnique(commands)
	m.errors = latestUnique(errs)
	return m
}

// planItem describes a Plan event: its name and its steps, without the
// title line that repeats the name.
func planItem(name, content string, pos int) sumItem {
	name = flatten(name)
	if first, rest, ok := strings.Cut(strings.TrimSpace(content), "\n"); ok && name != "" &&
		strings.HasPrefix(first, "#") && strings.Contains(first, name) {
		content = rest
	}
	return sumItem{prefix: "Plan " + strconv.Quote(name) + ": ", text: condense(content), pos: pos}
}

// answersPrefix starts the result of Claude's AskUserQuestion tool: the
// user's answers, which are requests as much as a prompt is.
const answersPrefix = "User has answered your questions:"

// currentState describes how the summarized part ended: the last
// completion, then the last assistant message.
func currentState(events []store.Event, lastText, lastComplete int) []sumItem {
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
		if t := flatten(stripMarkdown(events[lastText].Text)); t != "" {
			out = append(out, sumItem{prefix: "The assistant's last message was: ", text: t, pos: lastText})
		}
	}
	return out
}

// eventCounts is the summary of events that hold nothing to extract.
func eventCounts(events []store.Event) string {
	counts := make(map[store.Kind]int)
	for _, e := range events {
		counts[e.Kind]++
	}
	kinds := make([]string, 0, len(counts))
	for k, n := range counts {
		kinds = append(kinds, strconv.Itoa(n)+" "+string(k))
	}
	sort.Strings(kinds)
	return "Current state\nThe summarized part of the session held " + strconv.Itoa(len(events)) +
		" events (" + strings.Join(kinds, ", ") + ") and no messages, files or commands."
}

// latestUnique returns items newest first, keeping only the newest of
// items with the same text.
func latestUnique(items []sumItem) []sumItem {
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

// toolErrorTags wrap Claude Code's tool errors.
var toolErrorTags = strings.NewReplacer("<tool_use_error>", "", "</tool_use_error>", "")

// toolError describes a failed tool call by its tool, what it worked on,
// and the first line of its output.
func toolError(e, call *store.Event, pos int) sumItem {
	prefix := flatten(e.ToolName)
	if call != nil {
		p := commandOf(call)
		if p == "" {
			p = flatten(firstLine(store.ToolKeyParam(call.ToolName, call.Input)))
		}
		if p != "" {
			prefix += " (" + truncateText(p, 80) + ")"
		}
	}
	text := toolErrorTags.Replace(store.CompactResult(e.Content))
	if text = firstLine(text); text == "" {
		text = "failed with no output"
	}
	return sumItem{prefix: prefix + ": ", text: text, pos: pos}
}

// commandOf returns the one-line shell command of a Bash-like tool call.
func commandOf(e *store.Event) string {
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
	cmd := shellText(raw)
	if strings.HasPrefix(cmd, "poll session") {
		return "" // Codex polling a running command, not a command of its own
	}
	lines := strings.Split(strings.TrimSpace(cmd), "\n")
	line := firstLine(lines[0])
	if len(lines) > 1 && strings.Contains(line, "<<") {
		// A here-document, as in git commit -m "$(cat <<'EOF' …": its first
		// line says more than the command does.
		line += " " + firstLine(strings.Join(lines[1:], "\n"))
	}
	if line != "" && len(lines) > 1 {
		line += " …"
	}
	return line
}

// shellText returns a command given as a string or an argv array, without
// the `bash -lc` wrapper Codex puts around it.
func shellText(raw json.RawMessage) string {
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

// firstLine returns the first non-blank line of s, flattened.
func firstLine(s string) string {
	for line := range strings.SplitSeq(s, "\n") {
		if t := flatten(line); t != "" {
			return t
		}
	}
	return ""
}

// condense turns a previous summary into one paragraph: headings end in a
// colon, list items in a semicolon, other lines in a full stop.
func condense(s string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(s, "\n") {
		isBullet := isListItem(strings.TrimSpace(line))
		t := flatten(stripMarkdown(line))
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
		switch last, _ := utf8.DecodeLastRuneInString(t); {
		case strings.ContainsRune(".!?:;…", last):
		case isBullet:
			b.WriteByte(';')
		case runeLen(t) <= 40:
			b.WriteByte(':')
		default:
			b.WriteByte('.')
		}
	}
	if t, ok := strings.CutSuffix(b.String(), ";"); ok {
		return t + "."
	}
	return b.String()
}

// isListItem reports whether a trimmed line is a Markdown list item.
func isListItem(line string) bool {
	if strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "* ") {
		return true
	}
	rest := strings.TrimLeft(line, "0123456789")
	return rest != line && strings.HasPrefix(rest, ". ")
}

// emphasis removes Markdown's bold markers.
var emphasis = strings.NewReplacer("**", "", "__", "")

// stripMarkdown removes the block markers at the start of each line
// (headings, quotes, list bullets) and emphasis markers.
func stripMarkdown(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		t := strings.TrimLeft(strings.TrimSpace(line), "#> ")
		for _, p := range []string{"- [ ] ", "- [x] ", "- ", "* ", "+ "} {
			t = strings.TrimPrefix(t, p)
		}
		if j := strings.IndexFunc(t, func(r rune) bool { return r < '0' || r > '9' }); j > 0 && j < 4 &&
			strings.HasPrefix(t[j:], ". ") {
			t = t[j+2:]
		}
		lines[i] = emphasis.Replace(t)
	}
	return strings.Join(lines, "\n")
}

// flatten makes s one clean line: valid UTF-8, no control characters,
// white space runs collapsed to one space, and no summary tags.
func flatten(s string) string {
	s = collapse(stripTags(strings.ToValidUTF8(s, "\uFFFD")))
	if t := stripTags(s); t != s { // dropping a control character joined a tag
		s = collapse(t)
	}
	return s
}

// collapse drops control characters and collapses white space.
func collapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
		case unicode.IsControl(r) || r == '\u200b' || r == '\ufeff':
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// stripTags removes the context and auto-continue tags, again and again,
// since removing one may join the pieces of another.
func stripTags(s string) string {
	for {
		t := s
		for _, tag := range summaryTags {
			t = strings.ReplaceAll(t, tag, "")
		}
		if t == s {
			return t
		}
		s = t
	}
}

// truncateText shortens s to at most max runes, cutting at the end of a
// sentence or else of a word when one is near, and marking the cut with "…".
func truncateText(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	switch {
	case max <= 0:
		return ""
	case max == 1:
		return "…"
	}
	limit := max - 1 // room for "…"
	for i := limit - 2; i >= limit*6/10; i-- {
		if strings.ContainsRune(".!?", r[i]) && r[i+1] == ' ' {
			return string(r[:i+1]) + " …"
		}
	}
	for i := limit; i >= limit/2; i-- {
		if r[i] == ' ' {
			return strings.TrimRight(string(r[:i]), " ,;:-–—") + "…"
		}
	}
	return string(r[:limit]) + "…"
}

// capLines drops whole lines from the end of s until it has at most max
// runes; a single line longer than max is truncated.
func capLines(s string, max int) string {
	for runeLen(s) > max {
		i := strings.LastIndexByte(s, '\n')
		if i < 0 {
			return truncateText(s, max)
		}
		s = strings.TrimRight(s[:i], "\n")
	}
	return s
}

func runeLen(s string) int { return utf8.RuneCountInString(s) }

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
	narration = []string{"let me ", "now let me ", "let's ", "now i'll ", "i'll ", "i will ",
		"i need to ", "i'm going to ", "first, let me ", "next, i'll ", "now, let me "}
)

// splitSentences splits assistant text into scored sentences, skipping
// code blocks, tables and fragments too short to carry a decision.
func splitSentences(text string, pos int) []scoredSentence {
	var out []scoredSentence
	inCode := false
	for line := range strings.SplitSeq(stripMarkdown(text), "\n") {
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			inCode = !inCode
			continue
		}
		if inCode || strings.HasPrefix(line, "|") {
			continue
		}
		for _, s := range sentencesOf(flatten(line)) {
			if runeLen(s) < 20 || strings.HasSuffix(s, ":") {
				continue
			}
			out = append(out, scoredSentence{sumItem{text: s, pos: pos}, cueScore(s)})
		}
	}
	return out
}

// sentencesOf splits a line after each '.', '!' or '?' that a space follows.
func sentencesOf(line string) []string {
	var out []string
	start := 0
	for i := 0; i+1 < len(line); i++ {
		if (line[i] == '.' || line[i] == '!' || line[i] == '?') && line[i+1] == ' ' && !isAbbrev(line[start:i]) {
			out = append(out, line[start:i+1])
			start = i + 2
		}
	}
	if start < len(line) {
		out = append(out, line[start:])
	}
	return out
}

// abbreviations end in a full stop that does not end a sentence.
var abbreviations = []string{"e.g", "i.e", "etc", "vs", "cf", "approx", "incl", "mr", "ms", "dr", "no", "fig"}

// isAbbrev reports whether s ends with an abbreviation.
func isAbbrev(s string) bool {
	word := strings.ToLower(s[strings.LastIndexAny(s, " (\"'[")+1:])
	for _, a := range abbreviations {
		if word == a {
			return true
		}
	}
	return false
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
	for _, p := range narration {
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
		case s.score == 0 && runeLen(s.text) >= 40:
			other = append(other, s.sumItem)
		}
	}
	return strong, weak, other
}

// File operations in the order the summary lists them.
const (
	opCreated = iota
	opEdited
	opDeleted
	opRead
	numOps
)

var opNames = [numOps]string{"created", "edited", "deleted", "read"}

// fileUse is what the tool calls did to one file.
type fileUse struct {
	path  string
	ops   [numOps]int
	total int
	last  int
}

// fileLog gathers the files that tool calls touched.
type fileLog struct {
	byPath map[string]*fileUse
	order  []*fileUse
	byCall map[string][]fileOp // what each call did, undone if it fails
	callID string              // the call being added
}

type fileOp struct {
	use *fileUse
	op  int
}

func newFileLog() *fileLog {
	return &fileLog{byPath: make(map[string]*fileUse), byCall: make(map[string][]fileOp)}
}

func (l *fileLog) note(path string, op, pos int) {
	path = flatten(path)
	if path == "" {
		return
	}
	u := l.byPath[path]
	if u == nil {
		u = &fileUse{path: path}
		l.byPath[path] = u
		l.order = append(l.order, u)
	}
	u.ops[op]++
	u.total++
	u.last = pos
	l.byCall[l.callID] = append(l.byCall[l.callID], fileOp{u, op})
}

// undo forgets what the call with id did: its result was an error.
func (l *fileLog) undo(id string) {
	for _, f := range l.byCall[id] {
		f.use.ops[f.op]--
		f.use.total--
	}
	delete(l.byCall, id)
}

// add records the files a tool call reads, writes, edits or deletes.
func (l *fileLog) add(e *store.Event, pos int) {
	l.callID = e.ToolUseID
	delete(l.byCall, e.ToolUseID) // a reused id: only the latest call can fail
	var in map[string]json.RawMessage
	_ = json.Unmarshal(e.Input, &in) // a non-object input names no path
	path := inputString(in, "file_path", "path", "notebook_path")
	if e.FilePath != nil && *e.FilePath != "" {
		path = *e.FilePath
	}
	switch strings.ToLower(e.ToolName) {
	case "read":
		l.note(path, opRead, pos)
	case "write":
		op := opCreated
		if l.byPath[flatten(path)] != nil {
			op = opEdited // an existing file overwritten
		}
		l.note(path, op, pos)
	case "edit", "multiedit", "notebookedit", "apply_patch":
		if patch := patchText(e.Input, in); patch != "" && l.addPatch(patch, pos) {
			return
		}
		op := opEdited
		switch inputString(in, "kind") {
		case "add":
			op = opCreated
		case "delete":
			op = opDeleted
		}
		l.note(path, op, pos)
	case "bash", "shell", "shell_command", "exec_command", "local_shell":
		var in struct {
			Command json.RawMessage `json:"command"`
		}
		_ = json.Unmarshal(e.Input, &in) // no command, no files
		if cmd := shellText(in.Command); strings.Contains(cmd, "*** Begin Patch") {
			l.addPatch(cmd, pos) // apply_patch run through the shell
		} else {
			for _, p := range removedPaths(cmd) {
				l.note(p, opDeleted, pos)
			}
		}
	}
}

// patchMarkers are the apply_patch lines that name a file.
var patchMarkers = []struct {
	prefix string
	op     int
}{
	{"*** Add File: ", opCreated}, {"*** Update File: ", opEdited},
	{"*** Delete File: ", opDeleted}, {"*** Move to: ", opCreated},
}

// addPatch records the files of an apply_patch text and reports whether
// it named any.
func (l *fileLog) addPatch(patch string, pos int) bool {
	found := false
	for line := range strings.SplitSeq(patch, "\n") {
		line = strings.TrimSpace(line)
		for _, m := range patchMarkers {
			if rest, ok := strings.CutPrefix(line, m.prefix); ok {
				l.note(rest, m.op, pos)
				found = true
			}
		}
	}
	return found
}

// items lists the files, changed ones first, then by how often and how
// recently they were touched.
func (l *fileLog) items() []sumItem {
	var uses []*fileUse
	for _, u := range l.order {
		if u.total > 0 {
			uses = append(uses, u)
		}
	}
	changed := func(u *fileUse) bool { return u.ops[opRead] < u.total }
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
				ops = append(ops, opNames[op])
			case n > 1:
				ops = append(ops, opNames[op]+" "+strconv.Itoa(n)+" times")
			}
		}
		out[i] = sumItem{text: truncateText(u.path, 200) + " (" + strings.Join(ops, ", ") + ")", pos: u.last, whole: true}
	}
	return out
}

// patchText returns the apply_patch text of an edit: its "patch" field, or
// the whole input when that is a JSON string.
func patchText(raw json.RawMessage, in map[string]json.RawMessage) string {
	if p := inputString(in, "patch"); p != "" {
		return p
	}
	var s string
	if json.Unmarshal(raw, &s) == nil && strings.Contains(s, "*** ") {
		return s
	}
	return ""
}

// inputString returns the first of keys whose value is a JSON string.
func inputString(in map[string]json.RawMessage, keys ...string) string {
	for _, k := range keys {
		var s string
		if v, ok := in[k]; ok && json.Unmarshal(v, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

// removedPaths returns the files a plain `rm` or `git rm` command deletes;
// nothing for commands with shell syntax it cannot follow.
func removedPaths(cmd string) []string {
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
