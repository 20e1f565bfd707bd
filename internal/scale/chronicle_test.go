package scale

import (
	"context"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/chronicle"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/store"
)

// BenchmarkChronicle writes each chronicle report over all the generated
// store's history with the built-in writer (target < 2 s each), its
// insight index built, as `lazuli chronicle REPORT --since all --agent
// builtin` runs it: open the store and the index, bring the index up to
// date (nothing new), gather the facts, write, check every citation.
func BenchmarkChronicle(b *testing.B) {
	_, path := insightIndex(b)
	ctx := context.Background()
	for _, r := range chronicle.Reports {
		b.Run(string(r), func(b *testing.B) {
			var res chronicle.Result
			var facts *chronicle.Facts
			var total time.Duration
			for b.Loop() {
				start := time.Now()
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
				src := []chronicle.Source{{Store: st, Index: x}}
				facts, err = chronicle.Gather(ctx, src, r, chronicle.Options{Window: chronicle.Window{Label: "all"}, ProjectDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				if res, err = chronicle.Write(ctx, src, facts, chronicle.AgentBuiltin, nil); err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
				x.Close()
				st.Close()
			}
			if len(res.Unresolved) > 0 {
				b.Fatalf("unresolved citations: %v", res.Unresolved)
			}
			b.ReportMetric(total.Seconds()/float64(b.N), "s/report")
			b.ReportMetric(float64(facts.Sessions), "sessions")
			b.ReportMetric(float64(len(facts.Findings)), "findings")
			b.ReportMetric(float64(len(res.Sessions)), "sessions-cited")
			b.ReportMetric(float64(len(res.Markdown))/1024, "report-KiB")
		})
	}
}
