package claude

import (
	"sort"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/store"
)

// claudeAPIUsage maps an Anthropic usage object (message.usage, or a
// result's usage).
func claudeAPIUsage(u parse.Object) store.Usage {
	return store.Usage{
		Backend: "claude",
		Tokens: store.Tokens{
			Input:      parse.NonNeg(u, "input_tokens"),
			Output:     parse.NonNeg(u, "output_tokens"),
			CacheRead:  parse.NonNeg(u, "cache_read_input_tokens"),
			CacheWrite: parse.NonNeg(u, "cache_creation_input_tokens"),
		},
	}
}

// claudeResultUsage maps a stream-json result line: one row per model of
// modelUsage, or the result's usage and total cost.
func claudeResultUsage(o parse.Object, model string) []store.Usage {
	at := parse.UsageTime(o)
	if mu := o.Obj("modelUsage"); len(mu) > 0 {
		names := make([]string, 0, len(mu))
		for name := range mu {
			names = append(names, name)
		}
		sort.Strings(names)
		var out []store.Usage
		for _, name := range names {
			m := mu.Obj(name)
			if m == nil {
				continue
			}
			cost, ok := m.F64("costUSD")
			out = append(out, store.Usage{
				At: at, Source: string(parse.FormatClaudeStream), Model: name, Backend: "claude",
				Tokens: store.Tokens{Input: parse.NonNeg(m, "inputTokens"), Output: parse.NonNeg(m, "outputTokens"),
					CacheRead: parse.NonNeg(m, "cacheReadInputTokens"), CacheWrite: parse.NonNeg(m, "cacheCreationInputTokens"),
					CostUSD: cost},
				HasCost: ok,
			})
		}
		return out
	}
	if !o.Has("usage") {
		return nil
	}
	u := claudeAPIUsage(o.Obj("usage"))
	u.At, u.Source, u.Model = at, string(parse.FormatClaudeStream), model
	u.CostUSD, u.HasCost = o.FirstFloat("total_cost_usd", "total_cost", "cost_usd")
	return []store.Usage{u}
}
