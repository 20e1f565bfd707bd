package cli

import (
	"context"
	"flag"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/internal/fixtures"
	"github.com/lazuli-app/lazuli/internal/nativetree"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

var (
	nativeCopies = flag.Int("native.copies", 3, "copies of each Claude fixture in BenchmarkNativeImportIndex (Codex: 3/4 of it); 60 is the full ~700 MB workload")
	nativeHome   = flag.String("native.home", "", "an existing workload (nativework -home DIR) for BenchmarkNativeImportIndex to use instead of building one")
)

// BenchmarkNativeImportIndex imports a native-history workload built from
// the shared fixtures (nativetree.Workload; -native.copies sizes it, or
// -native.home names one already built) three ways, each into a new store:
// the import alone (import-native --no-index), the index build of that
// store (reindex), and both in one pass as import-native does them (the
// rows of each import transaction fed to the index, search.Feed). It
// reports events/s and MB/s of each, and CPU seconds of the one pass.
// Profile with -cpuprofile. scripts/bench-native.sh measures the full
// workload through the lazuli binary.
func BenchmarkNativeImportIndex(b *testing.B) {
	ctx := context.Background()
	tree, mb := nativeWorkload(b)
	var importTime, indexTime, bothTime, bothCPU time.Duration
	var events int
	for i := 0; i < b.N; i++ {
		// The import alone, then the index of that store.
		st := benchStore(b)
		start := time.Now()
		res := benchImport(b, st, tree, nil)
		importTime += time.Since(start)
		events = native.Summarize(res, 0).ImportedEvents
		start = time.Now()
		x, err := search.Open(ctx, st)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := x.Update(ctx, nil); err != nil {
			b.Fatal(err)
		}
		indexTime += time.Since(start)
		x.Close()
		st.Close()

		// Both in one pass.
		st = benchStore(b)
		start, cpu := time.Now(), cpuTime()
		feed := search.NewImportFeed(ctx, func() (*search.Index, error) { return search.Open(ctx, st) })
		benchImport(b, st, tree, feed.Stored)
		if x, _, err = feed.Close(nil); err != nil {
			b.Fatal(err)
		}
		bothTime += time.Since(start)
		bothCPU += cpuTime() - cpu
		x.Close()
		st.Close()
	}
	n := float64(b.N)
	imp, idx, both := importTime.Seconds()/n, indexTime.Seconds()/n, bothTime.Seconds()/n
	b.ReportMetric(float64(events)/imp, "import-events/s")
	b.ReportMetric(mb/imp, "import-MB/s")
	b.ReportMetric(float64(events)/idx, "index-events/s")
	b.ReportMetric(float64(events)/both, "onepass-events/s")
	b.ReportMetric(mb/both, "onepass-MB/s")
	b.ReportMetric(bothCPU.Seconds()/n, "onepass-cpu-s")
	b.ReportMetric(mb, "MB")
}

// benchStore opens a new store, with a cache folder of its own.
func benchStore(b *testing.B) *store.Store {
	dir := b.TempDir()
	b.Setenv(store.CacheDirEnv, filepath.Join(dir, "cache"))
	st, err := store.Open(context.Background(), filepath.Join(dir, ".azureal", "sessions.azs"))
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// benchImport scans and imports the workload as import-native does.
func benchImport(b *testing.B, st *store.Store, tree nativetree.Tree, stored func([]store.NativeResult)) []native.Result {
	ctx := context.Background()
	scan, err := native.Scan(ctx, native.Options{Dirs: native.Dirs{native.Claude: tree.ClaudeDir, native.Codex: tree.CodexDir}})
	if err != nil {
		b.Fatal(err)
	}
	res, err := native.Import(ctx, st, scan.Sessions, native.ImportOptions{
		ClaudeHome: native.ClaudeHomeOf(tree.ClaudeDir), Stored: stored})
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// nativeWorkload is the workload of -native.home, or one built from the
// shared fixtures with -native.copies, and its size in MB.
func nativeWorkload(b *testing.B) (nativetree.Tree, float64) {
	if *nativeHome != "" {
		tree := nativetree.Tree{Home: *nativeHome, ClaudeDir: filepath.Join(*nativeHome, ".claude", "projects"),
			CodexDir: filepath.Join(*nativeHome, ".codex", "sessions")}
		var size int64
		for _, dir := range []string{tree.ClaudeDir, tree.CodexDir} {
			err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				fi, err := d.Info()
				size += fi.Size()
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
		}
		return tree, float64(size) / 1e6
	}
	tree, ws, err := nativetree.Workload(fixtures.Dir(b, "transcripts"), b.TempDir(), nativetree.WorkloadOptions{
		ClaudeCopies: *nativeCopies, CodexCopies: max(1, *nativeCopies*3/4)})
	if err != nil {
		b.Fatal(err)
	}
	return tree, float64(ws.Bytes) / 1e6
}

// BenchmarkNativeReimport runs import-native again on a workload it
// imported (with its index) before, in process: NoChange with nothing new,
// Append after a turn (2 lines) was appended to 10 Claude files
// (nativetree.AppendPrompts; one file in 97, so the default workload of
// -native.copies 3 has fewer), as scripts/bench-native.sh does. It reports
// milliseconds per re-import; the process figures are the script's (this
// is their lower bound: no process start).
func BenchmarkNativeReimport(b *testing.B) {
	tree, _ := nativeWorkload(b)
	dir := b.TempDir()
	b.Setenv(store.CacheDirEnv, filepath.Join(dir, "cache"))
	args := []string{"import-native", "--store", dir, "--claude-dir", tree.ClaudeDir, "--codex-dir", tree.CodexDir}
	reimport := func() {
		env := &Env{Stdout: io.Discard, Stderr: io.Discard, Dir: dir}
		if code := Run(context.Background(), env, args); code != ExitOK {
			b.Fatalf("import-native exit %d", code)
		}
	}
	reimport() // the first import, with the index
	b.Run("NoChange", func(b *testing.B) {
		var took time.Duration
		for b.Loop() {
			start := time.Now()
			reimport()
			took += time.Since(start)
		}
		b.ReportMetric(float64(took.Microseconds())/1e3/float64(b.N), "ms/reimport")
	})
	b.Run("Append", func(b *testing.B) {
		var took time.Duration
		round, files := 0, 0
		for b.Loop() {
			b.StopTimer()
			round++
			appended, err := nativetree.AppendPrompts(tree.Home, 10, "bench"+strconv.Itoa(round))
			if err != nil || len(appended) == 0 {
				b.Fatalf("append: %d files, %v", len(appended), err)
			}
			files = len(appended)
			b.StartTimer()
			start := time.Now()
			reimport()
			took += time.Since(start)
		}
		b.ReportMetric(float64(took.Microseconds())/1e3/float64(b.N), "ms/reimport")
		b.ReportMetric(float64(files), "files-appended")
	})
}
