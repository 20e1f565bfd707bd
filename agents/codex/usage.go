package codex

import (
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/store"
)

// codexUsage maps a Codex usage object (turn.completed.usage, or a
// token_count total); cached input moves from Input to CacheRead.
func codexUsage(u parse.Object) store.Usage {
	in, cached := parse.NonNeg(u, "input_tokens"), parse.NonNeg(u, "cached_input_tokens")
	cached = min(cached, in)
	return store.Usage{
		Backend: "codex",
		Tokens: store.Tokens{
			Input:     in - cached,
			CacheRead: cached,
			Output:    parse.NonNeg(u, "output_tokens"),
			Reasoning: parse.NonNeg(u, "reasoning_output_tokens"),
		},
	}
}

// codexTotals tracks a rollout's cumulative token_count and bills its
// growth at each turn's end.
type codexTotals struct {
	total, billed store.Usage
	seen          bool // a token_count since the last bill
	at            string
}

// observe takes a token_count total.
func (c *codexTotals) observe(u store.Usage, at string) {
	if u.Input+u.CacheRead < c.total.Input+c.total.CacheRead {
		c.billed = store.Usage{} // a new thread's count started over
	}
	c.total, c.seen, c.at = u, true, at
}

// bill returns the usage since the last bill; ok is false when no
// token_count came since.
func (c *codexTotals) bill() (store.Usage, bool) {
	if !c.seen {
		return store.Usage{}, false
	}
	d := store.Usage{Backend: "codex", At: c.at, Tokens: store.Tokens{
		Input:     max(c.total.Input-c.billed.Input, 0),
		CacheRead: max(c.total.CacheRead-c.billed.CacheRead, 0),
		Output:    max(c.total.Output-c.billed.Output, 0),
		Reasoning: max(c.total.Reasoning-c.billed.Reasoning, 0),
	}}
	c.billed, c.seen = c.total, false
	return d, d.Input+d.CacheRead+d.Output > 0
}
