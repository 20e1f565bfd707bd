package proctime

import (
	"math"
	"slices"
	"testing"
)

func TestPercentile(t *testing.T) {
	twenty := make([]float64, 20)
	for i := range twenty {
		twenty[i] = float64(i + 1) // 1 … 20
	}
	tests := []struct {
		name   string
		sorted []float64
		p      float64
		want   float64
	}{
		{"one sample", []float64{7}, 50, 7},
		{"median of odd count", []float64{1, 2, 10}, 50, 2},
		{"median of even count is the mean of the middle two", []float64{1, 2, 4, 10}, 50, 3},
		{"p95 of 20 lies between the 19th and the 20th", twenty, 95, 19.05},
		{"p95 of 3 is near the max", []float64{1, 2, 3}, 95, 2.9},
		{"p0 is the min", []float64{1, 2, 3}, 0, 1},
		{"p100 is the max", []float64{1, 2, 3}, 100, 3},
		{"ties", []float64{5, 5, 5, 5}, 95, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Percentile(tt.sorted, tt.p); math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Percentile(%v, %v) = %v, want %v", tt.sorted, tt.p, got, tt.want)
			}
		})
	}
	if got := Percentile(nil, 50); !math.IsNaN(got) {
		t.Errorf("Percentile(nil, 50) = %v, want NaN", got)
	}
}

func TestSummarize(t *testing.T) {
	xs := []float64{30, 10, 20, 40}
	got := Summarize(xs)
	want := Summary{N: 4, P50: 25, P95: 38.5, Min: 10, Max: 40, Mean: 25}
	if math.Abs(got.P95-want.P95) > 1e-9 {
		t.Errorf("Summarize(%v).P95 = %v, want %v", xs, got.P95, want.P95)
	}
	got.P95 = want.P95
	if got != want {
		t.Errorf("Summarize(%v) = %+v, want %+v", xs, got, want)
	}
	if !slices.Equal(xs, []float64{30, 10, 20, 40}) {
		t.Errorf("Summarize changed its input to %v", xs)
	}
	if got := Summarize(nil); got != (Summary{}) {
		t.Errorf("Summarize(nil) = %+v, want the zero Summary", got)
	}
}
