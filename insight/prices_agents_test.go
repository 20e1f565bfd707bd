package insight

import (
	"math"
	"testing"
)

func TestEstimateCostOfTheNewAgents(t *testing.T) {
	for _, c := range []struct {
		model, backend string
		want           float64 // 1M input + 1M output + 1M cache read
	}{
		{"gemini-2.5-pro", "gemini", 1.25 + 10 + 0.31},
		{"gemini-2.5-flash-lite", "gemini", 0.1 + 0.4 + 0.025},
		{"gemini-2.5-flash", "gemini", 0.3 + 2.5 + 0.075},
		{"gemini-9-unknown", "gemini", 1.25 + 10 + 0.31},
		{"qwen3-coder-plus", "qwen", 1 + 5 + 0.1},
		{"some-provider-model", "qwen", 1 + 5 + 0.1},
	} {
		if got := EstimateCost(c.model, c.backend, 1e6, 1e6, 1e6, 0); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("EstimateCost(%s, %s) = %v, want %v", c.model, c.backend, got, c.want)
		}
	}
}
