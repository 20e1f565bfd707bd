package genstore

import (
	"slices"
	"testing"
)

func TestPlanDistribution(t *testing.T) {
	opts := DefaultOptions()
	plans, timeline, err := makePlan(opts)
	if err != nil {
		t.Fatal(err)
	}
	var lengths []int
	total, bigs, empty, codex := 0, 0, 0, 0
	worktreesUsed := map[string]bool{}
	for _, p := range plans {
		total += p.events
		worktreesUsed[p.worktree] = true
		if p.codex {
			codex++
		}
		switch {
		case p.big:
			bigs++
			if p.events != opts.Big {
				t.Errorf("big session has %d events, want %d", p.events, opts.Big)
			}
		case p.events == 0:
			empty++
		default:
			lengths = append(lengths, p.events)
			if p.events > opts.Big/2 {
				t.Errorf("session %d has %d events, over half the big one", p.index, p.events)
			}
		}
	}
	if total != opts.Events || bigs != 1 {
		t.Fatalf("%d events in all, %d big sessions; want %d and 1", total, bigs, opts.Events)
	}
	slices.Sort(lengths)
	median, p99 := lengths[len(lengths)/2], lengths[len(lengths)*99/100]
	mean := float64(opts.Events-opts.Big) / float64(len(lengths))
	// Heavy-tailed: most sessions short, the mean pulled up by a few long ones.
	if float64(median) > mean/1.5 || p99 < 10*median || lengths[0] > 3 {
		t.Errorf("lengths: min %d, median %d, mean %.0f, p99 %d, max %d", lengths[0], median, mean, p99, lengths[len(lengths)-1])
	}
	if empty == 0 || empty > 100 {
		t.Errorf("%d empty sessions", empty)
	}
	if share := float64(codex) / float64(len(plans)); share < 0.2 || share > 0.3 {
		t.Errorf("codex share %.2f", share)
	}
	if len(worktreesUsed) < 8 {
		t.Errorf("%d worktrees", len(worktreesUsed))
	}

	// Sessions start in id order; the big one is written in many sittings
	// with other sessions' work in between.
	seen := make([]int, len(plans))
	next, bigSittings := 0, 0
	for i, s := range timeline {
		if s.first {
			if s.session != next {
				t.Fatalf("sitting %d starts session %d, want %d", i, s.session, next)
			}
			next++
		}
		seen[s.session] += s.events
		if plans[s.session].big {
			bigSittings++
		}
	}
	for i, n := range seen {
		if n != plans[i].events {
			t.Errorf("session %d: sittings hold %d events, want %d", i, n, plans[i].events)
		}
	}
	if bigSittings < 20 {
		t.Errorf("big session in %d sittings", bigSittings)
	}
}

func TestScaleLengths(t *testing.T) {
	tests := []struct {
		name         string
		w            []float64
		total, limit int
	}{
		{"OK", []float64{1, 2, 3, 4}, 100, 100},
		{"Limit", []float64{1, 1, 1, 100}, 100, 40},
		{"Ones", []float64{5, 1, 0.01}, 3, 10},
		{"Skewed", []float64{0.001, 0.001, 1000}, 50, 48},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := scaleLengths(tc.w, tc.total, tc.limit)
			sum := 0
			for _, x := range n {
				sum += x
				if x < 1 || x > tc.limit {
					t.Errorf("scaleLengths(%v, %d, %d) = %v: out of [1, %d]", tc.w, tc.total, tc.limit, n, tc.limit)
				}
			}
			if sum != tc.total {
				t.Errorf("scaleLengths(%v, %d, %d) = %v, sum %d", tc.w, tc.total, tc.limit, n, sum)
			}
		})
	}
}

func TestWordForms(t *testing.T) {
	tests := []struct{ verb, third, ing string }{
		{"get", "gets", "getting"}, {"flush", "flushes", "flushing"}, {"apply", "applies", "applying"},
		{"make", "makes", "making"}, {"run", "runs", "running"}, {"read", "reads", "reading"},
		{"index", "indexes", "indexing"}, {"see", "sees", "seeing"},
	}
	for _, tc := range tests {
		if got := thirdPerson(tc.verb); got != tc.third {
			t.Errorf("thirdPerson(%q) = %q, want %q", tc.verb, got, tc.third)
		}
		if got := gerund(tc.verb); got != tc.ing {
			t.Errorf("gerund(%q) = %q, want %q", tc.verb, got, tc.ing)
		}
	}
}
