package chronicle

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/store"
)

// What the tips look for. Event reads are bounded by the candidate
// counts, so a report over a large store stays quick.
const (
	compactedMin      = 3      // compactions that make a long session a tip
	compactCandidates = 50     // the sessions with most events, checked for compactions
	slowTurnMS        = 60_000 // a wait this long for an answer …
	shortAnswerRunes  = 120    // … that is one line of at most this many characters
	slowCandidates    = 100    // the longest turns, checked for their answer
	repeatedMinRunes  = 12     // shorter prompts ("continue", "yes") repeat by nature
	costlyFactor      = 3      // a session costing this many times the median
	costlyMinSessions = 5      // sessions with a cost needed for a median
	costlyShown       = 5
	examplesShown     = 3  // example prompts of a model
	citesShown        = 6  // citations of one finding
	answerLookBack    = 40 // events read back from a turn's end for its answer
)

func (h *history) tips(ctx context.Context, f *Facts) error {
	for _, step := range []func(context.Context, *Facts) error{h.compacted, h.abandoned, h.repeated, h.slowShort} {
		if err := step(ctx, f); err != nil {
			return err
		}
	}
	h.models(f)
	h.costly(f)
	return nil
}

func (s *session) title() string {
	if s.Name == "" {
		return fmt.Sprintf("S%d", s.ID)
	}
	return fmt.Sprintf("S%d %s", s.ID, quote(s.Name, 60))
}

// compacted finds long sessions compacted many times: by the agent
// (Compacted events) or by Lazuli (compactions).
func (h *history) compacted(ctx context.Context, f *Facts) error {
	big := append([]*session(nil), h.sessions...)
	sort.SliceStable(big, func(i, j int) bool { return big[i].Events > big[j].Events })
	big = big[:min(len(big), compactCandidates)]
	sort.SliceStable(big, func(i, j int) bool {
		return big[i].store < big[j].store || big[i].store == big[j].store && big[i].ID < big[j].ID
	})
	for _, s := range big {
		st := h.sources[s.store].Store
		seqs, err := st.Events().KindSeqs(ctx, s.ID, codec.KindCompacted)
		if err != nil {
			return err
		}
		comps, err := st.Compactions().Of(ctx, s.ID)
		if err != nil {
			return err
		}
		for _, c := range comps {
			seqs = append(seqs, c.AfterSeq)
		}
		if len(seqs) < compactedMin {
			continue
		}
		sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
		fd := Finding{Kind: FindCompacted, Count: len(seqs),
			Text: fmt.Sprintf("%s: %s over %s, compacted %d times", s.title(), display.Plural(s.Events, "event"),
				display.Plural(s.Turns, "turn"), len(seqs))}
		for _, q := range seqs[:min(len(seqs), citesShown)] {
			fd.Cites = append(fd.Cites, s.cite(q))
		}
		f.Findings = append(f.Findings, fd)
	}
	return nil
}

// abandoned finds sessions whose last prompt ended in errors or failed,
// and that the user did not come back to.
func (h *history) abandoned(_ context.Context, f *Facts) error {
	var found []Finding
	for _, s := range h.sessions {
		i := len(s.turns) - 1
		for i >= 0 && !isPrompt(s.turns[i]) {
			i--
		}
		if i < 0 || !h.inWindow(s, s.turns[i]) {
			continue
		}
		t := s.turns[i]
		failed := t.Success != nil && !*t.Success
		if !failed && (t.ToolErrors == 0 || t.Success != nil && *t.Success) {
			continue
		}
		what := "failed"
		if t.ToolErrors > 0 {
			what = "ended after " + display.Plural(t.ToolErrors, "tool error")
		}
		found = append(found, Finding{Kind: FindAbandoned,
			Text:  fmt.Sprintf("%s %s on %s and was not picked up again", s.title(), what, quote(t.Prompt, 80)),
			Cites: []Cite{s.cite(t.FirstSeq), s.cite(t.LastSeq)}})
	}
	for _, fd := range found[max(0, len(found)-listedMax):] {
		fd.Count = len(found)
		f.Findings = append(f.Findings, fd)
	}
	return nil
}

// normPrompt is a prompt as compared for repeats: lower case, runs of
// spaces one space, closing punctuation dropped; built in one pass.
func normPrompt(p string) string {
	b := make([]byte, 0, len(p))
	space := true // drops leading spaces
	for _, r := range p {
		if unicode.IsSpace(r) {
			if !space {
				b = append(b, ' ')
			}
			space = true
			continue
		}
		space = false
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
			b = append(b, byte(r))
			continue
		}
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	return strings.TrimRight(string(b), ".!? ")
}

// repeated finds identical prompts sent more than once.
func (h *history) repeated(_ context.Context, f *Facts) error {
	type seen struct {
		text     string
		cites    []Cite
		sessions map[sessionKey]bool
	}
	byText := map[string]*seen{}
	var order []string
	for _, s := range h.sessions {
		for _, t := range s.turns {
			if !isPrompt(t) || !h.inWindow(s, t) {
				continue
			}
			k := normPrompt(t.Prompt)
			if utf8.RuneCountInString(k) < repeatedMinRunes {
				continue
			}
			r := byText[k]
			if r == nil {
				r = &seen{text: t.Prompt, sessions: map[sessionKey]bool{}}
				byText[k] = r
				order = append(order, k)
			}
			r.cites = append(r.cites, s.cite(t.FirstSeq))
			r.sessions[sessionKey{s.store, s.ID}] = true
		}
	}
	sort.SliceStable(order, func(i, j int) bool { return len(byText[order[i]].cites) > len(byText[order[j]].cites) })
	for _, k := range order[:min(len(order), listedMax)] {
		r := byText[k]
		if len(r.cites) < 2 {
			break
		}
		f.Findings = append(f.Findings, Finding{Kind: FindRepeated, Count: len(r.cites),
			Text: fmt.Sprintf("%s was sent %d times in %s", quote(r.text, 100), len(r.cites),
				display.Plural(len(r.sessions), "session")),
			Cites: r.cites[:min(len(r.cites), citesShown)]})
	}
	return nil
}

