package recall

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/insight"
)

// QueryArgs are query's arguments.
type QueryArgs struct {
	SQL   string `json:"sql" jsonschema:"one read-only SELECT over the views sessions, turns, usage, files, refs, tools and events (each with a store column), as lazuli sql takes it"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many rows (1 to 1000; default 100)"`
	Paging
}

// Query limits: a query runs at most QueryBudget (returning by twice that
// whatever it does), so a writer waiting for it is held up no longer, and
// may add at most queryMemory to the process.
const (
	QueryBudget  = 2 * time.Second
	queryMemory  = 256 << 20
	defaultRows  = 100
	maxRows      = 1000
	maxQueryText = 16 << 10
)

// Query runs one read-only SQL query with the SQL console's authorizer and
// limits (insight.RunSQL) and returns its rows as a table, saying when
// more rows than the limit matched.
func (h *History) Query(ctx context.Context, a QueryArgs) (Answer, error) {
	return paged(ctx, h, ToolQuery, a, a.Paging, h.renderQuery)
}

func (h *History) renderQuery(ctx context.Context, a QueryArgs) (string, error) {
	limit := a.Limit
	switch {
	case limit == 0:
		limit = defaultRows
	case limit < 0 || limit > maxRows:
		return "", badArg("limit %d: want 1 to %d", limit, maxRows)
	}
	if len(a.SQL) > maxQueryText {
		return "", badArg("sql longer than %d bytes", maxQueryText)
	}
	var sources []insight.SQLSource
	for _, s := range h.sources {
		if s.insight == nil {
			return "", noInsight(s)
		}
		src, err := insight.SQLSourceOf(ctx, s.insight)
		if err != nil {
			return "", err
		}
		sources = append(sources, src)
	}
	res, err := insight.RunSQL(ctx, sources, a.SQL, limit, QueryBudget, insight.WithMemoryLimit(queryMemory))
	if err != nil {
		if ctx.Err() != nil {
			return "", err
		}
		// Every failure of the query itself (refused, too large, a syntax
		// error, interrupted) is the agent's to fix.
		return "", badArg("%s", oneLine(err))
	}
	var b strings.Builder
	b.WriteString("| " + strings.Join(cells(res.Columns), " | ") + " |\n|")
	b.WriteString(strings.Repeat("---|", len(res.Columns)) + "\n")
	for _, row := range res.Cells() {
		b.WriteString("| " + strings.Join(cells(row), " | ") + " |\n")
	}
	fmt.Fprintf(&b, "\n%d rows", len(res.Rows))
	if res.Truncated {
		fmt.Fprintf(&b, "; truncated: more than %d rows matched (raise limit, up to %d, or narrow the query)", limit, maxRows)
	}
	b.WriteString(".\n")
	return b.String(), nil
}

func cells(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = mdCell(s)
	}
	return out
}

// oneLine is err's message on one line.
func oneLine(err error) string {
	msg := err.Error()
	for errors.Unwrap(err) != nil && strings.Count(msg, "\n") > 0 {
		err = errors.Unwrap(err)
	}
	return strings.Join(strings.Fields(msg), " ")
}
