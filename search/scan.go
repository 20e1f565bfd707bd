package search

import (
	"context"
	"errors"
	"slices"

	"github.com/lazuli-app/lazuli/store"
)

// ShortQueryEvents is how many of the newest events a query is checked
// against when all its words have fewer than three characters: the index
// holds sequences of three characters, so it cannot look such words up.
const ShortQueryEvents = 50_000

// shortQueryNote explains a search cut short by ShortQueryEvents.
const shortQueryNote = "Words shorter than three characters are looked for in the newest 50,000 events only: type three or more to search everything."

// errStop ends a scan early.
var errStop = errors.New("enough hits")

// Scan searches st without an index, with the same query rules and
// results as Index.Search: it decodes the events newest first and checks
// each one until it knows the page opt asks for. It is what to use when
// the index cannot be (Open fails with ErrUnavailable); it reads the
// whole store when there are few hits, which takes seconds on a large
// one. opt.Budget does not apply: a scan is the slow path already.
func Scan(ctx context.Context, st *store.Store, query string, opt Options) (Result, error) {
	q, err := parseQuery(query)
	if err != nil {
		return Result{}, err
	}
	return scan(ctx, st, q, opt, 0)
}

// scan checks the events of st newest first, at most maxEvents of them
// (0: all), merging in the matching compaction summaries.
func scan(ctx context.Context, st *store.Store, q *query, opt Options, maxEvents int) (Result, error) {
	hb, err := newHitBuilder(ctx, st, q)
	if err != nil {
		return Result{}, err
	}
	comps, err := matchingCompactions(ctx, st, hb)
	if err != nil {
		return Result{}, err
	}
	thoughts, err := matchingThoughts(ctx, st, hb)
	if err != nil {
		return Result{}, err
	}
	c := newCollector(opt, thoughts)
	var (
		seen    int
		stopped bool // at maxEvents
	)
	err = st.Scan().Events(ctx, store.ScanOptions{Desc: true}, func(b []store.ScannedEvent) error {
		if err := st.FullText().Attach(ctx, b); err != nil {
			return err
		}
		for i := range b {
			e := &b[i]
			for len(comps) > 0 && comps[0].order >= e.ID {
				c.add(comps[0])
				comps = comps[1:]
			}
			if c.full() {
				return errStop
			}
			if h, ok := hb.event(e); ok {
				if c.wants(e.SessionID, e.ID) {
					hb.eventSnippet(&h, e)
				}
				c.add(h)
			}
			seen++
			switch {
			case c.full():
				return errStop
			case maxEvents > 0 && seen >= maxEvents:
				stopped = true
				return errStop
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return Result{}, err
	}
	full := c.full()
	if !stopped && !full {
		for _, h := range comps {
			c.add(h)
		}
	}
	if err := hb.err(); err != nil {
		return Result{}, err
	}
	res := c.result(stopped || full, hb.thoughtSnippet)
	if stopped && !res.More {
		res.Partial, res.Note = true, shortQueryNote
	}
	return res, nil
}

// matchingCompactions returns the hits among the store's compaction
// summaries, ordered by where they sit among the events, newest first.
func matchingCompactions(ctx context.Context, st *store.Store, hb *hitBuilder) ([]Hit, error) {
	var hits []Hit
	err := st.Scan().Compactions(ctx, 0, func(b []store.Compaction) error {
		for i := range b {
			h, ok := hb.compaction(&b[i], 0) // with its snippet: there are few
			if !ok {
				continue
			}
			ord, err := st.Scan().EventIDAt(ctx, b[i].SessionID, b[i].AfterSeq)
			if err != nil {
				return err
			}
			h.order = ord
			hits = append(hits, h)
		}
		return nil
	})
	slices.SortStableFunc(hits, func(a, b Hit) int { return cmpDesc(a.order, b.order) })
	return hits, err
}

func cmpDesc(a, b int64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