// slowShort finds prompts that waited long for a one-line answer.
func (h *history) slowShort(ctx context.Context, f *Facts) error {
	type cand struct {
		s *session
		t insight.TurnRow
	}
	var cands []cand
	for _, s := range h.sessions {
		for _, t := range s.turns {
			if isPrompt(t) && h.inWindow(s, t) && t.DurationMS != nil && *t.DurationMS >= slowTurnMS {
				cands = append(cands, cand{s, t})
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return *cands[i].t.DurationMS > *cands[j].t.DurationMS })
	cands = cands[:min(len(cands), slowCandidates)]
	shown := 0
	for _, c := range cands {
		if shown == listedMax {
			break
		}
		evs, err := h.sources[c.s.store].Store.Events().Range(ctx, c.s.ID, max(c.t.FirstSeq, c.t.LastSeq-answerLookBack), c.t.LastSeq)
		if err != nil {
			return err
		}
		var answer *store.StoredEvent
		for i := len(evs) - 1; i >= 0 && answer == nil; i-- {
			if evs[i].Kind == codec.KindAssistantText && strings.TrimSpace(evs[i].Event.Text) != "" {
				answer = &evs[i]
			}
		}
		if answer == nil {
			continue
		}
		text := strings.TrimSpace(answer.Event.Text)
		if strings.Contains(text, "\n") || utf8.RuneCountInString(text) > shortAnswerRunes {
			continue
		}
		shown++
		f.Findings = append(f.Findings, Finding{Kind: FindSlowShort, Count: 1,
			Text: fmt.Sprintf("%s waited %s for a one-line answer: %s", quote(c.t.Prompt, 80),
				display.DurationBadge(*c.t.DurationMS), quote(text, shortAnswerRunes)),
			Cites: []Cite{c.s.cite(c.t.FirstSeq), c.s.cite(answer.Seq)}})
	}
	return nil
}

// models says which models the sessions used, for how much, and for what
// (the first prompts of a few of their sessions).
func (h *history) models(f *Facts) {
	type use struct {
		model, backend string
		sessions       int
		turns          int64
		cost           float64
		examples       []Cite
		texts          []string
	}
	byModel := map[string]*use{}
	for _, s := range h.sessions {
		for _, m := range s.Models {
			u := byModel[m.Model]
			if u == nil {
				u = &use{model: m.Model, backend: m.Backend}
				byModel[m.Model] = u
			}
			u.sessions++
			u.turns += m.Turns
			u.cost += m.CostUSD
			if len(u.examples) < examplesShown {
				if p, seq := s.firstPrompt(); p != "" {
					u.examples = append(u.examples, s.cite(seq))
					u.texts = append(u.texts, quote(p, 60))
				}
			}
		}
	}
	list := make([]*use, 0, len(byModel))
	for _, u := range byModel {
		list = append(list, u)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].cost != list[j].cost {
			return list[i].cost > list[j].cost
		}
		return list[i].model < list[j].model
	})
	for _, u := range list {
		text := fmt.Sprintf("%s (%s): %s, %s, $%.2f", code(u.model), u.backend, display.Plural(u.sessions, "session"),
			display.Plural(u.turns, "turn"), u.cost)
		if len(u.texts) > 0 {
			text += " — e.g. " + strings.Join(u.texts, ", ")
		}
		f.Findings = append(f.Findings, Finding{Kind: FindModel, Count: u.sessions, Text: text, Cites: u.examples})
	}
}

// firstPrompt is the session's first prompt and its seq.
func (s *session) firstPrompt() (string, int64) {
	for _, t := range s.turns {
		if isPrompt(t) {
			return t.Prompt, t.FirstSeq
		}
	}
	return "", 0
}

// costly finds sessions that cost several times the median session.
func (h *history) costly(f *Facts) {
	var costs []float64
	var costed []*session
	for _, s := range h.sessions {
		if s.CostUSD > 0 {
			costs = append(costs, s.CostUSD)
			costed = append(costed, s)
		}
	}
	if len(costs) < costlyMinSessions {
		return
	}
	sort.Float64s(costs)
	median := costs[len(costs)/2]
	if len(costs)%2 == 0 {
		median = (costs[len(costs)/2-1] + costs[len(costs)/2]) / 2
	}
	sort.SliceStable(costed, func(i, j int) bool { return costed[i].CostUSD > costed[j].CostUSD })
	for _, s := range costed[:min(len(costed), costlyShown)] {
		if s.CostUSD < costlyFactor*median {
			break
		}
		_, seq := s.firstPrompt()
		f.Findings = append(f.Findings, Finding{Kind: FindCostly, Count: 1,
			Text: fmt.Sprintf("%s cost $%.2f over %s, %.1f× the median session ($%.2f)", s.title(), s.CostUSD,
				display.Plural(s.Turns, "turn"), s.CostUSD/median, median),
			Cites: []Cite{s.cite(max(seq, 1))}})
	}
}
