package scale

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// searchLimit is how many hits a search asks for: AZUREAL shows the first
// 100.
const searchLimit = 100

// scaleQueries are the searches measured: needles the generator planted
// once (internal/genstore.Needles) or now and then, words and names that
// are everywhere, paths, command output, short and multi-word queries,
// and words that occur nowhere.
var scaleQueries = []struct{ text, class string }{
	{"ERR_QUOTA_7731", "rare"}, {"zephyrine-cascade", "rare"}, {"flamingoDispatcher", "rare"},
	{"0x5eedcafe", "rare"}, {"TICKET-48213", "rare"},
	{"heisenbug", "uncommon"}, {"kaleidoscope", "uncommon"}, {"ENOSPC", "uncommon"},
	{"deadlock detected", "uncommon"}, {"segfault", "uncommon"}, {"quokka", "uncommon"},
	{"CVE-2026-31337", "uncommon"},
	{"xylophonic", "absent"}, {"no-such-identifier-42", "absent"},
	{"error", "common"}, {"session", "common"}, {"timeout", "common"}, {"cache", "common"}, {"the", "common"},
	{"api", "3 chars"}, {"sql", "3 chars"}, {"tmp", "3 chars"}, {"fix", "3 chars"},
	{"_test.go", "path"}, {"src/api/", "path"}, {"loadStore", "identifier"},
	{"go test", "command"}, {"FAIL", "output"}, {"npm", "command"},
	{"race condition", "words"}, {"flaky test", "words"}, {`"return the value"`, "phrase"},
}

// sharedCache is one cache folder for every benchmark of this process that
// needs a built search index, so the index is built once: $LAZULI_SCALE_CACHE
// when set (scripts/bench-scale.sh shares it between its go test runs),
// else a folder removed when the process ends.
var sharedCache = sync.OnceValues(func() (string, error) {
	if d := os.Getenv("LAZULI_SCALE_CACHE"); d != "" {
		return d, os.MkdirAll(d, 0o700)
	}
	return os.MkdirTemp("", "lazuli-scale-cache-")
})

