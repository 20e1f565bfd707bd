package chronicle

import (
	"context"
	"sort"

	"github.com/lazuli-app/lazuli/insight"
)

// What the standup lists of one session at most.
const (
	promptsShown = 5
	filesShown   = 10
	refsShown    = 10
)

// standup gathers, per worktree, what each session of the window set out to
// do, changed and mentioned, how it ended, how long it ran and its cost.
func (h *history) standup(ctx context.Context, f *Facts) error {
	changes := map[sessionKey][]insight.Change{}
	mentions := map[sessionKey][]insight.Mention{}
	for i, src := range h.sources {
		cs, err := src.Index.Files().Changes(ctx)
		if err != nil {
			return err
		}
		for _, c := range cs {
			changes[sessionKey{i, c.Session}] = append(changes[sessionKey{i, c.Session}], c)
		}
		ms, err := src.Index.Refs().Mentions(ctx)
		if err != nil {
			return err
		}
		for _, m := range ms {
			mentions[sessionKey{i, m.Session}] = append(mentions[sessionKey{i, m.Session}], m)
		}
	}
	byWT := map[string]*WorktreeWork{}
	var order []string
	for _, s := range h.sessions {
		k := sessionKey{s.store, s.ID}
		w, ok := h.sessionWork(s, changes[k], mentions[k])
		if !ok {
			continue
		}
		name := s.Worktree
		if name == "" {
			name = "(no worktree)"
		}
		if len(h.sources) > 1 {
			name += " " + f.Stores[s.store].Cite
		}
		if byWT[name] == nil {
			byWT[name] = &WorktreeWork{Worktree: name}
			order = append(order, name)
		}
		byWT[name].Sessions = append(byWT[name].Sessions, w)
	}
	sort.Strings(order)
	for _, name := range order {
		f.Worktrees = append(f.Worktrees, *byWT[name])
	}
	return nil
}

// sessionWork is one session's part of the standup; false when none of its
// turns fall in the window.
func (h *history) sessionWork(s *session, changes []insight.Change, mentions []insight.Mention) (SessionWork, bool) {
	w := SessionWork{Cite: s.cite(0), Name: s.Name, Created: s.Created, Outcome: "no result",
		CostUSD: s.CostUSD, CostEstimated: s.CostEstimated}
	var last *insight.TurnRow
	lastIdx := -1
	var ms int64
	for i := range s.turns {
		t := &s.turns[i]
		if !h.inWindow(s, *t) || !isPrompt(*t) {
			continue
		}
		if len(w.Prompts) < promptsShown {
			w.Prompts = append(w.Prompts, Prompt{Text: oneLine(t.Prompt, 200), Cite: s.cite(t.FirstSeq)})
		} else {
			w.MorePrompts++
		}
		if t.DurationMS != nil {
			ms += *t.DurationMS
		}
		last, lastIdx = t, i
	}
	if last == nil {
		return w, false
	}
	w.DurationMS = ms
	w.OutcomeCite = s.cite(last.LastSeq)
	switch {
	case interrupted(s.turns, lastIdx):
		w.Outcome = "interrupted"
	case last.Success != nil && *last.Success:
		w.Outcome = "✓"
	case last.Success != nil:
		w.Outcome = "✗"
	}
	for _, c := range changes {
		if !s.own(c.LastSeq) {
			continue // a fork's copy of its parent's change
		}
		if len(w.Files) == filesShown {
			w.MoreFiles++
			continue
		}
		w.Files = append(w.Files, FileChange{Path: c.Path, Action: c.Action, Count: c.Count, Cite: s.cite(c.LastSeq)})
	}
	for _, m := range mentions {
		if !s.own(m.FirstSeq) {
			continue
		}
		if len(w.Refs) == refsShown {
			w.MoreRefs++
			continue
		}
		w.Refs = append(w.Refs, RefFact{Kind: m.Kind, Value: m.Value, URL: m.URL, Cite: s.cite(m.FirstSeq)})
	}
	return w, true
}
