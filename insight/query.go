package insight

import (
	"context"
	"fmt"
)

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
