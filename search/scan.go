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
// each one until it has limit hits (DefaultLimit when limit ≤ 0). It is
// what to use when the index cannot be (Open fails with ErrUnavailable);
// it reads the whole store when there are few hits, which takes seconds on
// a large one.
func Scan(ctx context.Context, st *store.Store, query string, limit int) (Result, error) {
	q, err := parseQuery(query)
	if err != nil {
		return Result{}, err
	}
	if limit <= 0 {
		limit = DefaultLimit
	}
	return scan(ctx, st, q, limit, 0)
}

// scan checks the events of st newest first, at most maxEvents of them
// (0: all), merging in the matching compaction summaries.
func scan(ctx context.Context, st *store.Store, q *query, limit, maxEvents int) (Result, error) {
	hb, err := newHitBuilder(ctx, st, q)
	if err != nil {
		return Result{}, err
	}
	comps, err := matchingCompactions(ctx, st, hb)
	if err != nil {
		return Result{}, err
	}
	var (
		hits    []Hit
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
				hits, comps = append(hits, comps[0]), comps[1:]
			}
			if h, ok := hb.event(e); ok {
				hits = append(hits, h)
			}
			seen++
			switch {
			case len(hits) > limit:
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
	if !stopped {
		hits = append(hits, comps...)
	}
	res := Result{Hits: hits}
	if len(hits) > limit {
		res.Hits, res.More = hits[:limit], true
	} else if stopped {
		res.Partial, res.Note = true, shortQueryNote
	}
	thoughts, err := matchingThoughts(ctx, st, hb)
	if err == nil {
		err = hb.err()
	}
	if err != nil {
		return Result{}, err
	}
	return mergeThoughts(res, thoughts, limit), nil
}

// matchingCompactions returns the hits among the store's compaction
// summaries, ordered by where they sit among the events, newest first.
func matchingCompactions(ctx context.Context, st *store.Store, hb *hitBuilder) ([]Hit, error) {
	var hits []Hit
	err := st.Scan().Compactions(ctx, 0, func(b []store.Compaction) error {
		for i := range b {
			h, ok := hb.compaction(&b[i], 0)
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
