package cli

import (
	"context"
	"fmt"

	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// indexFeed builds a store's search index in the same pass as an import
// (search.Feed): the rows each import transaction stored are indexed on a
// goroutine of their own while the next ones are read and stored. The
// index is opened when the import first stores events, so an import with
// nothing new costs no more than before.
type indexFeed struct {
	ctx    context.Context
	env    *Env
	st     *store.Store
	x      *search.Index
	feed   *search.Feed
	failed bool // the index could not be opened (said once)
}

// startIndexFeed returns the feed of st's index; nil when off.
func startIndexFeed(ctx context.Context, env *Env, st *store.Store, off bool) *indexFeed {
	if off {
		return nil
	}
	return &indexFeed{ctx: ctx, env: env, st: st}
}

// add hands the rows of one import transaction to the index, opening it
// first; an index that cannot be opened is said on stderr, and the import
// goes on (search brings the index up to date later).
func (f *indexFeed) add(results []store.NativeResult) {
	created := map[int64]string{}
	var rows []store.ScannedEvent
	for _, r := range results {
		created[r.SessionID] = r.SessionCreated
		rows = append(rows, r.Rows...)
	}
	if len(rows) == 0 || f.failed {
		return // only records moved (a touched file): nothing to index
	}
	if f.feed == nil {
		x, err := search.Open(f.ctx, f.st)
		if err != nil {
			fmt.Fprintf(f.env.Stderr, "search index not updated: %v\n", err)
			f.failed = true
			return
		}
		f.x, f.feed = x, x.NewFeed(f.ctx)
	}
	f.feed.Add(created, rows)
}

// close finishes the index (indexing what the feed did not) and closes it,
// saying what it did when verbose; a failure is said on stderr, as the
// import itself is complete.
func (f *indexFeed) close(env *Env, verbose bool) {
	if f.feed == nil {
		return
	}
	s, err := f.feed.Close(nil)
	if cerr := f.x.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("close search index: %w", cerr)
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "search index not updated: %v\n", err)
		return
	}
	if verbose && s.Indexed > 0 {
		fmt.Fprintf(env.Stdout, "Search index: %d texts indexed (%.1f MB).\n", s.Indexed, float64(s.TextBytes)/1e6)
	}
}
