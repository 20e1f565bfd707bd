package cli

import (
	"context"
	"fmt"

	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// indexFeed builds a store's search index in the same pass as an import
// (search.ImportFeed): the rows each import transaction stored are indexed
// on a goroutine of their own while the next ones are read and stored. The
// index is opened when the import first stores events, so an import with
// nothing new costs no more than before.
type indexFeed struct {
	*search.ImportFeed
}

// startIndexFeed returns the feed of st's index; nil when off.
func startIndexFeed(ctx context.Context, st *store.Store, off bool) *indexFeed {
	if off {
		return nil
	}
	return &indexFeed{search.NewImportFeed(ctx, func() (*search.Index, error) { return search.Open(ctx, st) })}
}

// close finishes the index (indexing what the feed did not) and closes it,
// saying what it did when verbose; a failure (an index that could not be
// opened, too) is said on stderr, as the import itself is complete and
// search brings the index up to date later.
func (f *indexFeed) close(env *Env, verbose bool) {
	x, s, err := f.Close(nil)
	if x != nil {
		if cerr := x.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close search index: %w", cerr)
		}
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "search index not updated: %v\n", err)
		return
	}
	if verbose && s.Indexed > 0 {
		fmt.Fprintf(env.Stdout, "Search index: %d texts indexed (%.1f MB).\n", s.Indexed, float64(s.TextBytes)/1e6)
	}
}
