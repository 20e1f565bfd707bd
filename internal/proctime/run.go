package proctime

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"
)

// Options are the settings of a run.
type Options struct {
	Rounds int // rounds measured
	Warmup int // rounds run first and not counted
	// Before is a command run before every round (warm-up ones too), not
	// timed: a fresh folder, an append to the workload.
	Before []string
	// Timeout bounds each measurement; 0 is none.
	Timeout time.Duration
	// Detail marks the items for the table's CPU and peak RSS rows.
	Detail bool
	// Progress gets a line per sample of a second or more and one per
	// spec at the end; nil prints nothing.
	Progress io.Writer
}

// Run measures specs interleaved, as a user meets them on the same machine
// in the same minute: each round runs every spec once, in their order
// (A B A B …). It returns an item per spec; the load average is read at
// the start of every round and after the last.
func Run(ctx context.Context, specs []Spec, o Options) ([]Item, error) {
	if o.Rounds < 1 {
		return nil, fmt.Errorf("rounds %d: want at least 1", o.Rounds)
	}
	samples := make([][]Sample, len(specs))
	var loads []float64
	began := time.Now().UTC()
	for round := -o.Warmup; round < o.Rounds; round++ {
		if len(o.Before) > 0 {
			if out, err := exec.CommandContext(ctx, o.Before[0], o.Before[1:]...).CombinedOutput(); err != nil {
				return nil, fmt.Errorf("before %s: %s: %w: %s", roundName(round), strings.Join(o.Before, " "), err, strings.TrimSpace(string(out)))
			}
		}
		if round >= 0 {
			loads = append(loads, Load())
		}
		for i, s := range specs {
			smp, err := measureWithin(ctx, s, o.Timeout)
			if err != nil {
				return nil, fmt.Errorf("%s:%s: %w", s.Program, s.Row, err)
			}
			if round < 0 {
				continue
			}
			samples[i] = append(samples[i], smp)
			if o.Progress != nil && smp.Wall >= time.Second {
				fmt.Fprintf(o.Progress, "  round %d/%d  %-10s %-40s %s  (load %.2f)\n", round+1, o.Rounds,
					s.Program, s.Row, sampleLine(smp), Load())
			}
		}
	}
	loads = append(loads, Load())
	items := make([]Item, len(specs))
	for i, s := range specs {
		items[i] = newItem(s, samples[i], loads, o.Detail, began)
		if o.Progress != nil {
			fmt.Fprintln(o.Progress, items[i].Line())
		}
	}
	return items, nil
}

func measureWithin(ctx context.Context, s Spec, timeout time.Duration) (Sample, error) {
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	return Measure(ctx, s)
}

func sampleLine(smp Sample) string {
	line := fmt.Sprintf("%s wall", FormatMS(ms(smp.Wall)))
	if smp.CPU >= 0 {
		line += fmt.Sprintf(", %s CPU", FormatMS(ms(smp.CPU)))
	}
	if smp.RSSKiB > 0 {
		line += fmt.Sprintf(", %s peak", FormatKiB(float64(smp.RSSKiB)))
	}
	return line
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// newItem summarizes the samples of spec s.
func newItem(s Spec, samples []Sample, loads []float64, detail bool, began time.Time) Item {
	it := Item{Program: s.Program, Row: s.Row, Kind: s.Kind(), Command: s.Command(), Detail: detail, Time: began}
	var wall, cpu, rss []float64
	for _, smp := range samples {
		wall = append(wall, ms(smp.Wall))
		if smp.CPU >= 0 {
			cpu = append(cpu, ms(smp.CPU))
		}
		if smp.RSSKiB > 0 {
			rss = append(rss, float64(smp.RSSKiB))
		}
		it.Output, it.Memory = smp.Output, smp.Memory
	}
	it.Wall = summaryOf(wall)
	it.CPU = summaryOf(cpu)
	it.PeakRSS = summaryOf(rss)
	if it.Kind == "process" && it.PeakRSS != nil {
		it.RSSFloorKiB = selfPeakRSS()
	}
	it.Load = loadRange(loads)
	return it
}

func summaryOf(xs []float64) *Summary {
	if len(xs) == 0 {
		return nil
	}
	s := Summarize(xs)
	return &s
}

// loadRange returns the lowest and highest of the load averages that
// could be read (-1 marks one that could not).
func loadRange(loads []float64) [2]float64 {
	r := [2]float64{-1, -1}
	for _, l := range loads {
		if l < 0 {
			continue
		}
		if r[0] < 0 || l < r[0] {
			r[0] = l
		}
		if l > r[1] {
			r[1] = l
		}
	}
	return r
}

// roundName names a round of Run: "warm-up round 1", "round 1".
func roundName(round int) string {
	if round < 0 {
		return fmt.Sprintf("warm-up round %d", -round)
	}
	return fmt.Sprintf("round %d", round+1)
}
