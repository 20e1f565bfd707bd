package scale

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/store"
)

// BenchmarkInsightBuild builds the insight index of the generated store
// from nothing (BENCHMARKS.md: at most 20 % of the search index build).
func BenchmarkInsightBuild(b *testing.B) {
	path := storePath(b)
	ctx := context.Background()
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	var stats insight.UpdateStats
	var size int64
	for b.Loop() {
		b.Setenv(store.CacheDirEnv, b.TempDir())
		st, err := store.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		x, err := insight.Open(ctx, st)
		if err != nil {
			b.Fatal(err)
		}
		if stats, err = x.Update(ctx); err != nil {
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
	b.ReportMetric(float64(stats.Usage), "usage-rows")
	b.ReportMetric(float64(size)/(1<<20), "index-MiB")
}

// insightIndex builds (once per benchmark) the insight index of the
// generated store and returns it open.
func insightIndex(b *testing.B) (*insight.Index, string) {
	b.Helper()
	path := storePath(b)
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	x, err := insight.Open(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { x.Close() })
	if _, err := x.Update(ctx); err != nil {
		b.Fatal(err)
	}
	return x, path
}

// openInsight opens the store read-only and its insight index, brought up to
// date, as a command does; the caller closes both.
func openInsight(b *testing.B, path string) (*store.Store, *insight.Index) {
	b.Helper()
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	x, err := insight.Open(ctx, st)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := x.Update(ctx); err != nil {
		b.Fatal(err)
	}
	return st, x
}

// BenchmarkInsightStats: `lazuli stats --by day` over the generated store,
// its index built (target < 200 ms), as the command runs it: open the
// store and the index, bring the index up to date (nothing new), sum.
func BenchmarkInsightStats(b *testing.B) {
	_, path := insightIndex(b)
	ctx := context.Background()
	var rows int
	for b.Loop() {
		st, x := openInsight(b, path)
		t, err := x.Usage().Stats(ctx, insight.StatsQuery{By: insight.ByDay})
		if err != nil {
			b.Fatal(err)
		}
		rows = len(t)
		x.Close()
		st.Close()
	}
	b.ReportMetric(float64(rows), "days")
}

// BenchmarkInsightSQL runs aggregate queries through `lazuli sql`'s
// read-only surface over the generated store's 1,000,000 events (target
// < 500 ms each): from the index, and the store's events by kind without
// decoding them.
func BenchmarkInsightSQL(b *testing.B) {
	x, path := insightIndex(b)
	ctx := context.Background()
	src := []insight.SQLSource{{Store: path, Index: x.Path()}}
	for _, q := range []struct{ name, sql string }{
		{"turns", "SELECT COUNT(*), SUM(tool_calls), SUM(tool_errors), AVG(last_seq - first_seq) FROM turns"},
		{"tools", "SELECT name, SUM(calls), SUM(errors) FROM tools GROUP BY name ORDER BY 2 DESC"},
		{"usage-by-model", "SELECT model, SUM(input_tokens + output_tokens), SUM(cost_usd) FROM usage GROUP BY model"},
		{"events-by-kind", "SELECT kind, COUNT(*), SUM(char_len) FROM events GROUP BY kind"},
	} {
		b.Run(q.name, func(b *testing.B) {
			for b.Loop() {
				res, err := insight.RunSQL(ctx, src, q.sql, 1000, time.Minute)
				if err != nil || len(res.Rows) == 0 {
					b.Fatalf("%s: %v", q.sql, err)
				}
			}
		})
	}
}
