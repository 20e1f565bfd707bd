package proctime

import (
	"strings"
	"testing"
	"time"
)

func TestFormatMS(t *testing.T) {
	tests := []struct {
		ms   float64
		want string
	}{
		{0.123, "0.12 ms"},
		{3.214, "3.21 ms"},
		{42.54, "42.5 ms"},
		{270.4, "270 ms"},
		{20130, "20.13 s"},
		{999.6, "1.00 s"},
		{99.96, "100 ms"},
		{9.996, "10.0 ms"},
	}
	for _, tt := range tests {
		if got := FormatMS(tt.ms); got != tt.want {
			t.Errorf("FormatMS(%v) = %q, want %q", tt.ms, got, tt.want)
		}
	}
}

func sum(p50, p95 float64, n int) *Summary {
	return &Summary{N: n, P50: p50, P95: p95, Min: p50, Max: p95, Mean: p50}
}

func intp(n int) *int { return &n }

func testReport() Report {
	return Report{
		Machine: Machine{CPUModel: "AMD EPYC", Cores: 2, Kernel: "6.1"},
		Started: time.Date(2026, 11, 28, 5, 40, 0, 0, time.UTC),
		Busy:    2, Workload: "2,070 files, 702 MB",
		Commits: map[string]string{"Lazuli": "abc1234", "agentsview": "aea2eb1"},
		Items: []Item{
			{Program: "Lazuli", Row: "one pass import + index", Kind: "process", Detail: true, Wall: sum(20100, 20500, 3),
				CPU: sum(20500, 21000, 3), PeakRSS: sum(126976, 130000, 3), Load: [2]float64{1.7, 2.1}, RSSFloorKiB: 8192},
			{Program: "agentsview", Row: "one pass import + index", Kind: "ready", Detail: true, Wall: sum(52300, 53000, 3),
				CPU: sum(51600, 52000, 3), PeakRSS: sum(188416, 190000, 3), Load: [2]float64{2.0, 3.1}},
			{Program: "Lazuli", Row: "search `error`", Kind: "process", Wall: sum(430, 560, 20), CPU: sum(400, 500, 20), Load: [2]float64{1.5, 1.6}},
			{Program: "agentsview", Row: "search `error`", Kind: "http", Wall: sum(500, 840, 20), Load: [2]float64{1.5, 1.6}},
			{Program: "Lazuli", Row: "sessions found for `error`", Kind: "count", Count: intp(846), Load: [2]float64{1.4, 1.4}},
			{Program: "agentsview", Row: "sessions found for `error`", Kind: "count", Count: intp(1484), Load: [2]float64{1.4, 1.4}},
			{Program: "Lazuli", Row: "only | ours", Kind: "process", Wall: sum(5, 6, 50), Load: [2]float64{-1, -1}},
			{Program: "Lazuli", Row: "once", Kind: "process", Wall: sum(28730, 28730, 1), Load: [2]float64{4.66, 7.59}},
		},
	}
}

func TestMarkdown(t *testing.T) {
	md := testReport().Markdown()
	for _, want := range []string{
		"Measured 2026-11-28 05:40 UTC on AMD EPYC (2 cores, Linux 6.1), with 2 processes spinning on the CPU beside the run; " +
			"commits: Lazuli abc1234, agentsview aea2eb1. Workload: 2,070 files, 702 MB.",
		"| metric (process, interleaved) | Lazuli p50 (p95) | agentsview p50 (p95) | Lazuli ÷ agentsview | runs | load (1 min) |",
		"| one pass import + index, wall | 20.10 s (20.50 s) | 52.30 s (53.00 s) ‡ | 0.38× | 3 | 1.70–3.10 |",
		"| one pass import + index, CPU (user+sys) | 20.50 s (21.00 s) | 51.60 s (52.00 s) ‡ | 0.40× | 3 | 1.70–3.10 |",
		"| one pass import + index, peak RSS | 124 MiB (127 MiB) | 184 MiB (186 MiB) ‡ | 0.67× | 3 | 1.70–3.10 |",
		"| search `error` | 430 ms (560 ms) | 500 ms (840 ms) † | 0.86× | 20 | 1.50–1.60 |",
		"| sessions found for `error` | 846 | 1484 | 0.57× | 1 | 1.40 |",
		"| only \\| ours | 5.00 ms (6.00 ms) | — | — | 50 | unknown |",
		"| once | 28.73 s | — | — | 1 | 4.66–7.59 |",
		"† an HTTP GET", "‡ exec to the line", "(8 MiB here)",
		"| agentsview | search `error` | http | 20 | 500 ms | 840 ms | 500 ms | 840 ms | — | — | 1.50–1.60 |",
		"| Lazuli | sessions found for `error` | count | 1 | count 846 |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown() lacks %q; it is:\n%s", want, md)
		}
	}
	if strings.Contains(md, "search `error`, wall") {
		t.Errorf("Markdown() splits a row without Detail into wall, CPU and RSS:\n%s", md)
	}
}

func TestMarkdownQuiet(t *testing.T) {
	r := testReport()
	r.Busy, r.Commits, r.Workload = 0, nil, ""
	md := r.Markdown()
	want := "Measured 2026-11-28 05:40 UTC on AMD EPYC (2 cores, Linux 6.1), nothing added to the machine's load.\n"
	if !strings.HasPrefix(md, want) {
		t.Errorf("Markdown() starts %q, want %q", md[:min(len(md), len(want))], want)
	}
}

func TestReportRoundTrip(t *testing.T) {
	path := t.TempDir() + "/r.json"
	r := testReport()
	if err := r.Write(path); err != nil {
		t.Fatal(err)
	}
	got, err := ReadReport(path)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := got.Markdown(), r.Markdown(); a != b {
		t.Errorf("ReadReport(Write(r)) renders\n%s\nwant\n%s", a, b)
	}
}
