package insight

import (
	"context"
	"fmt"
)

// ToolRow is a tool's calls and errors.
type ToolRow struct {
	Name   string `json:"name"`
	Calls  int64  `json:"calls"`
	Errors int64  `json:"errors"`
}

// Calls sums each tool's calls and errors over the sessions created since
// the day (session 0: every session), most called first.
func (ts ToolService) Calls(ctx context.Context, since string, session int64) ([]ToolRow, error) {
	rows, err := ts.x.db.QueryContext(ctx, `SELECT t.name, SUM(t.calls), SUM(t.errors) FROM tools t JOIN sessions s ON s.id = t.session
		WHERE s.day >= ?1 AND (?2 = 0 OR s.id = ?2) GROUP BY t.name ORDER BY 2 DESC, 1`, since, session)
	if err != nil {
		return nil, fmt.Errorf("tools of %s: %w", ts.x.st.Path(), err)
	}
	defer rows.Close()
	var out []ToolRow
	for rows.Next() {
		var r ToolRow
		if err := rows.Scan(&r.Name, &r.Calls, &r.Errors); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// ToolError is one tool's calls and errors in one session.
type ToolError struct {
	Session int64
	ToolRow
}

// Errors lists, per session and tool, the tools that failed at least
// once, in session and name order.
func (ts ToolService) Errors(ctx context.Context) ([]ToolError, error) {
	rows, err := ts.x.db.QueryContext(ctx, "SELECT session, name, calls, errors FROM tools WHERE errors > 0 ORDER BY session, name")
	if err != nil {
		return nil, fmt.Errorf("tool errors of %s: %w", ts.x.st.Path(), err)
	}
	defer rows.Close()
	var out []ToolError
	for rows.Next() {
		var t ToolError
		if err := rows.Scan(&t.Session, &t.Name, &t.Calls, &t.Errors); err != nil {
			return nil, fmt.Errorf("tool errors of %s: %w", ts.x.st.Path(), err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}
