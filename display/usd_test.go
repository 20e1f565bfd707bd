package display

import "testing"

func TestUSD(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{{0, "$0.00"}, {0.0016, "$0.0016"}, {0.0049, "$0.0049"}, {0.005, "$0.01"}, {0.42, "$0.42"}, {12.345, "$12.35"}} {
		if got := USD(c.in); got != c.want {
			t.Errorf("USD(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
