package scale

import (
	"flag"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/store"
)

// StoreEnv names the environment variable that points the benchmarks at a
// generated store when -scale.store is not given.
const StoreEnv = "LAZULI_SCALE_STORE"

var (
	storeFlag = flag.String("scale.store", "", "the generated store to measure (default $"+StoreEnv+"; the benchmarks skip without one)")
	heapDir   = flag.String("scale.heapprofile", "", "folder where BenchmarkMemory writes the child's heap profiles")
)

// TestMain runs the child workloads (see child_test.go) when the test binary
// is started as a child, and the tests otherwise.
func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// storePath returns the store to measure, skipping the benchmark when there
// is none. Each benchmark gets a cache folder of its own, so that list
// counts or a search index left by an earlier one never help it.
func storePath(tb testing.TB) string {
	tb.Helper()
	p := *storeFlag
	if p == "" {
		p = os.Getenv(StoreEnv)
	}
	if p == "" {
		tb.Skip("no store: pass -scale.store PATH or set " + StoreEnv + " (scripts/bench-scale.sh does)")
	}
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("scale store: %v", err)
	}
	tb.Setenv(store.CacheDirEnv, tb.TempDir())
	return p
}

// bigSession returns the id and event count of the store's largest
// session, counted with a plain query so that no Lazuli cache is written.
func bigSession(tb testing.TB, path string) (int64, int64) {
	tb.Helper()
	db, err := OpenBaseline(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var id, n int64
	err = db.QueryRow("SELECT session_id, COUNT(*) AS n FROM events GROUP BY session_id ORDER BY n DESC LIMIT 1").Scan(&id, &n)
	if err != nil {
		tb.Fatalf("find the biggest session: %v", err)
	}
	return id, n
}

// samples are the durations of repeated measurements.
type samples []time.Duration

// quantile returns the nearest-rank q-quantile (0 < q ≤ 1).
func (s samples) quantile(q float64) time.Duration {
	if len(s) == 0 {
		return 0
	}
	sorted := slices.Clone(s)
	slices.Sort(sorted)
	i := int(q*float64(len(sorted))+0.999999) - 1
	return sorted[min(len(sorted)-1, max(0, i))]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// report reports the median and worst of s in milliseconds, as name and
// "max-"+name.
func (s samples) report(b *testing.B, name string) {
	b.ReportMetric(ms(s.quantile(0.5)), "ms/"+name)
	b.ReportMetric(ms(s.quantile(1)), "max-ms/"+name)
}

func TestQuantile(t *testing.T) {
	s := samples{5, 1, 4, 2, 3, 6, 7, 8, 9, 10}
	tests := []struct {
		q    float64
		want time.Duration
	}{{0.5, 5}, {0.95, 10}, {0.1, 1}, {1, 10}, {0.01, 1}}
	for _, tc := range tests {
		if got := s.quantile(tc.q); got != tc.want {
			t.Errorf("quantile(%v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	if got := (samples{}).quantile(0.5); got != 0 {
		t.Errorf("quantile of nothing = %v", got)
	}
}
