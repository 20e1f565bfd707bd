package fakemodel

import "testing"

// TestDecideCLI: LAZULI_E2E_REQUIRED=1 wins over -short and over a missing
// CLI (which then fails); otherwise -short or a missing CLI skips.
func TestDecideCLI(t *testing.T) {
	for _, tc := range []struct {
		short, required, found bool
		want                   cliDecision
	}{
		{false, false, true, cliRuns},
		{false, false, false, cliSkipMissing},
		{true, false, true, cliSkipShort},
		{true, false, false, cliSkipShort},
		{false, true, true, cliRuns},
		{false, true, false, cliFailMissing},
		{true, true, true, cliRuns},
		{true, true, false, cliFailMissing},
	} {
		if got := decideCLI(tc.short, tc.required, tc.found); got != tc.want {
			t.Errorf("decideCLI(short %v, required %v, found %v) = %v, want %v", tc.short, tc.required, tc.found, got, tc.want)
		}
	}
}
