package cli

import (
	"context"
	"flag"
	"io"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/internal/agentwork"
	"github.com/lazuli-app/lazuli/store"
)

var (
	agentworkAgent = flag.String("agentwork.agent", "", "the agent of BenchmarkAgentImport (gemini, qwen, opencode, pi, copilot; claude: -native.home's Claude part)")
	agentworkHome  = flag.String("agentwork.home", "", "its workload: the HOME agentwork -agent A printed")
)

// BenchmarkAgentImport imports one agent's native workload (built by
// internal/agentwork; -agentwork.agent and -agentwork.home name it, or
// -agentwork.agent claude with -native.home for the Claude part of the
// native workload) into a new store, every other agent's folder empty:
// import-native --no-index, and the one pass with the index. It reports
// MB/s and events/s. Profile with -cpuprofile;
// scripts/bench-agents-import.sh measures the lazuli binary.
func BenchmarkAgentImport(b *testing.B) {
	dirs, bytes := agentImportDirs(b)
	for _, mode := range []string{"NoIndex", "Index"} {
		b.Run(mode, func(b *testing.B) {
			var took time.Duration
			for b.Loop() {
				dir := b.TempDir()
				b.Setenv(store.CacheDirEnv, filepath.Join(dir, "cache"))
				args := []string{"import-native", "--store", dir}
				for src, d := range dirs {
					args = append(args, "--"+src, d)
				}
				if mode == "NoIndex" {
					args = append(args, "--no-index")
				}
				env := &Env{Stdout: io.Discard, Stderr: io.Discard, Dir: dir}
				start := time.Now()
				if code := Run(context.Background(), env, args); code != ExitOK {
					b.Fatalf("import-native exit %d", code)
				}
				took += time.Since(start)
			}
			b.ReportMetric(float64(bytes)/1e6/(took.Seconds()/float64(b.N)), "MB/s")
		})
	}
}

// agentImportDirs returns import-native's folder flags for the benchmark's
// agent (every other source at an empty folder) and its history's bytes.
func agentImportDirs(b *testing.B) (map[string]string, int64) {
	var hist string
	switch {
	case *agentworkAgent == "claude" && *nativeHome != "":
		hist = filepath.Join(*nativeHome, ".claude", "projects")
	case *agentworkAgent != "" && *agentworkHome != "":
		a, ok := agentwork.Agents[*agentworkAgent]
		if !ok {
			b.Fatalf("no agent %q", *agentworkAgent)
		}
		hist = a.HistoryDir(*agentworkHome)
	default:
		b.Skip("-agentwork.agent and -agentwork.home (or -native.home) name the workload")
	}
	empty := b.TempDir()
	dirs := map[string]string{}
	for _, src := range native.Sources() {
		dirs[src.Flag] = empty
		if src.Agent == *agentworkAgent {
			dirs[src.Flag] = hist
		}
	}
	var n int64
	err := filepath.WalkDir(hist, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return dirs, n
}
