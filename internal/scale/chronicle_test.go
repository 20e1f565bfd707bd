package scale

import (
	"context"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/chronicle"
	"github.com/lazuli-app/lazuli/internal/cputime"
)

// BenchmarkChronicle writes each chronicle report over all the generated
// store's history with the built-in writer (target < 2 s each), its
// insight index built, as `lazuli chronicle REPORT --since all --agent
// builtin` runs it: open the store and the index, bring the index up to
// date (nothing new), gather the facts, write, check every citation.
// cpu-s/report is the CPU time it used (mostly one core): the wall time
// on a busy machine is more.
func BenchmarkChronicle(b *testing.B) {
	_, path := insightIndex(b)
	ctx := context.Background()
	for _, r := range chronicle.Reports {
		b.Run(string(r), func(b *testing.B) {
			var res chronicle.Result
			var facts *chronicle.Facts
			var total, cpu time.Duration
			for b.Loop() {
				start, cpu0 := time.Now(), cputime.Process()
				st, x := openInsight(b, path)
				src := []chronicle.Source{{Store: st, Index: x}}
				var err error
				facts, err = chronicle.Gather(ctx, src, r, chronicle.Options{Window: chronicle.Window{Label: "all"}, ProjectDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				if res, err = chronicle.Write(ctx, src, facts, chronicle.AgentBuiltin, nil); err != nil {
					b.Fatal(err)
				}
				total += time.Since(start)
				cpu += cputime.Process() - cpu0
				x.Close()
				st.Close()
			}
			if len(res.Unresolved) > 0 {
				b.Fatalf("unresolved citations: %v", res.Unresolved)
			}
			b.ReportMetric(total.Seconds()/float64(b.N), "s/report")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/report")
			b.ReportMetric(float64(facts.Sessions), "sessions")
			b.ReportMetric(float64(len(facts.Findings)), "findings")
			b.ReportMetric(float64(len(res.Sessions)), "sessions-cited")
			b.ReportMetric(float64(len(res.Markdown))/1024, "report-KiB")
		})
	}
}
