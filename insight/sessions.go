package insight

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// SessionActivity is what the index knows of one session: the rows of
// Activity, which the chronicle reports are written from.
type SessionActivity struct {
	ID       int64
	Created  string // "YYYY-MM-DD HH:MM:SS" UTC
	Worktree string
	Name     string
	Events   int64
	Turns    int64
	LastAt   string // the latest usage time ("YYYY-MM-DD HH:MM:SS"), "" when none was reported
	// DurationMS sums the durations the turns' Complete events reported.
	DurationMS    int64
	CostUSD       float64
	CostEstimated bool
	Models        []ModelUse // by cost, then name
}

// ModelUse is one model's share of a session.
type ModelUse struct {
	Model   string
	Backend string
	Turns   int64
	CostUSD float64
}

// TurnRow is one prompt of a session and what followed it up to the next
// prompt (turn 0: the events before the first prompt).
type TurnRow struct {
	Session    int64
	Turn       int64
	FirstSeq   int64
	LastSeq    int64
	Prompt     string // clipped to 300 characters
	ToolCalls  int64
	ToolErrors int64
	Success    *bool  // the turn's Complete; nil when it had none
	DurationMS *int64 // the turn's Complete; nil when it had none
	At         string // the turn's latest usage time; "" when none was reported
}

// storeTime turns a usage time (RFC 3339 or the store's format) into the
// store's "YYYY-MM-DD HH:MM:SS", so that times compare as text.
const storeTime = `substr(replace(%s, 'T', ' '), 1, 19)`

// Activity lists the sessions active since the time (a store time,
// "YYYY-MM-DD HH:MM:SS" or a prefix of it; "" for all): created then or
// later, or with usage reported then or later. Sessions come in id order.
func (ss SessionService) Activity(ctx context.Context, since string) ([]SessionActivity, error) {
	at := fmt.Sprintf(storeTime, "u.at")
	rows, err := ss.x.db.QueryContext(ctx, `WITH last AS (SELECT u.session, MAX(`+at+`) AS at, SUM(u.cost_usd) AS cost,
			MAX(u.cost_estimated) AS est FROM usage u GROUP BY u.session),
		dur AS (SELECT session, SUM(duration_ms) AS ms FROM turns GROUP BY session)
		SELECT s.id, s.created, s.worktree, s.name, s.events, s.turns, COALESCE(last.at, ''), COALESCE(dur.ms, 0),
			COALESCE(last.cost, 0), COALESCE(last.est, 0)
		FROM sessions s LEFT JOIN last ON last.session = s.id LEFT JOIN dur ON dur.session = s.id
		WHERE ?1 = '' OR s.created >= ?1 OR last.at >= ?1 ORDER BY s.id`, since)
	if err != nil {
		return nil, fmt.Errorf("activity of %s: %w", ss.x.st.Path(), err)
	}
	var out []SessionActivity
	byID := map[int64]int{}
	for rows.Next() {
		var a SessionActivity
		var est int64
		if err := rows.Scan(&a.ID, &a.Created, &a.Worktree, &a.Name, &a.Events, &a.Turns, &a.LastAt, &a.DurationMS,
			&a.CostUSD, &est); err != nil {
			rows.Close()
			return nil, fmt.Errorf("activity of %s: %w", ss.x.st.Path(), err)
		}
		a.CostEstimated = est != 0
		byID[a.ID] = len(out)
		out = append(out, a)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("activity of %s: %w", ss.x.st.Path(), err)
	}
	if err := ss.modelUse(ctx, out, byID); err != nil {
		return nil, fmt.Errorf("models of %s: %w", ss.x.st.Path(), err)
	}
	return out, nil
}

