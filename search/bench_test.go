package search

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/genstore"
	"github.com/lazuli-app/lazuli/store"
)

var benchEvents = flag.Int("search.events", 20_000,
	"events of the generated store the search benchmarks use (internal/scale measures 1,000,000)")

var benchQueryList = flag.String("search.queries", "",
	"queries for BenchmarkSearch, separated by commas, instead of benchQueries")

var benchStorePath = flag.String("search.store", "",
	"an existing store for the search benchmarks instead of a generated one (opened read-only)")

// benchQueries are the searches BenchmarkSearch times: planted needles,
// common words, three-letter words, paths, identifiers, commands,
// two-word queries, words that occur nowhere, and a phrase.
var benchQueries = []string{
	"ERR_QUOTA_7731", "flamingoDispatcher", "heisenbug", "ENOSPC", "deadlock detected", "segfault",
	"error", "session", "the", "api", "fix", "_test.go", "src/api/", "loadStore", "go test", "FAIL",
	"race condition", "xylophonic", "no-such-identifier-42", `"return the value"`,
}

// benchStore generates the benchmarks' store once per process, in a
// folder removed when the process ends (see TestMain's cache folder).
var benchStore = sync.OnceValues(func() (string, error) {
	if *benchStorePath != "" {
		return *benchStorePath, nil
	}
	dir, err := os.MkdirTemp("", "lazuli-search-bench-")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "sessions.azs")
	opts := genstore.Options{Sessions: max(1, *benchEvents/500), Events: *benchEvents, Big: *benchEvents / 20, Seed: 1}
	_, err = genstore.Create(context.Background(), path, opts, false)
	return path, err
})

func openBenchStore(b *testing.B) *store.Store {
	b.Helper()
	path, err := benchStore()
	if err != nil {
		b.Fatal(err)
	}
	st, err := store.OpenReadOnly(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// BenchmarkIndexBuild builds the index of the generated store from nothing
// and reports events and megabytes of text indexed per second, and the
// index's size beside the store's.
func BenchmarkIndexBuild(b *testing.B) {
	st := openBenchStore(b)
	ctx := context.Background()
	var s Stats
	var elapsed time.Duration
	var size int64
	for b.Loop() {
		b.StopTimer()
		b.Setenv(store.CacheDirEnv, b.TempDir())
		x, err := Open(ctx, st)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if s, err = x.Update(ctx, nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		elapsed += s.Elapsed
		size = indexFileSize(x.Path())
		x.Close()
		b.StartTimer()
	}
	secs := elapsed.Seconds() / float64(b.N)
	fi, err := os.Stat(st.Path())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(s.TextBytes)
	b.ReportMetric(float64(s.Events)/secs, "events/s")
	b.ReportMetric(float64(s.TextBytes)/1e6/secs, "text-MB/s")
	b.ReportMetric(float64(size)/1e6, "index-MB")
	b.ReportMetric(float64(size)/float64(fi.Size()), "index/store")
}

func indexFileSize(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// BenchmarkSearch runs every query of benchQueries once per iteration on
// the built index, as the window's Ctrl+K panel does (the default limit,
// TypingBudget), and reports the latency percentiles; complete does the
// same without a budget, as lazuli search does; scan does the same
// without the index (Scan). AZUREAL's way is measured beside Lazuli's in
// internal/scale's BenchmarkSearch.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	run := func(b *testing.B, search func(q string) error) {
		var lat []time.Duration
		queries := benchQueries
		if *benchQueryList != "" {
			queries = strings.Split(*benchQueryList, ",")
		}
		for b.Loop() {
			for _, q := range queries {
				start := time.Now()
				if err := search(q); err != nil {
					b.Fatalf("%q: %v", q, err)
				}
				lat = append(lat, time.Since(start))
			}
		}
		slices.Sort(lat)
		pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / 1e6 }
		b.ReportMetric(pct(0.5), "p50-ms")
		b.ReportMetric(pct(0.95), "p95-ms")
		b.ReportMetric(pct(1), "max-ms")
	}
	// One index for index and complete, built before them.
	b.Setenv(store.CacheDirEnv, b.TempDir())
	x, err := Open(ctx, openBenchStore(b))
	if err != nil {
		b.Fatal(err)
	}
	defer x.Close()
	if _, err := x.Update(ctx, nil); err != nil {
		b.Fatal(err)
	}
	b.Run("index", func(b *testing.B) {
		run(b, func(q string) error { _, err := x.Search(ctx, q, Options{Budget: TypingBudget}); return err })
	})
	b.Run("complete", func(b *testing.B) {
		run(b, func(q string) error { _, err := x.Search(ctx, q, Options{}); return err })
	})
	b.Run("scan", func(b *testing.B) {
		st := openBenchStore(b)
		run(b, func(q string) error { _, err := Scan(ctx, st, q, Options{}); return err })
	})
}

// BenchmarkIndexOpen times Open on an index that is whole, with the damage
// checks it runs (damage.go): on a probe-sized index of 200 events, every
// row read back and PRAGMA quick_check; on the generated store's index,
// larger than quickCheckLimit, the sampled read-back alone.
func BenchmarkIndexOpen(b *testing.B) {
	ctx := context.Background()
	b.Run("200-events", func(b *testing.B) {
		st := mustOpenStore(b, testStorePath(b))
		var evs []codec.Event
		for i := range 200 {
			evs = append(evs, codec.AssistantText("an error number "+strings.Repeat("lorem ipsum ", 1+i%9)))
		}
		mustSession(b, st, "s", evs...)
		benchOpen(ctx, b, st)
	})
	b.Run("generated", func(b *testing.B) { benchOpen(ctx, b, openBenchStore(b)) })
}

func benchOpen(ctx context.Context, b *testing.B, st *store.Store) {
	b.Setenv(store.CacheDirEnv, b.TempDir())
	x, err := Open(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := x.Update(ctx, nil); err != nil {
		b.Fatal(err)
	}
	x.Close()
	fi, err := os.Stat(x.Path())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		x, err := Open(ctx, st)
		if err != nil {
			b.Fatal(err)
		}
		x.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/open")
	b.ReportMetric(float64(fi.Size())/(1<<20), "index-MiB")
}
