package insight

import "strings"

// PricesDated is when the price table below was taken from the vendors'
// public price lists. Costs computed from it are estimates and are marked
// so (cost_estimated) wherever they are shown.
const PricesDated = "2026-11-01"

// price is USD per million tokens.
type price struct {
	input, output, cacheRead, cacheWrite float64
}

// prices by model name prefix, longest prefix first within a family. The
// table is used only where the CLI reports no cost: Codex, Gemini CLI and
// Qwen Code always, Claude transcripts (which carry tokens but no cost).
var prices = []struct {
	prefix string
	p      price
}{
	{"gpt-5-mini", price{0.25, 2, 0.025, 0}},
	{"gpt-5-nano", price{0.05, 0.4, 0.005, 0}},
	{"gpt-5", price{1.25, 10, 0.125, 0}}, // gpt-5, gpt-5-codex, gpt-5.x
	{"codex-mini", price{1.5, 6, 0.375, 0}},
	{"o4-mini", price{1.1, 4.4, 0.275, 0}},
	{"o3", price{2, 8, 0.5, 0}},
	{"gpt-4.1", price{2, 8, 0.5, 0}},
	{"claude-opus-4-1", price{15, 75, 1.5, 18.75}},
	{"claude-opus-4-0", price{15, 75, 1.5, 18.75}},
	{"claude-opus-4-2025", price{15, 75, 1.5, 18.75}}, // Opus 4 (claude-opus-4-20250514)
	{"claude-opus", price{5, 25, 0.5, 6.25}},
	{"claude-sonnet", price{3, 15, 0.3, 3.75}},
	{"claude-3-7-sonnet", price{3, 15, 0.3, 3.75}},
	{"claude-3-5-sonnet", price{3, 15, 0.3, 3.75}},
	{"claude-haiku", price{1, 5, 0.1, 1.25}},
	{"claude-3-5-haiku", price{0.8, 4, 0.08, 1}},
	// Gemini (paid tier, prompts up to 200k tokens) and Qwen (Alibaba
	// Cloud Model Studio, international, the lowest input tier): neither
	// CLI reports a cost.
	{"gemini-2.5-pro", price{1.25, 10, 0.31, 0}},
	{"gemini-2.5-flash-lite", price{0.1, 0.4, 0.025, 0}},
	{"gemini-2.5-flash", price{0.3, 2.5, 0.075, 0}},
	{"qwen3-coder-plus", price{1, 5, 0.1, 0}},
	{"qwen3-coder-flash", price{0.3, 1.5, 0.03, 0}},
	{"qwen3-max", price{1.2, 6, 0.24, 0}},
}

// defaultPrices are used for a model the table does not know, per backend.
var defaultPrices = map[string]price{
	"codex":  {1.25, 10, 0.125, 0},
	"claude": {3, 15, 0.3, 3.75},
	"gemini": {1.25, 10, 0.31, 0},
	"qwen":   {1, 5, 0.1, 0},
}

// EstimateCost returns the estimated USD cost of tokens of model on
// backend. Output tokens include reasoning tokens, as both CLIs count them.
func EstimateCost(model, backend string, input, output, cacheRead, cacheWrite int64) float64 {
	p, ok := defaultPrices[backend]
	if !ok {
		p = defaultPrices["codex"]
	}
	m := strings.ToLower(model)
	for _, e := range prices {
		if strings.HasPrefix(m, e.prefix) {
			p = e.p
			break
		}
	}
	return (float64(input)*p.input + float64(output)*p.output + float64(cacheRead)*p.cacheRead +
		float64(cacheWrite)*p.cacheWrite) / 1e6
}
