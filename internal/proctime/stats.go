package proctime

import (
	"math"
	"slices"
)

// Summary is the distribution of a set of samples, in the samples' unit.
type Summary struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Summarize returns the distribution of xs; the zero Summary when xs is
// empty. It does not change xs.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	sum := 0.0
	for _, x := range s {
		sum += x
	}
	return Summary{N: len(s), P50: Percentile(s, 50), P95: Percentile(s, 95),
		Min: s[0], Max: s[len(s)-1], Mean: sum / float64(len(s))}
}

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) of sorted, which is
// in ascending order, interpolating linearly between the two closest ranks
// (the definition of numpy's default and R's type 7): the 50th of an even
// count is the mean of the middle two, the 95th of 20 samples lies between
// the 19th and the 20th. It returns NaN for no samples.
func Percentile(sorted []float64, p float64) float64 {
	switch {
	case len(sorted) == 0:
		return math.NaN()
	case p <= 0:
		return sorted[0]
	case p >= 100:
		return sorted[len(sorted)-1]
	}
	rank := p / 100 * float64(len(sorted)-1)
	lo := int(math.Floor(rank))
	if lo+1 >= len(sorted) {
		return sorted[lo]
	}
	return sorted[lo] + (rank-float64(lo))*(sorted[lo+1]-sorted[lo])
}
