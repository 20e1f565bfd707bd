package scale

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/recall"
	"github.com/lazuli-app/lazuli/store"
)

// recallHistory builds the store's search and insight indexes in the
// shared cache folder (once), then opens the store as `lazuli mcp` does:
// read-only, its indexes as they are.
func recallHistory(b *testing.B) (*recall.History, int64, time.Duration) {
	b.Helper()
	path := storePath(b)
	openIndexed(b, path) // the search index, built once in the shared cache
	ctx := context.Background()
	st, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	x, err := insight.Open(ctx, st)
	if err == nil {
		_, err = x.Update(ctx)
		x.Close()
	}
	st.Close()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	h, err := recall.Open(ctx, []string{path})
	if err != nil {
		b.Fatal(err)
	}
	opened := time.Since(start)
	b.Cleanup(func() { h.Close() })
	big, _ := bigSession(b, path)
	return h, big, opened
}

// recallCall is one tool call of the benchmark.
type recallCall struct {
	tool string
	call func(ctx context.Context, h *recall.History) (recall.Answer, error)
}

func recallCalls(big int64) []recallCall {
	s := func(q string) recallCall {
		return recallCall{recall.ToolSearch, func(ctx context.Context, h *recall.History) (recall.Answer, error) {
			return h.SearchSessions(ctx, recall.SearchArgs{Query: q})
		}}
	}
	var calls []recallCall
	for _, q := range scaleQueries {
		calls = append(calls, s(q.text))
	}
	bigS := fmt.Sprintf("S%d", big)
	for _, from := range []int64{0, 25000, 49990} {
		calls = append(calls, recallCall{recall.ToolRead, func(ctx context.Context, h *recall.History) (recall.Answer, error) {
			return h.ReadSession(ctx, recall.ReadArgs{Session: bigS, FromEvent: from})
		}})
	}
	calls = append(calls,
		recallCall{recall.ToolRead, func(ctx context.Context, h *recall.History) (recall.Answer, error) {
			return h.ReadSession(ctx, recall.ReadArgs{Session: "S5", Thinking: true})
		}},
		recallCall{recall.ToolRecentEdits, func(ctx context.Context, h *recall.History) (recall.Answer, error) {
			return h.RecentEdits(ctx, recall.RecentEditsArgs{})
		}},
		recallCall{recall.ToolRecentEdits, func(ctx context.Context, h *recall.History) (recall.Answer, error) {
			return h.RecentEdits(ctx, recall.RecentEditsArgs{Path: "_test.go", Limit: 5})
		}},
		recallCall{recall.ToolFileHistory, func(ctx context.Context, h *recall.History) (recall.Answer, error) {
			return h.FileHistory(ctx, recall.FileHistoryArgs{Path: "README.md"})
		}},
		recallCall{recall.ToolFileHistory, func(ctx context.Context, h *recall.History) (recall.Answer, error) {
			return h.FileHistory(ctx, recall.FileHistoryArgs{Path: "no/such/file.go"})
		}},
		recallCall{recall.ToolRefs, func(ctx context.Context, h *recall.History) (recall.Answer, error) {
			return h.SessionRefs(ctx, recall.RefsArgs{Session: bigS})
		}},
		recallCall{recall.ToolRefs, func(ctx context.Context, h *recall.History) (recall.Answer, error) {
			return h.SessionRefs(ctx, recall.RefsArgs{})
		}},
	)
	for _, by := range []string{"total", "day", "model", "session"} {
		calls = append(calls, recallCall{recall.ToolUsage, func(ctx context.Context, h *recall.History) (recall.Answer, error) {
			return h.Usage(ctx, recall.UsageArgs{By: by, Since: "2000-01-01"})
		}})
	}
	for _, topic := range []string{"go test", "segfault", "Bash"} {
		calls = append(calls, recallCall{recall.ToolTried, func(ctx context.Context, h *recall.History) (recall.Answer, error) {
			return h.WhatWasTried(ctx, recall.TriedArgs{Topic: topic})
		}})
	}
	for _, q := range []string{"SELECT COUNT(*) FROM sessions", "SELECT path, SUM(count) FROM files GROUP BY path ORDER BY 2 DESC LIMIT 10",
		"SELECT kind, COUNT(*) FROM events WHERE session_id = " + fmt.Sprint(big) + " GROUP BY kind"} {
		calls = append(calls, recallCall{recall.ToolQuery, func(ctx context.Context, h *recall.History) (recall.Answer, error) {
			return h.Query(ctx, recall.QueryArgs{SQL: q})
		}})
	}
	return calls
}

// BenchmarkRecallTools: every tool of `lazuli mcp` on the 1 GB store
// (target: p95 ≤ 500 ms per call), each call as the server runs it, its
// answer rendered, redacted and cut to the default 20,000 characters.
// Reported per tool: the median and p95 of its calls over the
// iterations (in-process, without the MCP transport), and the first,
// cold what_was_tried (which gathers the improve report's facts, then
// kept while the store is unchanged, and the wait for the indexes), and
// how long recall.Open took (the stores; the indexes open behind it: the
// search index is still open in this process, so not sealed and checked
// first, as for a server started beside a running window).
func BenchmarkRecallTools(b *testing.B) {
	h, big, opened := recallHistory(b)
	ctx := context.Background()
	calls := recallCalls(big)
	start := time.Now()
	if _, err := h.WhatWasTried(ctx, recall.TriedArgs{Topic: "go test"}); err != nil {
		b.Fatal(err)
	}
	cold := time.Since(start)
	per := map[string]samples{}
	for b.Loop() {
		for _, c := range calls {
			t0 := time.Now()
			a, err := c.call(ctx, h)
			d := time.Since(t0)
			if err != nil {
				b.Fatalf("%s: %v", c.tool, err)
			}
			if len([]rune(a.Text)) > recall.DefaultMaxChars {
				b.Fatalf("%s: %d characters", c.tool, len([]rune(a.Text)))
			}
			per[c.tool] = append(per[c.tool], d)
		}
	}
	for tool, s := range per {
		b.ReportMetric(ms(s.quantile(0.5)), "p50-ms/"+tool)
		b.ReportMetric(ms(s.quantile(0.95)), "p95-ms/"+tool)
	}
	b.ReportMetric(ms(cold), "cold-ms/what_was_tried")
	b.ReportMetric(ms(opened), "open-ms")
}
