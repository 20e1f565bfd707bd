package agents

import (
	"sort"

	"github.com/lazuli-app/lazuli/store"
)

// claudeAPIUsage maps an Anthropic usage object (message.usage, or a
// result's usage).
func claudeAPIUsage(u jsonObj) store.Usage {
	return store.Usage{
		Backend:    "claude",
		Input:      nonNeg(u, "input_tokens"),
		Output:     nonNeg(u, "output_tokens"),
		CacheRead:  nonNeg(u, "cache_read_input_tokens"),
		CacheWrite: nonNeg(u, "cache_creation_input_tokens"),
	}
}

// claudeResultUsage maps a stream-json result line: one row per model of
// modelUsage, or the result's usage and total cost.
func claudeResultUsage(o jsonObj, model string) []store.Usage {
	at := usageTime(o)
	if mu := o.obj("modelUsage"); len(mu) > 0 {
		names := make([]string, 0, len(mu))
		for name := range mu {
			names = append(names, name)
		}
		sort.Strings(names)
		var out []store.Usage
		for _, name := range names {
			m := mu.obj(name)
			if m == nil {
				continue
			}
			cost, ok := m.f64("costUSD")
			out = append(out, store.Usage{
				At: at, Source: string(FormatClaudeStream), Model: name, Backend: "claude",
				Input: nonNeg(m, "inputTokens"), Output: nonNeg(m, "outputTokens"),
				CacheRead: nonNeg(m, "cacheReadInputTokens"), CacheWrite: nonNeg(m, "cacheCreationInputTokens"),
				CostUSD: cost, HasCost: ok,
			})
		}
		return out
	}
	if !o.has("usage") {
		return nil
	}
	u := claudeAPIUsage(o.obj("usage"))
	u.At, u.Source, u.Model = at, string(FormatClaudeStream), model
	u.CostUSD, u.HasCost = o.firstFloat("total_cost_usd", "total_cost", "cost_usd")
	return []store.Usage{u}
}
