package windowbench

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	for _, c := range []struct {
		d    []time.Duration
		p    float64
		want time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 95, 7 * time.Millisecond},
		{ms(5, 1, 3, 2, 4), 50, 3 * time.Millisecond},
		{ms(5, 1, 3, 2, 4), 95, 5 * time.Millisecond},
		{ms(10, 20, 30, 40, 50, 60, 70, 80, 90, 100), 50, 50 * time.Millisecond},
		{ms(10, 20, 30, 40, 50, 60, 70, 80, 90, 100), 95, 100 * time.Millisecond},
	} {
		if got := Percentile(c.d, c.p); got != c.want {
			t.Errorf("Percentile(%v, %v) = %v, want %v", c.d, c.p, got, c.want)
		}
	}
}

func TestSummary(t *testing.T) {
	s := Samples{"search": {100 * time.Millisecond, 300 * time.Millisecond, 200 * time.Millisecond}, "resize": nil}
	got := s.Summary()
	if want := (Stat{P50: 200, P95: 300, N: 3}); got["search"] != want {
		t.Errorf("Summary()[search] = %+v, want %+v", got["search"], want)
	}
	if _, ok := got["resize"]; ok {
		t.Errorf("Summary() has an action without samples: %+v", got)
	}
}

// The driver reads where the sidebar is and which sessions its rows show
// from the window's geometry trace points.
func TestTakeGeom(t *testing.T) {
	s := &session{}
	for _, d := range []string{"sidebar 4 111 300 645 35.1 4.0", "filter 4 31 212 36", "rows header,S12,S3", "nonsense 1 2"} {
		s.takeGeom(d)
	}
	g := s.geom
	if g.x != 4 || g.y != 111 || g.w != 300 || g.h != 645 || g.rowH != 35.1 || g.pad != 4 {
		t.Errorf("sidebar geometry = %+v", g)
	}
	if g.filter != [4]float64{4, 31, 212, 36} {
		t.Errorf("filter geometry = %v", g.filter)
	}
	if len(g.rows) != 3 || g.rows[1] != "S12" {
		t.Errorf("rows = %q, want [header S12 S3]", g.rows)
	}
}

// BenchmarkWindow runs the felt-latency benchmark on the store named by
// LAZULI_WINDOW_BENCH_STORE with the binaries of make build (it skips
// without it: scripts/bench-window.sh is the usual way to run it), and
// reports each action's median and 95th percentile in ms.
func BenchmarkWindow(b *testing.B) {
	src := os.Getenv("LAZULI_WINDOW_BENCH_STORE")
	if src == "" {
		b.Skip("LAZULI_WINDOW_BENCH_STORE is not set (scripts/bench-window.sh runs this benchmark)")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	p, err := Prepare(ctx, src, filepath.Join(b.TempDir(), "work"), filepath.Join(root, "bin", "lazuli"), os.Stderr)
	if err != nil {
		b.Fatal(err)
	}
	all := Samples{}
	for b.Loop() {
		s, err := Run(ctx, Config{Window: filepath.Join(root, "bin", "lazuli-window"), Project: p.Project, CacheDir: p.CacheDir,
			Rounds: 1, Small: p.Small, Big: p.Big, BigCount: p.BigCount, Queries: []string{"error", "test"}, Find: "the"})
		if err != nil {
			b.Fatal(err)
		}
		for a, d := range s {
			all[a] = append(all[a], d...)
		}
	}
	for a, st := range all.Summary() {
		b.ReportMetric(st.P50, a+"-p50-ms")
		b.ReportMetric(st.P95, a+"-p95-ms")
	}
}

func TestGarbled(t *testing.T) {
	t0 := time.Unix(100, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tests := []struct {
		name       string
		unmeasured []time.Time
		want       bool
	}{
		{"None", nil, false},
		{"BeforeReady", []time.Time{at(-1)}, false},
		{"BetweenReadyAndFrame", []time.Time{at(-5), at(20)}, true},
		{"AtReady", []time.Time{at(0)}, true},
		{"AfterFrame", []time.Time{at(51)}, false},
	}
	for _, tt := range tests {
		if got := garbled(tt.unmeasured, at(0), at(50)); got != tt.want {
			t.Errorf("%s: garbled(%v) = %v, want %v", tt.name, tt.unmeasured, got, tt.want)
		}
	}
}
