package insight

import (
	"reflect"
	"testing"

	"github.com/lazuli-app/lazuli/store"
)

// TestMergeTotals: rows of several stores with the same key (and
// worktree) add up, sessions, turns, tokens and cost; the others stay
// apart, sorted by key then worktree.
func TestMergeTotals(t *testing.T) {
	a := []Totals{
		{Key: "m1", Sessions: 1, Turns: 2, Tokens: store.Tokens{Input: 10, Output: 1, CacheRead: 5, CacheWrite: 2, Reasoning: 1, CostUSD: 0.5}},
		{Key: "S1", Worktree: "main", Sessions: 1, Turns: 1, Tokens: store.Tokens{Input: 3}},
	}
	b := []Totals{
		{Key: "m1", Sessions: 2, Turns: 3, Tokens: store.Tokens{Input: 20, Output: 2, CacheRead: 6, CacheWrite: 3, Reasoning: 2, CostUSD: 0.25, CostEstimated: true}},
		{Key: "S1", Worktree: "feat", Sessions: 1, Turns: 4, Tokens: store.Tokens{Output: 7}},
	}
	want := []Totals{
		{Key: "S1", Worktree: "feat", Sessions: 1, Turns: 4, Tokens: store.Tokens{Output: 7}},
		{Key: "S1", Worktree: "main", Sessions: 1, Turns: 1, Tokens: store.Tokens{Input: 3}},
		{Key: "m1", Sessions: 3, Turns: 5, Tokens: store.Tokens{Input: 30, Output: 3, CacheRead: 11, CacheWrite: 5, Reasoning: 3, CostUSD: 0.75, CostEstimated: true}},
	}
	if got := MergeTotals(a, b); !reflect.DeepEqual(got, want) {
		t.Errorf("MergeTotals(%+v, %+v) = %+v, want %+v", a, b, got, want)
	}
}
