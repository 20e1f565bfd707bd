package cli

import (
	"context"
	"fmt"

	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// indexFeed builds a store's search index in the same pass as an import
// (search.Feed): the rows each import transaction stored are indexed on a
// goroutine of their own while the next ones are read and stored.
type indexFeed struct {
	x    *search.Index
	feed *search.Feed
}

// startIndexFeed opens st's index and starts feeding it; nil when off or
// when the index cannot be opened (said on stderr: the import goes on and
// search brings the index up to date later).
func startIndexFeed(ctx context.Context, env *Env, st *store.Store, off bool) *indexFeed {
	if off {
		return nil
	}
	x, err := search.Open(ctx, st)
	if err != nil {
		fmt.Fprintf(env.Stderr, "search index not updated: %v\n", err)
		return nil
	}
	return &indexFeed{x: x, feed: x.NewFeed(ctx)}
}

// add hands the rows of one import transaction to the index.
func (f *indexFeed) add(results []store.NativeResult) {
	created := map[int64]string{}
	var rows []store.ScannedEvent
	for _, r := range results {
		created[r.SessionID] = r.SessionCreated
		rows = append(rows, r.Rows...)
	}
	f.feed.Add(created, rows)
}

// close finishes the index (indexing what the feed did not) and closes it,
// saying what it did when verbose; a failure is said on stderr, as the
// import itself is complete.
func (f *indexFeed) close(env *Env, verbose bool) {
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