// openIndexed opens the store and its search index in the shared cache
// folder, and brings the index up to date (a full build the first time).
func openIndexed(b *testing.B, path string) (*store.Store, *search.Index) {
	b.Helper()
	dir, err := sharedCache()
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv(store.CacheDirEnv, dir)
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	x, err := search.Open(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	if _, err := x.Update(ctx, nil); err != nil {
		b.Fatal(err)
	}
	return st, x
}

// BenchmarkSearch runs every query of scaleQueries once per iteration and
// reports the latency percentiles over all of them:
//
//   - lazuli: Index.Search with the index built (limit 100). A result the
//     index says may be incomplete (Result.Partial: a phrase of words that
//     are everywhere, checked against the newest candidates only) is
//     marked "+" in the log;
//   - azureal: the baseline, AZUREAL's search_events (SearchAZUREAL): every
//     prompt and reply read, then decompressed one by one with a new zstd
//     decoder, lower-cased and substring-matched until 100 hits. A query of
//     several words is one substring there (Lazuli wants every word
//     somewhere), and a phrase loses its quotes;
//   - azureal-parallel: the same method on Lazuli's store reader
//     (SearchAZUREALParallel: batched reads, parallel decoding, every hit).
func BenchmarkSearch(b *testing.B) {
	path := storePath(b)
	ctx := context.Background()
	// query returns the hits of one search and whether it says that it may
	// have missed some (Result.Partial).
	run := func(b *testing.B, query func(q string) (int, bool)) {
		var all samples
		per := make([]samples, len(scaleQueries))
		hits := make([]int, len(scaleQueries))
		partial := make([]bool, len(scaleQueries))
		for b.Loop() {
			for i, q := range scaleQueries {
				start := time.Now()
				hits[i], partial[i] = query(q.text)
				d := time.Since(start)
				all, per[i] = append(all, d), append(per[i], d)
			}
		}
		b.ReportMetric(ms(all.quantile(0.5)), "p50-ms")
		b.ReportMetric(ms(all.quantile(0.95)), "p95-ms")
		b.ReportMetric(ms(all.quantile(1)), "max-ms")
		b.ReportMetric(float64(len(scaleQueries)), "queries")
		logQueries(b, per, hits, partial)
	}
	b.Run("lazuli", func(b *testing.B) {
		_, x := openIndexed(b, path)
		run(b, func(q string) (int, bool) {
			res, err := x.Search(ctx, q, search.Options{Limit: searchLimit, Budget: search.TypingBudget})
			if err != nil {
				b.Fatalf("Search(%q): %v", q, err)
			}
			return len(res.Hits), res.Partial
		})
	})
	b.Run("azureal", func(b *testing.B) {
		db, err := OpenBaseline(path)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		run(b, func(q string) (int, bool) {
			n, err := SearchAZUREAL(ctx, db, unquote(q), searchLimit)
			if err != nil {
				b.Fatalf("SearchAZUREAL(%q): %v", q, err)
			}
			return n, false
		})
	})
	b.Run("azureal-parallel", func(b *testing.B) {
		st, err := store.OpenReadOnly(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		run(b, func(q string) (int, bool) {
			m, err := SearchAZUREALParallel(ctx, st, unquote(q))
			if err != nil {
				b.Fatalf("SearchAZUREALParallel(%q): %v", q, err)
			}
			return len(m), false
		})
	})
}

// unquote drops the quotes of a phrase query: AZUREAL has no phrases, its
// query is always one substring.
func unquote(q string) string {
	if len(q) >= 2 && q[0] == '"' && q[len(q)-1] == '"' {
		return q[1 : len(q)-1]
	}
	return q
}

// logQueries logs each query's median time and hits, several to a line
// (a benchmark's log is cut after ten lines); a "+" marks a partial result.
func logQueries(b *testing.B, per []samples, hits []int, partial []bool) {
	var line strings.Builder
	for i, q := range scaleQueries {
		mark := ""
		if partial[i] {
			mark = "+"
		}
		fmt.Fprintf(&line, "  %s %.1fms/%d%s", q.text, ms(per[i].quantile(0.5)), hits[i], mark)
		if i%8 == 7 || i == len(scaleQueries)-1 {
			b.Log("query ms/hits:" + line.String())
			line.Reset()
		}
	}
}

// BenchmarkIndexBuild builds the search index of the store from nothing,
// in a new cache folder each time, and reports the rate and the index size.
// When $LAZULI_SCALE_CACHE names a folder that holds no index yet, the first
// build goes there, so that the benchmarks run after it find it built.
func BenchmarkIndexBuild(b *testing.B) {
	path := storePath(b)
	ctx := context.Background()
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	var stats search.Stats
	var size int64
	shared := os.Getenv("LAZULI_SCALE_CACHE")
	if _, err := os.Stat(filepath.Join(shared, "index")); shared == "" || err == nil {
		shared = "" // none, or it already holds an index
	}
	for b.Loop() {
		dir := b.TempDir()
		if shared != "" {
			dir, shared = shared, ""
		}
		b.Setenv(store.CacheDirEnv, dir)
		st, err := store.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		x, err := search.Open(ctx, st)
		if err != nil {
			b.Fatal(err)
		}
		stats, err = x.Update(ctx, nil)
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		if err := x.Close(); err != nil {
			b.Fatal(err)
		}
		size = fileSizes(x.Path())
		st.Close()
	}
	secs := total.Seconds() / float64(b.N)
	b.ReportMetric(secs, "s/build")
	b.ReportMetric(float64(stats.Events)/secs, "events/s")
	b.ReportMetric(float64(fi.Size())/(1<<20)/secs, "store-MiB/s")
	b.ReportMetric(float64(stats.TextBytes)/(1<<20), "text-MiB")
	b.ReportMetric(float64(size)/(1<<20), "index-MiB")
	b.ReportMetric(float64(stats.Indexed), "rows")
}

// fileSizes is the size of an SQLite file with its -wal and -shm files.
func fileSizes(path string) int64 {
	var n int64
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if fi, err := os.Stat(p); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// BenchmarkMemory starts a process that opens the store, lists the
// sessions, loads the biggest one, opens the search index and runs every
// query, then reports its resident memory (VmRSS) and peak (VmHWM) with
// all of that still open, and the Go heap. window loads the session as
// the window does (its newest 2,000 events); whole loads all of it. With
// -scale.heapprofile DIR it also writes the child's heap profile to
// DIR/heap-MODE-N.pprof.
func BenchmarkMemory(b *testing.B) {
	path := storePath(b)
	openIndexed(b, path) // the child finds the index built
	if *heapDir != "" {
		if err := os.MkdirAll(*heapDir, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("window", func(b *testing.B) { benchMemory(b, path, "memory") })
	b.Run("whole", func(b *testing.B) { benchMemory(b, path, "memory-whole") })
}

func benchMemory(b *testing.B, path, mode string) {
	var r childReport
	i := 0
	for b.Loop() {
		var env []string
		if *heapDir != "" {
			i++
			env = append(env, heapEnv+"="+filepath.Join(*heapDir, "heap-"+mode+"-"+strconv.Itoa(i)+".pprof"))
		}
		r = startChild(b, mode, path, env...)
	}
	b.ReportMetric(float64(r.RSSKB)/1024, "rss-MiB")
	b.ReportMetric(float64(r.HWMKB)/1024, "peak-rss-MiB")
	b.ReportMetric(float64(r.HeapInuse)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(r.GoSys)/(1<<20), "go-sys-MiB")
	b.Logf("child: %d sessions listed in %.0f ms, %d events loaded in %.0f ms, %d queries (%d hits) in %.0f ms; %d GCs, GOMAXPROCS %d",
		r.Sessions, r.ListMS, r.Events, r.LoadMS, r.Queries, r.Hits, r.SearchMS, r.NumGC, r.GoMaxProcs)
}
