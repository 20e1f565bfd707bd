package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/internal/cputime"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// scaleStoreEnv names the generated store, as for internal/scale's
// benchmarks (scale.StoreEnv, which lives in its tests).
const scaleStoreEnv = "LAZULI_SCALE_STORE"

// noInsights is the Insights window's actions when the benchmark itself
// computes and shows the figures.
type noInsights struct{}

func (noInsights) LoadInsights(views.InsightScope, int) {}
func (noInsights) LoadFileDiffs(views.InsightFile)      {}

// BenchmarkInsightsWindow opens the Insights window over the generated
// 1 GB store (internal/genstore's default: 2,000 sessions, 1,000,000
// events; LAZULI_SCALE_STORE names it, as for internal/scale), its insight
// index built first (not measured), read-only.
//
//   - open-30d, open-all: what opening the window costs before its figures
//     show (BENCHMARKS.md: < 300 ms): build the view in a window, compute the
//     figures of the project over 30 days / all time from the index (which
//     is checked to be up to date, as the window does), show them;
//   - redraw-all: a scope or range change once the figures are computed
//     (< 100 ms): SetData with the all-time figures of the store.
//
// Painting is the GL driver's and is not measured here.
func BenchmarkInsightsWindow(b *testing.B) {
	path := os.Getenv(scaleStoreEnv)
	if path == "" {
		b.Skip("no store: set " + scaleStoreEnv + " (scripts/bench-scale.sh -generate-only prints one)")
	}
	cache := os.Getenv("LAZULI_SCALE_CACHE") // keep the index between runs, as scripts/bench-scale.sh does
	if cache == "" {
		cache = b.TempDir()
	}
	b.Setenv(store.CacheDirEnv, cache)
	fa := test.NewTempApp(b)
	ctx := context.Background()
	wts := []Worktree{{Dir: filepath.Dir(path), Branch: "main", StorePath: path}}
	pw := newWindowParts(&gui{ctx: ctx, fa: fa}, wts, true) // the generated store is only read
	pw.win = test.NewTempWindow(b, pw.mv.Content())
	pw.search = newSearcher(pw)
	b.Cleanup(func() {
		pw.close()
		pw.search.closeAll()
	})
	start := time.Now()
	if len(pw.search.insightIndexes(ctx, nil)) != 1 {
		b.Fatal("no insight index")
	}
	b.Logf("insight index built in %s", time.Since(start).Round(time.Millisecond))
	scopes := []views.InsightScopeOption{{Label: "Project"}}
	open := func(b *testing.B, days int) {
		var files, dayCount int
		var compute, show time.Duration
		cpu0 := cpuTime()
		for b.Loop() {
			v := views.NewInsightsView(noInsights{}, scopes)
			w := test.NewWindow(v.Content())
			w.Resize(fyne.NewSize(1100, 760))
			t0 := time.Now()
			d, err := computeInsights(ctx, pw, views.InsightScope{}, days, time.Now())
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			v.SetData(d)
			compute, show = compute+t1.Sub(t0), show+time.Since(t1)
			files, dayCount = len(d.Files), len(d.Days)
			w.Close()
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
		b.ReportMetric(ms(b.Elapsed()), "ms/open")
		b.ReportMetric(ms(cpuTime()-cpu0), "cpu-ms/open")
		b.ReportMetric(ms(compute), "ms-compute/op")
		b.ReportMetric(ms(show), "ms-show/op")
		b.ReportMetric(float64(files), "file-rows")
		b.ReportMetric(float64(dayCount), "days")
	}
	b.Run("open-30d", func(b *testing.B) { open(b, 30) })
	b.Run("open-all", func(b *testing.B) { open(b, 0) })
	b.Run("redraw-all", func(b *testing.B) {
		d, err := computeInsights(ctx, pw, views.InsightScope{}, 0, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		v := views.NewInsightsView(noInsights{}, scopes)
		w := test.NewWindow(v.Content())
		defer w.Close()
		w.Resize(fyne.NewSize(1100, 760))
		cpu0 := cpuTime()
		for b.Loop() {
			v.SetData(d)
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/redraw")
		b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/redraw")
	})
}

// cpuTime is the CPU time (user and system) the process has used: on a
// machine busy with other work it says what the wall time would be on a
// quiet one (the work measured runs on one goroutine at a time).
func cpuTime() time.Duration { return cputime.Process() }
