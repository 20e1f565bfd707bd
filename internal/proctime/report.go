// Package proctime measures programs as a user meets them: each command
// run as a process, from fork and exec to exit (or to the line a server
// prints when it is ready), several times, interleaved with the program it
// is compared with, with the machine's load average and CPU model beside
// the figures. It writes a JSON report and renders it as Markdown tables
// (scripts/bench-process.sh drives it; BENCHMARKS.md shows its tables).
//
// Its functions are not safe for concurrent use on one report; Run runs
// one measurement at a time, as a benchmark must.
package proctime

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Report is what a benchmark run measured, as kept in its JSON file.
type Report struct {
	Machine
	Started time.Time `json:"started"`
	// Busy is how many processes kept spinning on the CPU beside the run.
	Busy     int    `json:"busy"`
	Workload string `json:"workload,omitempty"`
	// Commits names the build each program's figures are of.
	Commits map[string]string `json:"commits,omitempty"`
	Items   []Item            `json:"items"`
}

// Item is what one spec measured over a run's rounds, or a count.
type Item struct {
	Program string `json:"program"`
	Row     string `json:"row"`
	Kind    string `json:"kind"` // process, ready, http or count
	Command string `json:"command"`
	// Wall and CPU are in milliseconds, PeakRSS in KiB; nil when not
	// measured (the CPU of an HTTP GET, a count).
	Wall    *Summary `json:"wall_ms,omitempty"`
	CPU     *Summary `json:"cpu_ms,omitempty"`
	PeakRSS *Summary `json:"peak_rss_kib,omitempty"`
	// RSSFloorKiB is proctime's own peak RSS, which Linux counts in the
	// rusage of a child it starts (process kind only): PeakRSS is never
	// below it.
	RSSFloorKiB int64 `json:"rss_floor_kib,omitempty"`
	// Load is the lowest and highest 1-minute load average read during
	// the rounds (-1 where it could not be read).
	Load  [2]float64 `json:"load"`
	Count *int       `json:"count,omitempty"`
	// Detail asks the table for CPU and peak RSS rows besides the wall.
	Detail bool `json:"detail,omitempty"`
	// Output is what a ready spec printed last before its ready line.
	Output []string `json:"output,omitempty"`
	// Memory is a ready spec's resident memory when it was ready (last
	// round), split into anonymous and file pages.
	Memory string    `json:"memory_at_ready,omitempty"`
	Time   time.Time `json:"time"`
}

// Line returns a one-line account of the item, with the load.
func (it Item) Line() string {
	s := fmt.Sprintf("%-10s %-40s", it.Program, it.Row)
	if it.Count != nil {
		s += fmt.Sprintf(" %d", *it.Count)
	}
	if w := it.Wall; w != nil {
		s += fmt.Sprintf(" wall p50 %s p95 %s min %s (n %d)", FormatMS(w.P50), FormatMS(w.P95), FormatMS(w.Min), w.N)
	}
	if c := it.CPU; c != nil {
		s += fmt.Sprintf(", CPU p50 %s", FormatMS(c.P50))
	}
	if r := it.PeakRSS; r != nil {
		s += fmt.Sprintf(", peak RSS p50 %s", FormatKiB(r.P50))
	}
	if it.Memory != "" {
		s += ", at ready " + it.Memory
	}
	return s + fmt.Sprintf("  (load %s)", formatLoad(it.Load))
}

// ReadReport reads the JSON report at path.
func ReadReport(path string) (Report, error) {
	var r Report
	b, err := os.ReadFile(path)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("read report %s: %w", path, err)
	}
	return r, nil
}

// Write writes r to path whole or not at all (a temporary file renamed
// over it).
func (r Report) Write(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write report %s: %w", path, firstErr(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// FormatMS formats milliseconds with a resolution that fits their size:
// "3.21 ms", "42.5 ms", "270 ms", "20.13 s".
// The limits are where the rounded figure would reach the next size
// (999.6 ms is "1.00 s", not "1000 ms").
func FormatMS(ms float64) string {
	switch {
	case ms >= 999.5:
		return fmt.Sprintf("%.2f s", ms/1000)
	case ms >= 99.95:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 9.995:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.2f ms", ms)
}

// FormatKiB formats a size in KiB as whole MiB: "124 MiB".
func FormatKiB(kib float64) string {
	return fmt.Sprintf("%.0f MiB", kib/1024)
}

func formatLoad(l [2]float64) string {
	switch {
	case l[0] < 0:
		return "unknown"
	case l[0] == l[1]:
		return fmt.Sprintf("%.2f", l[0])
	}
	return fmt.Sprintf("%.2f–%.2f", l[0], l[1])
}
