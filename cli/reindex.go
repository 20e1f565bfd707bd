package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/search"
)

// runReindex is `lazuli reindex`: it drops the search index of each store
// and builds it again, printing what it indexed and how fast.
func runReindex(ctx context.Context, env *Env, args []string) error {
	fs := newFlags("reindex", env)
	var sel storeSelection
	sel.bind(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	stores, err := sel.open(ctx, env)
	if err != nil {
		return err
	}
	defer closeStores(stores)
	for _, st := range stores {
		x, err := search.Open(ctx, st)
		if err != nil {
			return err
		}
		s, err := x.Rebuild(ctx, progressPrinter(env, st.Path(), "reindexing"))
		closeErr := x.Close()
		if err != nil {
			return err
		}
		if closeErr != nil {
			return fmt.Errorf("close search index: %w", closeErr)
		}
		ix, err := insight.Open(ctx, st)
		if err != nil {
			return err
		}
		is, err := ix.Rebuild(ctx)
		closeErr = ix.Close()
		if err != nil {
			return err
		}
		if closeErr != nil {
			return fmt.Errorf("close insight index: %w", closeErr)
		}
		fmt.Fprintf(env.Stdout, "%s: insight index rebuilt: %d events, %d usage rows in %.1f s at %s\n",
			st.Path(), is.Events, is.Usage, is.Elapsed.Seconds(), ix.Path())
		secs := max(s.Elapsed.Seconds(), 1e-6)
		fmt.Fprintf(env.Stdout, "%s: %d events read, %d texts indexed (%d compaction summaries), %.1f MB of text in %.1f s: %.0f events/s, %.1f MB/s; index %.1f MB at %s\n",
			st.Path(), s.Events, s.Indexed, s.Compactions, float64(s.TextBytes)/1e6, s.Elapsed.Seconds(),
			float64(s.Events)/secs, float64(s.TextBytes)/1e6/secs, float64(indexSize(x.Path()))/1e6, x.Path())
	}
	return nil
}

// indexSize is the size of the index file with its write-ahead log.
func indexSize(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}
