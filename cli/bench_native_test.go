package cli

import (
	"context"
	"flag"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/internal/nativetree"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

var nativeCopies = flag.Int("native.copies", 3, "copies of each Claude fixture in BenchmarkNativeImportIndex (Codex: 3/4 of it); 60 is the full ~700 MB workload")

// BenchmarkNativeImportIndex imports a native-history workload built from
// the shared fixtures (nativetree.Workload; -native.copies sizes it) into a
// new store and builds its search index, reporting events/s and MB/s of
// the import, of the index build and of both together. Profile with
// -cpuprofile. scripts/bench-native.sh measures the full workload through
// the lazuli binary.
func BenchmarkNativeImportIndex(b *testing.B) {
	src := fixtures.Dir(b, "transcripts")
	ctx := context.Background()
	home := b.TempDir()
	tree, ws, err := nativetree.Workload(src, home, nativetree.WorkloadOptions{
		ClaudeCopies: *nativeCopies, CodexCopies: max(1, *nativeCopies*3/4)})
	if err != nil {
		b.Fatal(err)
	}
	mb := float64(ws.Bytes) / 1e6
	var importTime, indexTime time.Duration
	var events int
	for i := 0; i < b.N; i++ {
		dir := b.TempDir()
		b.Setenv(store.CacheDirEnv, filepath.Join(dir, "cache"))
		st, err := store.Open(ctx, filepath.Join(dir, ".azureal", "sessions.azs"))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		scan, err := native.Scan(ctx, native.Options{ClaudeDir: tree.ClaudeDir, CodexDir: tree.CodexDir})
		if err != nil {
			b.Fatal(err)
		}
		res, err := native.Import(ctx, st, scan.Sessions, native.ImportOptions{ClaudeHome: native.ClaudeHomeOf(tree.ClaudeDir)})
		if err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		x, err := search.Open(ctx, st)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := x.Update(ctx, nil); err != nil {
			b.Fatal(err)
		}
		indexTime += time.Since(mid)
		importTime += mid.Sub(start)
		events = native.Summarize(res, 0).ImportedEvents
		x.Close()
		st.Close()
	}
	n := float64(b.N)
	imp, idx := importTime.Seconds()/n, indexTime.Seconds()/n
	b.ReportMetric(float64(events)/imp, "import-events/s")
	b.ReportMetric(mb/imp, "import-MB/s")
	b.ReportMetric(float64(events)/idx, "index-events/s")
	b.ReportMetric(mb/(imp+idx), "total-MB/s")
	b.ReportMetric(float64(events)/(imp+idx), "total-events/s")
	b.ReportMetric(mb, "MB")
}
