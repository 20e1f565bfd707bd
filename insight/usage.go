package insight

import (
	"context"
	"fmt"
	"sort"

	"github.com/lazuli-app/lazuli/store"
)

// Grouping names what Stats groups by.
type Grouping string

// The groupings of Stats.
const (
	ByTotal    Grouping = ""
	ByDay      Grouping = "day"
	ByModel    Grouping = "model"
	ByWorktree Grouping = "worktree"
	BySession  Grouping = "session"
	ByBackend  Grouping = "backend"
)

// Totals is one row of Stats: the JSON shape of `lazuli stats --json`,
// also over the team (teamsync). The tokens' fields follow Turns in it.
type Totals struct {
	Key      string `json:"key"`
	Worktree string `json:"worktree,omitempty"` // for BySession (by=session over the team)
	Sessions int64  `json:"sessions"`
	Turns    int64  `json:"turns"`
	store.Tokens
}

// StatsQuery selects what Stats sums.
type StatsQuery struct {
	By      Grouping
	Since   string // YYYY-MM-DD: only sessions created and usage reported that day or later; "" for all
	Session int64  // only this session; 0 for all
}

// Stats sums sessions, turns, tokens and cost by q.By. A session counts on
// the day it was created; usage on the day it was reported (the session's
// day when the source had no time).
func (us UsageService) Stats(ctx context.Context, q StatsQuery) ([]Totals, error) {
	var uKey, sKey string
	switch q.By {
	case ByTotal:
		uKey, sKey = "'total'", "'total'"
	case ByDay:
		uKey, sKey = "u.day", "s.day"
	case ByModel:
		uKey = "u.model"
	case ByBackend:
		uKey = "u.backend"
	case ByWorktree:
		uKey, sKey = "s.worktree", "s.worktree"
	case BySession:
		uKey, sKey = "'S' || u.session", "'S' || s.id"
	default:
		return nil, fmt.Errorf("unknown grouping %q (want day, model, backend, worktree or session)", q.By)
	}
	sums := `SUM(u.input_tokens), SUM(u.output_tokens), SUM(u.cache_read_tokens), SUM(u.cache_write_tokens),
		SUM(u.reasoning_tokens), SUM(u.cost_usd), MAX(u.cost_estimated)`
	var query string
	if q.By == ByModel || q.By == ByBackend {
		query = `SELECT ` + uKey + `, '', COUNT(DISTINCT u.session), COUNT(DISTINCT u.session || ':' || u.turn), ` + sums + `
			FROM usage u JOIN sessions s ON s.id = u.session WHERE u.day >= ?1 AND (?2 = 0 OR u.session = ?2) GROUP BY 1`
	} else {
		named := `SUM(u.input_tokens) c1, SUM(u.output_tokens) c2, SUM(u.cache_read_tokens) c3, SUM(u.cache_write_tokens) c4,
			SUM(u.reasoning_tokens) c5, SUM(u.cost_usd) c6, MAX(u.cost_estimated) c7`
		query = `WITH uu AS (SELECT ` + uKey + ` AS k, ` + named + ` FROM usage u JOIN sessions s ON s.id = u.session
				WHERE u.day >= ?1 AND (?2 = 0 OR u.session = ?2) GROUP BY 1),
			ss AS (SELECT ` + sKey + ` AS k, MAX(s.worktree) AS w, COUNT(*) AS n, SUM(s.turns) AS t FROM sessions s
				WHERE s.day >= ?1 AND (?2 = 0 OR s.id = ?2) GROUP BY 1)
			SELECT keys.k, COALESCE(ss.w, ''), COALESCE(ss.n, 0), COALESCE(ss.t, 0), uu.c1, uu.c2, uu.c3, uu.c4, uu.c5, uu.c6, uu.c7
			FROM (SELECT k FROM uu UNION SELECT k FROM ss) keys LEFT JOIN uu ON uu.k = keys.k LEFT JOIN ss ON ss.k = keys.k`
	}
	rows, err := us.x.db.QueryContext(ctx, query, q.Since, q.Session)
	if err != nil {
		return nil, fmt.Errorf("stats of %s: %w", us.x.st.Path(), err)
	}
	defer rows.Close()
	var out []Totals
	for rows.Next() {
		var t Totals
		var in, outT, cr, cw, rs, est nullInt
		var cost nullFloat
		if err := rows.Scan(&t.Key, &t.Worktree, &t.Sessions, &t.Turns, &in, &outT, &cr, &cw, &rs, &cost, &est); err != nil {
			return nil, fmt.Errorf("stats of %s: %w", us.x.st.Path(), err)
		}
		t.Input, t.Output, t.CacheRead, t.CacheWrite, t.Reasoning = in.v, outT.v, cr.v, cw.v, rs.v
		t.CostUSD, t.CostEstimated = cost.v, est.v != 0
		if q.By != BySession {
			t.Worktree = ""
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

type nullInt struct{ v int64 }

func (n *nullInt) Scan(src any) error {
	switch v := src.(type) {
	case int64:
		n.v = v
	case float64:
		n.v = int64(v)
	case nil:
		n.v = 0
	default:
		return fmt.Errorf("not an integer: %T", src)
	}
	return nil
}

type nullFloat struct{ v float64 }

func (n *nullFloat) Scan(src any) error {
	switch v := src.(type) {
	case int64:
		n.v = float64(v)
	case float64:
		n.v = v
	case nil:
		n.v = 0
	default:
		return fmt.Errorf("not a number: %T", src)
	}
	return nil
}

// MergeTotals adds up the rows of several stores by key (and worktree, for
// BySession), sorted by key.
func MergeTotals(lists ...[]Totals) []Totals {
	type k struct{ key, wt string }
	m := map[k]*Totals{}
	var keys []k
	for _, l := range lists {
		for _, t := range l {
			kk := k{t.Key, t.Worktree}
			a := m[kk]
			if a == nil {
				c := t
				m[kk] = &c
				keys = append(keys, kk)
				continue
			}
			a.Sessions += t.Sessions
			a.Turns += t.Turns
			a.Tokens.Add(t.Tokens)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].key != keys[j].key {
			return keys[i].key < keys[j].key
		}
		return keys[i].wt < keys[j].wt
	})
	out := make([]Totals, len(keys))
	for i, kk := range keys {
		out[i] = *m[kk]
	}
	return out
}

// UsageGroup is the usage of one day, model, backend and worktree.
type UsageGroup struct {
	Day, Model, Backend, Worktree string
	store.Tokens
}

// SessionGroup is the sessions created on one day in one worktree, and
// their turns.
type SessionGroup struct {
	Day, Worktree   string
	Sessions, Turns int64
}

// Summary is what the Insights window sums, read in two passes over the
// index (Stats reads it once per grouping): the usage by day, model,
// backend and worktree, and the sessions by day and worktree, since the
// day (session 0: every session).
func (us UsageService) Summary(ctx context.Context, since string, session int64) ([]UsageGroup, []SessionGroup, error) {
	rows, err := us.x.db.QueryContext(ctx, `SELECT u.day, u.model, u.backend, s.worktree, SUM(u.input_tokens), SUM(u.output_tokens),
		SUM(u.cache_read_tokens), SUM(u.cache_write_tokens), SUM(u.reasoning_tokens), SUM(u.cost_usd), MAX(u.cost_estimated)
		FROM usage u JOIN sessions s ON s.id = u.session WHERE +u.day >= ?1 AND (?2 = 0 OR u.session = ?2) GROUP BY 1, 2, 3, 4`, since, session)
	if err != nil {
		return nil, nil, fmt.Errorf("usage of %s: %w", us.x.st.Path(), err)
	}
	var usage []UsageGroup
	for rows.Next() {
		var g UsageGroup
		var est int64
		if err := rows.Scan(&g.Day, &g.Model, &g.Backend, &g.Worktree, &g.Input, &g.Output, &g.CacheRead, &g.CacheWrite,
			&g.Reasoning, &g.CostUSD, &est); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("usage of %s: %w", us.x.st.Path(), err)
		}
		g.CostEstimated = est != 0
		usage = append(usage, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("usage of %s: %w", us.x.st.Path(), err)
	}
	rows, err = us.x.db.QueryContext(ctx, `SELECT day, worktree, COUNT(*), SUM(turns) FROM sessions
		WHERE day >= ?1 AND (?2 = 0 OR id = ?2) GROUP BY 1, 2`, since, session)
	if err != nil {
		return nil, nil, fmt.Errorf("sessions of %s: %w", us.x.st.Path(), err)
	}
	defer rows.Close()
	var sessions []SessionGroup
	for rows.Next() {
		var g SessionGroup
		if err := rows.Scan(&g.Day, &g.Worktree, &g.Sessions, &g.Turns); err != nil {
			return nil, nil, fmt.Errorf("sessions of %s: %w", us.x.st.Path(), err)
		}
		sessions = append(sessions, g)
	}
	return usage, sessions, rows.Err()
}

// TurnUsage is the usage of one turn of a session: the sums of its usage
// rows (CostEstimated: some of the cost is estimated from the price
// table), and the seqs its events span.
type TurnUsage struct {
	Turn              int64
	FirstSeq, LastSeq int64
	store.Tokens
}

// ByTurn lists the usage of each turn of session that has usage, in
// turn order.
func (us UsageService) ByTurn(ctx context.Context, session int64) ([]TurnUsage, error) {
	rows, err := us.x.db.QueryContext(ctx, `SELECT u.turn, COALESCE(t.first_seq, 0), COALESCE(t.last_seq, 0),
		SUM(u.input_tokens), SUM(u.output_tokens), SUM(u.cache_read_tokens), SUM(u.cache_write_tokens),
		SUM(u.reasoning_tokens), SUM(u.cost_usd), MAX(u.cost_estimated)
		FROM usage u LEFT JOIN turns t ON t.session = u.session AND t.turn = u.turn
		WHERE u.session = ? GROUP BY u.turn ORDER BY u.turn`, session)
	if err != nil {
		return nil, fmt.Errorf("turn usage of %s: %w", us.x.st.Path(), err)
	}
	defer rows.Close()
	var out []TurnUsage
	for rows.Next() {
		var t TurnUsage
		var est int64
		if err := rows.Scan(&t.Turn, &t.FirstSeq, &t.LastSeq, &t.Input, &t.Output, &t.CacheRead, &t.CacheWrite,
			&t.Reasoning, &t.CostUSD, &est); err != nil {
			return nil, fmt.Errorf("turn usage of %s: %w", us.x.st.Path(), err)
		}
		t.CostEstimated = est != 0
		out = append(out, t)
	}
	return out, rows.Err()
}

// ModelUsage is the usage of one turn with one model and backend: the
// rows of the usage table summed by session, turn, model and backend.
type ModelUsage struct {
	Session, Turn       int64
	Day, Model, Backend string
	store.Tokens
}

// ByTurnAndModel returns the usage of every turn of every session,
// by session, turn, model and backend, in that order (team sync sends
// it).
func (us UsageService) ByTurnAndModel(ctx context.Context) ([]ModelUsage, error) {
	rows, err := us.x.db.QueryContext(ctx, `SELECT session, turn, MIN(day), model, backend, SUM(input_tokens), SUM(output_tokens),
		SUM(cache_read_tokens), SUM(cache_write_tokens), SUM(reasoning_tokens), SUM(cost_usd), MAX(cost_estimated)
		FROM usage GROUP BY session, turn, model, backend ORDER BY session, turn, model, backend`)
	if err != nil {
		return nil, fmt.Errorf("usage of %s: %w", us.x.st.Path(), err)
	}
	defer rows.Close()
	var out []ModelUsage
	for rows.Next() {
		var u ModelUsage
		var cost nullFloat
		var est nullInt
		if err := rows.Scan(&u.Session, &u.Turn, &u.Day, &u.Model, &u.Backend, &u.Input, &u.Output,
			&u.CacheRead, &u.CacheWrite, &u.Reasoning, &cost, &est); err != nil {
			return nil, fmt.Errorf("usage of %s: %w", us.x.st.Path(), err)
		}
		u.CostUSD, u.CostEstimated = cost.v, est.v != 0
		out = append(out, u)
	}
	return out, rows.Err()
}
