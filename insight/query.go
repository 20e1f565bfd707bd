package insight

import (
	"context"
	"fmt"
	"sort"
	"strings"

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
func (x *Index) Stats(ctx context.Context, q StatsQuery) ([]Totals, error) {
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
	rows, err := x.db.QueryContext(ctx, query, q.Since, q.Session)
	if err != nil {
		return nil, fmt.Errorf("stats of %s: %w", x.st.Path(), err)
	}
	defer rows.Close()
	var out []Totals
	for rows.Next() {
		var t Totals
		var in, outT, cr, cw, rs, est nullInt
		var cost nullFloat
		if err := rows.Scan(&t.Key, &t.Worktree, &t.Sessions, &t.Turns, &in, &outT, &cr, &cw, &rs, &cost, &est); err != nil {
			return nil, fmt.Errorf("stats of %s: %w", x.st.Path(), err)
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

// FileRow is one file a session touched with one action: the JSON shape
// of `lazuli files --json`.
type FileRow struct {
	Session    string `json:"session"` // S<n>
	Worktree   string `json:"worktree"`
	Path       string `json:"path"`
	Action     string `json:"action"`
	Count      int64  `json:"count"`
	FirstSeq   int64  `json:"first_seq"`
	LastSeq    int64  `json:"last_seq"`
	FirstEvent int64  `json:"first_event"`
	LastEvent  int64  `json:"last_event"`
}

// Files lists the files of session (0: every session), most recent first.
func (x *Index) Files(ctx context.Context, session int64) ([]FileRow, error) {
	return x.NewestFiles(ctx, session, -1)
}

// NewestFiles is Files that stops after limit rows (-1: all).
func (x *Index) NewestFiles(ctx context.Context, session int64, limit int) ([]FileRow, error) {
	return x.newestFiles(ctx, session, limit, false)
}

// NewestChanges is NewestFiles without the reads: the files the sessions
// edited, wrote, created or deleted, the newest first (`lazuli files
// --recent`).
func (x *Index) NewestChanges(ctx context.Context, session int64, limit int) ([]FileRow, error) {
	return x.newestFiles(ctx, session, limit, true)
}

func (x *Index) newestFiles(ctx context.Context, session int64, limit int, changes bool) ([]FileRow, error) {
	// Without a session the newest rows come from the index on
	// last_event; "? = 0 OR" would hide it from the planner.
	var conds []string
	var args []any
	if session != 0 {
		conds, args = append(conds, "f.session = ?"), append(args, session)
	}
	if changes {
		// A fork's copies of its parent's changes are not changes it made.
		copied, err := forkCopies(ctx, x.st)
		if err != nil {
			return nil, fmt.Errorf("files of %s: %w", x.st.Path(), err)
		}
		conds = append(conds, "f.action <> ?", "f.last_seq > COALESCE((SELECT c.value FROM json_each(?) c WHERE c.key = CAST(f.session AS TEXT)), 0)")
		args = append(args, ActionRead, copied)
	}
	where := ""
	if len(conds) > 0 {
		where = "WHERE " + strings.Join(conds, " AND ")
	}
	args = append(args, limit)
	rows, err := x.db.QueryContext(ctx, `SELECT 'S' || f.session, s.worktree, f.path, f.action, f.count, f.first_seq, f.last_seq,
		f.first_event, f.last_event FROM files f JOIN sessions s ON s.id = f.session
		`+where+` ORDER BY f.last_event DESC, f.path, f.action LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("files of %s: %w", x.st.Path(), err)
	}
	defer rows.Close()
	var out []FileRow
	for rows.Next() {
		var f FileRow
		if err := rows.Scan(&f.Session, &f.Worktree, &f.Path, &f.Action, &f.Count, &f.FirstSeq, &f.LastSeq, &f.FirstEvent, &f.LastEvent); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// RefRow is one ref a session mentions: the JSON shape of `lazuli refs
// --json`.
type RefRow struct {
	Session  string `json:"session"` // S<n>
	Worktree string `json:"worktree"`
	Ref
	FirstSeq   int64 `json:"first_seq"`
	FirstEvent int64 `json:"first_event"`
}

// Refs lists the refs of session (0: every session) in the order they
// first appeared.
func (x *Index) Refs(ctx context.Context, session int64) ([]RefRow, error) {
	rows, err := x.db.QueryContext(ctx, `SELECT 'S' || r.session, s.worktree, r.kind, r.value, r.url, r.first_seq, r.first_event
		FROM refs r JOIN sessions s ON s.id = r.session WHERE ?1 = 0 OR r.session = ?1 ORDER BY r.first_event, r.kind, r.value`, session)
	if err != nil {
		return nil, fmt.Errorf("refs of %s: %w", x.st.Path(), err)
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

// Heat counts the sessions started (created) since the day, by weekday
// (Monday first) and UTC hour; session 0 means every session.
func (x *Index) Heat(ctx context.Context, since string, session int64) ([7][24]int64, error) {
	var h [7][24]int64
	rows, err := x.db.QueryContext(ctx, `SELECT (CAST(strftime('%w', created) AS INTEGER) + 6) % 7, CAST(strftime('%H', created) AS INTEGER), COUNT(*)
		FROM sessions WHERE day >= ?1 AND (?2 = 0 OR id = ?2) AND strftime('%w', created) IS NOT NULL GROUP BY 1, 2`, since, session)
	if err != nil {
		return h, fmt.Errorf("activity of %s: %w", x.st.Path(), err)
	}
	defer rows.Close()
	for rows.Next() {
		var d, hr, n int64
		if err := rows.Scan(&d, &hr, &n); err != nil {
			return h, err
		}
		if d >= 0 && d < 7 && hr >= 0 && hr < 24 {
			h[d][hr] += n
		}
	}
	return h, rows.Err()
}

// PathCount is a file and how often the sessions touched it.
type PathCount struct {
	Path  string
	Count int64
}

// TopFiles sums, per path, the touches of the sessions created since the
// day (session 0: every session) and returns the n most touched, most
// first (ties by path).
func (x *Index) TopFiles(ctx context.Context, since string, session int64, n int) ([]PathCount, error) {
	query, args := `SELECT f.path, SUM(f.count) FROM files f JOIN sessions s ON s.id = f.session
		WHERE s.day >= ? AND (? = 0 OR s.id = ?) GROUP BY f.path ORDER BY 2 DESC, 1 LIMIT ?`, []any{since, session, session, n}
	if since == "" && session == 0 { // every row: no need to look up each one's session
		query, args = `SELECT path, SUM(count) FROM files GROUP BY path ORDER BY 2 DESC, 1 LIMIT ?`, []any{n}
	}
	rows, err := x.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("top files of %s: %w", x.st.Path(), err)
	}
	defer rows.Close()
	var out []PathCount
	for rows.Next() {
		var p PathCount
		if err := rows.Scan(&p.Path, &p.Count); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// ToolRow is a tool's calls and errors.
type ToolRow struct {
	Name   string `json:"name"`
	Calls  int64  `json:"calls"`
	Errors int64  `json:"errors"`
}

// Tools sums each tool's calls and errors over the sessions created since
// the day (session 0: every session), most called first.
func (x *Index) Tools(ctx context.Context, since string, session int64) ([]ToolRow, error) {
	rows, err := x.db.QueryContext(ctx, `SELECT t.name, SUM(t.calls), SUM(t.errors) FROM tools t JOIN sessions s ON s.id = t.session
		WHERE s.day >= ?1 AND (?2 = 0 OR s.id = ?2) GROUP BY t.name ORDER BY 2 DESC, 1`, since, session)
	if err != nil {
		return nil, fmt.Errorf("tools of %s: %w", x.st.Path(), err)
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
func (x *Index) Summary(ctx context.Context, since string, session int64) ([]UsageGroup, []SessionGroup, error) {
	rows, err := x.db.QueryContext(ctx, `SELECT u.day, u.model, u.backend, s.worktree, SUM(u.input_tokens), SUM(u.output_tokens),
		SUM(u.cache_read_tokens), SUM(u.cache_write_tokens), SUM(u.reasoning_tokens), SUM(u.cost_usd), MAX(u.cost_estimated)
		FROM usage u JOIN sessions s ON s.id = u.session WHERE +u.day >= ?1 AND (?2 = 0 OR u.session = ?2) GROUP BY 1, 2, 3, 4`, since, session)
	if err != nil {
		return nil, nil, fmt.Errorf("usage of %s: %w", x.st.Path(), err)
	}
	var usage []UsageGroup
	for rows.Next() {
		var g UsageGroup
		var est int64
		if err := rows.Scan(&g.Day, &g.Model, &g.Backend, &g.Worktree, &g.Input, &g.Output, &g.CacheRead, &g.CacheWrite,
			&g.Reasoning, &g.CostUSD, &est); err != nil {
			rows.Close()
			return nil, nil, fmt.Errorf("usage of %s: %w", x.st.Path(), err)
		}
		g.CostEstimated = est != 0
		usage = append(usage, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("usage of %s: %w", x.st.Path(), err)
	}
	rows, err = x.db.QueryContext(ctx, `SELECT day, worktree, COUNT(*), SUM(turns) FROM sessions
		WHERE day >= ?1 AND (?2 = 0 OR id = ?2) GROUP BY 1, 2`, since, session)
	if err != nil {
		return nil, nil, fmt.Errorf("sessions of %s: %w", x.st.Path(), err)
	}
	defer rows.Close()
	var sessions []SessionGroup
	for rows.Next() {
		var g SessionGroup
		if err := rows.Scan(&g.Day, &g.Worktree, &g.Sessions, &g.Turns); err != nil {
			return nil, nil, fmt.Errorf("sessions of %s: %w", x.st.Path(), err)
		}
		sessions = append(sessions, g)
	}
	return usage, sessions, rows.Err()
}

// SessionDays returns how many sessions started on each day (UTC
// "YYYY-MM-DD"), of all time (session 0: every session): what the
// Insights window reads to open on a range that holds them.
func (x *Index) SessionDays(ctx context.Context, session int64) (map[string]int64, error) {
	rows, err := x.db.QueryContext(ctx, `SELECT day, COUNT(*) FROM sessions WHERE ?1 = 0 OR id = ?1 GROUP BY 1`, session)
	if err != nil {
		return nil, fmt.Errorf("session days of %s: %w", x.st.Path(), err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var day string
		var n int64
		if err := rows.Scan(&day, &n); err != nil {
			return nil, fmt.Errorf("session days of %s: %w", x.st.Path(), err)
		}
		out[day] += n
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

// UsageByTurnAndModel returns the usage of every turn of every session,
// by session, turn, model and backend, in that order (team sync sends
// it).
func (x *Index) UsageByTurnAndModel(ctx context.Context) ([]ModelUsage, error) {
	rows, err := x.db.QueryContext(ctx, `SELECT session, turn, MIN(day), model, backend, SUM(input_tokens), SUM(output_tokens),
		SUM(cache_read_tokens), SUM(cache_write_tokens), SUM(reasoning_tokens), SUM(cost_usd), MAX(cost_estimated)
		FROM usage GROUP BY session, turn, model, backend ORDER BY session, turn, model, backend`)
	if err != nil {
		return nil, fmt.Errorf("usage of %s: %w", x.st.Path(), err)
	}
	defer rows.Close()
	var out []ModelUsage
	for rows.Next() {
		var u ModelUsage
		var cost nullFloat
		var est nullInt
		if err := rows.Scan(&u.Session, &u.Turn, &u.Day, &u.Model, &u.Backend, &u.Input, &u.Output,
			&u.CacheRead, &u.CacheWrite, &u.Reasoning, &cost, &est); err != nil {
			return nil, fmt.Errorf("usage of %s: %w", x.st.Path(), err)
		}
		u.CostUSD, u.CostEstimated = cost.v, est.v != 0
		out = append(out, u)
	}
	return out, rows.Err()
}