// modelUse fills in the models of the sessions listed.
func (ss SessionService) modelUse(ctx context.Context, list []SessionActivity, byID map[int64]int) error {
	rows, err := ss.x.db.QueryContext(ctx, `SELECT session, model, backend, COUNT(DISTINCT turn), SUM(cost_usd) FROM usage
		WHERE model != '' GROUP BY session, model, backend ORDER BY session, 5 DESC, model`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var m ModelUse
		if err := rows.Scan(&id, &m.Model, &m.Backend, &m.Turns, &m.CostUSD); err != nil {
			return err
		}
		if i, ok := byID[id]; ok {
			list[i].Models = append(list[i].Models, m)
		}
	}
	return rows.Err()
}

// Turns lists the turns of the sessions (in session and turn order),
// with the latest usage time of each.
func (ss SessionService) Turns(ctx context.Context, sessions []int64) ([]TurnRow, error) {
	if len(sessions) == 0 {
		return nil, nil
	}
	ids := make([]string, len(sessions))
	for i, id := range sessions {
		ids[i] = fmt.Sprint(id)
	}
	list := strings.Join(ids, ",")
	at := fmt.Sprintf(storeTime, "MAX(u.at)")
	rows, err := ss.x.db.QueryContext(ctx, `WITH ats AS (SELECT u.session, u.turn, `+at+` AS at FROM usage u
			WHERE u.session IN (`+list+`) GROUP BY 1, 2)
		SELECT t.session, t.turn, t.first_seq, t.last_seq, t.prompt, t.tool_calls, t.tool_errors, t.success, t.duration_ms,
			COALESCE(ats.at, '') FROM turns t LEFT JOIN ats ON ats.session = t.session AND ats.turn = t.turn
		WHERE t.session IN (`+list+`) ORDER BY t.session, t.turn`)
	if err != nil {
		return nil, fmt.Errorf("turns of %s: %w", ss.x.st.Path(), err)
	}
	defer rows.Close()
	var out []TurnRow
	for rows.Next() {
		var t TurnRow
		var ok sql.NullBool
		var ms sql.NullInt64
		if err := rows.Scan(&t.Session, &t.Turn, &t.FirstSeq, &t.LastSeq, &t.Prompt, &t.ToolCalls, &t.ToolErrors,
			&ok, &ms, &t.At); err != nil {
			return nil, fmt.Errorf("turns of %s: %w", ss.x.st.Path(), err)
		}
		if ok.Valid {
			t.Success = &ok.Bool
		}
		if ms.Valid {
			t.DurationMS = &ms.Int64
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// Days returns how many sessions started on each day (UTC
// "YYYY-MM-DD"), of all time (session 0: every session): what the
// Insights window reads to open on a range that holds them.
func (ss SessionService) Days(ctx context.Context, session int64) (map[string]int64, error) {
	rows, err := ss.x.db.QueryContext(ctx, `SELECT day, COUNT(*) FROM sessions WHERE ?1 = 0 OR id = ?1 GROUP BY 1`, session)
	if err != nil {
		return nil, fmt.Errorf("session days of %s: %w", ss.x.st.Path(), err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var day string
		var n int64
		if err := rows.Scan(&day, &n); err != nil {
			return nil, fmt.Errorf("session days of %s: %w", ss.x.st.Path(), err)
		}
		out[day] += n
	}
	return out, rows.Err()
}

// Heat counts the sessions started (created) since the day, by weekday
// (Monday first) and UTC hour; session 0 means every session.
func (ss SessionService) Heat(ctx context.Context, since string, session int64) ([7][24]int64, error) {
	var h [7][24]int64
	rows, err := ss.x.db.QueryContext(ctx, `SELECT (CAST(strftime('%w', created) AS INTEGER) + 6) % 7, CAST(strftime('%H', created) AS INTEGER), COUNT(*)
		FROM sessions WHERE day >= ?1 AND (?2 = 0 OR id = ?2) AND strftime('%w', created) IS NOT NULL GROUP BY 1, 2`, since, session)
	if err != nil {
		return h, fmt.Errorf("activity of %s: %w", ss.x.st.Path(), err)
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
