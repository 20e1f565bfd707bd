package proctime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunInterleaves checks that each round runs every spec once, in
// order, after the round's hook, warm-up rounds first and uncounted.
func TestRunInterleaves(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	a, b := helper("A", "ok"), helper("B", "ok")
	for _, s := range []*Spec{&a, &b} {
		s.Env = append(s.Env, "PROCTIME_TEST_LOG="+log)
	}
	hook := []string{"sh", "-c", "echo hook >> " + log}
	items, err := Run(context.Background(), []Spec{a, b}, Options{Rounds: 2, Warmup: 1, Before: hook, Detail: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("hook\nA\nB\n", 3)
	if string(got) != want {
		t.Errorf("Run's order = %q, want %q", got, want)
	}
	if len(items) != 2 || items[0].Program != "A" || items[1].Program != "B" {
		t.Fatalf("Run returned %+v, want an item for A then one for B", items)
	}
	for _, it := range items {
		if it.Wall == nil || it.Wall.N != 2 || it.CPU == nil || it.CPU.N != 2 || !it.Detail || it.Kind != "process" {
			t.Errorf("item %s = %+v, want 2 wall and CPU samples (not the warm-up), Detail, kind process", it.Program, it)
		}
	}
}

func TestRunStops(t *testing.T) {
	tests := []struct {
		name  string
		specs []Spec
		o     Options
		want  string
	}{
		{"failing hook", []Spec{helper("A", "ok")}, Options{Rounds: 1, Before: []string{"sh", "-c", "echo no room >&2; exit 1"}}, "before round 1"},
		{"failing spec", []Spec{helper("A", "ok"), helper("B", "fail")}, Options{Rounds: 2}, "B:fail"},
		{"no rounds", []Spec{helper("A", "ok")}, Options{}, "at least 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := Run(context.Background(), tt.specs, tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Run = %v, %v; want an error with %q", items, err, tt.want)
			}
		})
	}
}

func TestLoadRange(t *testing.T) {
	tests := []struct {
		in   []float64
		want [2]float64
	}{
		{[]float64{2.5, 1.5, 3}, [2]float64{1.5, 3}},
		{[]float64{-1, 0.5, -1}, [2]float64{0.5, 0.5}},
		{[]float64{-1}, [2]float64{-1, -1}},
		{nil, [2]float64{-1, -1}},
	}
	for _, tt := range tests {
		if got := loadRange(tt.in); got != tt.want {
			t.Errorf("loadRange(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
