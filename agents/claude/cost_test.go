package claude

import (
	"testing"

	"github.com/lazuli-app/lazuli/agents/parse"
)

// TestClaudeCostAsSerde: a result's total_cost_usd is read the way
// AZUREAL's serde_json reads it, so the stored Complete matches AZUREAL's
// byte for byte: 0.9500000000000001 (significand above 2^53) becomes 0.95
// (issue 14 item 4).
func TestClaudeCostAsSerde(t *testing.T) {
	for lit, want := range map[string]float64{
		"0.9500000000000001":  0.95,
		"0.34160664999999996": 0.34160664999999996,
		"0":                   0,
	} {
		o, ok := parse.DecodeObject([]byte(`{"total_cost_usd":` + lit + `}`))
		if !ok {
			t.Fatal("decodeObj failed")
		}
		if got, ok := o.FirstFloat("total_cost_usd"); !ok || got != want {
			t.Errorf("total_cost_usd %s read as %v (%v), want %v", lit, got, ok, want)
		}
	}
}
