package chronicle

import (
	"context"
	"sort"

	"github.com/lazuli-app/lazuli/insight"
)

// promptsShown is how many prompts of a session the standup lists.
const promptsShown = 5

// standup gathers, per worktree, what each session of the window set out to
// do, changed and mentioned, how it ended, how long it ran and its cost.
func (h *history) standup(ctx context.Context, f *Facts) error {
	byWT := map[string]*WorktreeWork{}
	var order []string
	for _, s := range h.sessions {
		w, ok, err := h.sessionWork(ctx, s)
		if err != nil {
			return err
		}
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
func (h *history) sessionWork(ctx context.Context, s *session) (SessionWork, bool, error) {
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
		return w, false, nil
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
	src := h.sources[s.store].Index
	files, err := src.Files(ctx, s.ID)
	if err != nil {
		return w, false, err
	}
	for _, fr := range files {
		if fr.Action == insight.ActionRead {
			continue
		}
		w.Files = append(w.Files, FileChange{Path: fr.Path, Action: fr.Action, Count: fr.Count, Cite: s.cite(fr.LastSeq)})
	}
	sort.SliceStable(w.Files, func(i, j int) bool { return w.Files[i].Path < w.Files[j].Path })
	refs, err := src.Refs(ctx, s.ID)
	if err != nil {
		return w, false, err
	}
	for _, r := range refs {
		if r.Kind == insight.RefURL {
			continue // links in passing are not work done
		}
		w.Refs = append(w.Refs, RefFact{Kind: r.Kind, Value: r.Value, URL: r.URL, Cite: s.cite(r.FirstSeq)})
	}
	return w, true, nil
}
