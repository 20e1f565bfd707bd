package search

// Agents' thinking (store.ThinkingTable) is searched beside the index: it
// is not in the lists, whose keys are the store's events and compactions. Each search reads the store's thinking once and checks it
// like an event's text; a hit sits just below the event the thinking came
// before (newest first).

import (
	"context"
	"slices"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// KindThinking is the Kind of a hit in an agent's thinking.
const KindThinking = string(codec.KindThinking)

// matchingThoughts returns the hits among the store's thinking, newest
// first.
func matchingThoughts(ctx context.Context, st *store.Store, hb *hitBuilder) ([]Hit, error) {
	var hits []Hit
	match := func(t store.Thought) bool {
		_, _, ok := hb.q.match(capText(t.Text))
		return ok
	}
	var contains []string // the ASCII terms: SQLite tests them first
	for i, t := range hb.q.terms {
		if hb.q.ascii[i] {
			contains = append(contains, t)
		}
	}
	err := st.Thinking().Scan(ctx, contains, match, func(t store.Thought, order int64) error {
		h, _, ok := hb.hit(t.SessionID, capText(t.Text))
		if !ok {
			return nil
		}
		h.Seq, h.Kind, h.order = t.BeforeSeq, KindThinking, order
		hits = append(hits, h)
		return ctx.Err()
	})
	if err == nil && len(hits) > 0 {
		err = hb.err()
	}
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmpDesc(a.order, b.order) })
	return hits, err
}

// mergeThoughts merges the thinking hits into res, newest first: a thought
// goes below the hits at or above the event it came before. When res has
// more hits than it holds, thoughts below its last hit are left out (hits
// between them were not looked for).
func mergeThoughts(res Result, thoughts []Hit, limit int) Result {
	if len(thoughts) == 0 {
		return res
	}
	if res.More || res.Partial {
		if len(res.Hits) == 0 {
			return res
		}
		floor := res.Hits[len(res.Hits)-1].order
		thoughts = slices.DeleteFunc(slices.Clone(thoughts), func(h Hit) bool { return h.order < floor })
	}
	out := make([]Hit, 0, len(res.Hits)+len(thoughts))
	i := 0
	for _, h := range res.Hits {
		for i < len(thoughts) && thoughts[i].order > h.order {
			out, i = append(out, thoughts[i]), i+1
		}
		out = append(out, h)
	}
	out = append(out, thoughts[i:]...)
	if len(out) > limit {
		out, res.More = out[:limit], true
	}
	res.Hits = out
	return res
}
