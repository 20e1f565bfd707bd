package insight

import (
	"context"
	"fmt"
)

// RefRow is one ref a session mentions: the JSON shape of `lazuli refs
// --json`.
type RefRow struct {
	Session  string `json:"session"` // S<n>
	Worktree string `json:"worktree"`
	Ref
	FirstSeq   int64 `json:"first_seq"`
	FirstEvent int64 `json:"first_event"`
}

// List lists the refs of session (0: every session) in the order they
// first appeared.
func (rs RefService) List(ctx context.Context, session int64) ([]RefRow, error) {
	rows, err := rs.x.db.QueryContext(ctx, `SELECT 'S' || r.session, s.worktree, r.kind, r.value, r.url, r.first_seq, r.first_event
		FROM refs r JOIN sessions s ON s.id = r.session WHERE ?1 = 0 OR r.session = ?1 ORDER BY r.first_event, r.kind, r.value`, session)
	if err != nil {
		return nil, fmt.Errorf("refs of %s: %w", rs.x.st.Path(), err)
	}
	defer rows.Close()
	var out []RefRow
	for rows.Next() {
		var r RefRow
		if err := rows.Scan(&r.Session, &r.Worktree, &r.Kind, &r.Value, &r.URL, &r.FirstSeq, &r.FirstEvent); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// Mention is a pull request, issue, commit or branch a session mentions.
type Mention struct {
	Session int64
	Ref
	FirstSeq int64
}

// Mentions lists the refs of every session but plain URLs, in session
// order and the order they first appeared.
func (rs RefService) Mentions(ctx context.Context) ([]Mention, error) {
	rows, err := rs.x.db.QueryContext(ctx, `SELECT session, kind, value, url, first_seq FROM refs
		WHERE kind != 'url' ORDER BY session, first_event, kind, value`)
	if err != nil {
		return nil, fmt.Errorf("mentions of %s: %w", rs.x.st.Path(), err)
	}
	defer rows.Close()
	var out []Mention
	for rows.Next() {
		var m Mention
		if err := rows.Scan(&m.Session, &m.Kind, &m.Value, &m.URL, &m.FirstSeq); err != nil {
			return nil, fmt.Errorf("mentions of %s: %w", rs.x.st.Path(), err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}
