package search

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/lazuli-app/lazuli/store"
)

// noIndexNote tells the user a store was searched without its index.
const noIndexNote = "The search index is unavailable, so the sessions were read in full: the results are the same, only slower."

// Source is one store to search and its index; a nil Index means the store
// is read without one (see Scan).
type Source struct {
	Store *store.Store
	Index *Index
}

// Stores searches several stores, such as the worktrees of a project, and
// merges their answers: hits stay newest first within each store, and
// between stores the hit of the more recently created session comes
// first; sessions (with opt.Sessions) are ranked together. The page opt
// asks for is of the merged answer: with several stores, each is asked for
// everything before the page end. A store that cannot be searched is
// named in the Note; only when none can be searched is that an error.
// Query errors (ErrEmptyQuery, ErrShortQuery, ErrLongQuery) are returned
// as is.
func Stores(ctx context.Context, sources []Source, query string, opt Options) (Result, error) {
	if _, err := parseQuery(query); err != nil {
		return Result{}, err
	}
	each := opt
	if len(sources) > 1 {
		each.Offset, each.Limit = 0, opt.end()
		if opt.Sessions {
			each.Limit = math.MaxInt32 // ranked across the stores
		}
	}
	results := make([]Result, len(sources))
	errs := make([]error, len(sources))
	var wg sync.WaitGroup
	for i, src := range sources {
		wg.Go(func() {
			if src.Index != nil {
				results[i], errs[i] = src.Index.Search(ctx, query, each)
			} else {
				results[i], errs[i] = Scan(ctx, src.Store, query, each)
			}
		})
	}
	wg.Wait()
	if len(sources) == 1 {
		opt = Options{Limit: math.MaxInt32, Sessions: opt.Sessions} // paged already
	}
	return merge(sources, results, errs, opt)
}

// merge combines the results of the sources and returns the page of them
// opt asks for.
func merge(sources []Source, results []Result, errs []error, opt Options) (Result, error) {
	var out Result
	var notes []string
	addNote := func(n string) {
		if n != "" && !containsString(notes, n) {
			notes = append(notes, n)
		}
	}
	failed := 0
	for i, err := range errs {
		if err != nil {
			if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
				return Result{}, err
			}
			failed++
			addNote(fmt.Sprintf("Could not search %s: %v.", sources[i].Store.Path(), err))
			continue
		}
		if sources[i].Index == nil {
			addNote(noIndexNote)
		}
		out.More = out.More || results[i].More
		out.Partial = out.Partial || results[i].Partial
		addNote(results[i].Note)
	}
	if failed > 0 && failed == len(sources) {
		return Result{}, errors.Join(errs...)
	}
	out.Note = strings.Join(notes, " ")
	if opt.Sessions {
		var all []SessionHit
		for i := range results {
			all = append(all, results[i].Sessions...)
		}
		rankSessions(all)
		var more bool
		out.Sessions, more = pageOf(all, opt)
		out.More = out.More || more
		return out, nil
	}
	heads := make([][]Hit, len(results))
	for i := range results {
		heads[i] = results[i].Hits
	}
	var all []Hit
	for len(all) <= opt.end() {
		best := -1
		for i, h := range heads {
			if len(h) > 0 && (best < 0 || h[0].Time > heads[best][0].Time) {
				best = i
			}
		}
		if best < 0 {
			break
		}
		all = append(all, heads[best][0])
		heads[best] = heads[best][1:]
	}
	var more bool
	out.Hits, more = pageOf(all, opt)
	out.More = out.More || more
	return out, nil
}
