package summary

// This file holds Summarize, the builtin compaction summary: its public
// entry point and length constants, and the budgeting and layout that
// share the length among the summary's sections. Extraction from the
// events is in summarize_extract.go, text helpers in summarize_text.go.

import (
	"sort"
	"strconv"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// MinChars and MaxChars bound a compaction summary, in
// characters (runes). The compaction prompt asks agents for this range,
// and Summarize keeps to it whenever its input has enough material.
const (
	MinChars = 2000
	MaxChars = 4000
)

// summaryTarget is the length Summarize aims at when it has more material
// than fits; the gap to MaxChars absorbs the layout's rounding.
// thinTarget is the aim when the material had to be widened to reach
// MinChars: just past the floor, so long excerpts do not swamp it.
const (
	summaryTarget = 3600
	thinTarget    = MinChars + 500
)

// sumMaxLevel is the last expansion level: each level widens the excerpts and
// admits more material, for inputs too thin to reach MinChars.
const sumMaxLevel = 3

// stateExcerpt is how much of the last assistant message Current state
// quotes before any widening.
const stateExcerpt = 400

// summaryTags are the tags the summary must never contain: it is injected
// between the context tags later, and a tag inside would cut it short.
var summaryTags = []string{codec.ContextOpenTag, codec.ContextCloseTag,
	codec.AutoContinueOpenTag, codec.AutoContinueCloseTag}

// Summarize returns a deterministic, extractive summary of events (the
// older part of a session being compacted), folding in the previous
// compaction summary when there is one. The result is 2,000–4,000
// characters (runes) whenever the input has enough material, never more
// than MaxChars, and never empty for non-empty input. It is plain
// text under headings: Earlier summary, User requests, Decisions and
// findings, Files touched, Commands run, Errors and Current state, each
// present only when it has content.
func Summarize(previous *string, events []codec.Event) string {
	m := collectMaterial(previous, events)
	level, target := 0, summaryTarget
	for level < sumMaxLevel && totalDemand(m.sections(level), target) < MinChars+150 {
		level, target = level+1, thinTarget
	}
	secs := m.sections(level)
	out := sumLayout(secs, target)
	// Word-boundary cuts and items that do not fit leave the text short
	// of its allocation; give the layout more room until it reaches the floor.
	for try := 0; try < 3 && sumRuneLen(out) < MinChars; try++ {
		if totalDemand(secs, MaxChars) <= sumRuneLen(out) {
			break
		}
		target = min(target+MinChars-sumRuneLen(out)+60, MaxChars-100)
		out = sumLayout(secs, target)
	}
	if out == "" && len(events) > 0 {
		out = sumEventCounts(events)
	}
	return sumCapLines(sumStripTags(out), MaxChars)
}

// sumItem is one extracted piece of text, shown as prefix + text. pos (the
// event index) orders items in time; a whole item is never cut.
type sumItem struct {
	prefix string
	text   string
	pos    int
	whole  bool
}

// sumSection is one heading of the summary with its items in priority order.
type sumSection struct {
	heading  string
	items    []sumItem
	chrono   bool // show the chosen items in time order
	bullet   bool
	weight   int // share of the budget, relative to the other sections
	limitPct int // most of the budget the section may take
	minItem  int // shortest excerpt worth showing
	maxItem  int // longest excerpt at the current expansion level
}

func (s *sumSection) itemCap(it *sumItem) int {
	n := sumRuneLen(it.text)
	if it.whole {
		return n
	}
	return min(n, s.maxItem)
}

func (s *sumSection) itemMin(it *sumItem) int {
	if it.whole {
		return sumRuneLen(it.text)
	}
	return min(sumRuneLen(it.text), s.minItem)
}

func (s *sumSection) overhead(it *sumItem) int {
	n := sumRuneLen(it.prefix) + 1
	if s.bullet {
		n += 2
	}
	return n
}

// demand is the length the section takes at its natural excerpt length,
// bounded by its share limit of target.
func (s *sumSection) demand(target int) int {
	if len(s.items) == 0 {
		return 0
	}
	n := sumRuneLen(s.heading) + 3
	for i := range s.items {
		n += s.overhead(&s.items[i]) + s.itemCap(&s.items[i])
	}
	return min(n, target*s.limitPct/100)
}

// render returns the section's text within room runes, "" when not even
// its first item fits.
func (s *sumSection) render(room int) string {
	room -= sumRuneLen(s.heading) + 3
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
		lines[i] = chosen[i].prefix + sumTruncate(chosen[i].text, mins[i]+extra[i])
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

func totalDemand(secs []sumSection, target int) int {
	n := 0
	for i := range secs {
		n += secs[i].demand(target)
	}
	return min(n, target)
}

// sumLayout shares target among the sections by weight and renders them.
func sumLayout(secs []sumSection, target int) string {
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

// sumMaterial is what Summarize extracts from the events.
type sumMaterial struct {
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
func (m *sumMaterial) sections(level int) []sumSection {
	// Each level admits more items and longer excerpts; the last one
	// quotes items whole.
	n := func(base int) int { return base * (1 + level) }
	excerpt := func(base int) int {
		if level == sumMaxLevel {
			return 1 << 20
		}
		return base << level
	}
	decisions := append(append([]sumItem{}, m.strong...), m.weak...)
	if level > 0 {
		decisions = append(decisions, m.other...)
	}
	secs := []sumSection{
		{heading: "Earlier summary", weight: 20, limitPct: []int{30, 45, 60, 100}[level], minItem: 200, maxItem: 1 << 20},
		{heading: "User requests", items: sumFirstN(m.requests, n(8)), chrono: true, bullet: true, weight: 20, limitPct: 100, minItem: 150, maxItem: excerpt(280)},
		{heading: "Decisions and findings", items: sumFirstN(decisions, n(14)), chrono: true, bullet: true, weight: 25, limitPct: 100, minItem: 150, maxItem: excerpt(240)},
		{heading: "Files touched", items: sumFirstN(m.files, n(20)), bullet: true, weight: 12, limitPct: 100},
		{heading: "Commands run", items: sumFirstN(m.commands, n(14)), bullet: true, weight: 10, limitPct: 100, minItem: 60, maxItem: excerpt(140)},
		{heading: "Errors", items: sumFirstN(m.errors, n(6)), bullet: true, weight: 6, limitPct: 100, minItem: 60, maxItem: excerpt(160)},
		{heading: "Current state", items: m.state, chrono: true, weight: 12, limitPct: 100, minItem: 120, maxItem: excerpt(stateExcerpt)},
	}
	if m.previous != "" {
		secs[0].items = []sumItem{{text: m.previous}}
	}
	return secs
}

func sumFirstN(items []sumItem, n int) []sumItem { return items[:min(n, len(items))] }

// sumEventCounts is the summary of events that hold nothing to extract.
func sumEventCounts(events []codec.Event) string {
	counts := make(map[codec.Kind]int)
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
