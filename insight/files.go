package insight

import (
	"context"
	"fmt"
	"strings"
)

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

// List lists the files of session (0: every session), most recent first.
func (fs FileService) List(ctx context.Context, session int64) ([]FileRow, error) {
	return fs.Newest(ctx, session, -1)
}

// Newest is List that stops after limit rows (-1: all).
func (fs FileService) Newest(ctx context.Context, session int64, limit int) ([]FileRow, error) {
	return fs.newest(ctx, session, limit, false)
}

// NewestChanges is Newest without the reads: the files the sessions
// edited, wrote, created or deleted, the newest first (`lazuli files
// --recent`).
func (fs FileService) NewestChanges(ctx context.Context, session int64, limit int) ([]FileRow, error) {
	return fs.newest(ctx, session, limit, true)
}

func (fs FileService) newest(ctx context.Context, session int64, limit int, changes bool) ([]FileRow, error) {
	// Without a session the newest rows come from the index on
	// last_event; "? = 0 OR" would hide it from the planner.
	var conds []string
	var args []any
	if session != 0 {
		conds, args = append(conds, "f.session = ?"), append(args, session)
	}
	if changes {
		// A fork's copies of its parent's changes are not changes it made.
		copied, err := forkCopies(ctx, fs.x.st)
		if err != nil {
			return nil, fmt.Errorf("files of %s: %w", fs.x.st.Path(), err)
		}
		conds = append(conds, "f.action <> ?", "f.last_seq > COALESCE((SELECT c.value FROM json_each(?) c WHERE c.key = CAST(f.session AS TEXT)), 0)")
		args = append(args, ActionRead, copied)
	}
	where := ""
	if len(conds) > 0 {
		where = "WHERE " + strings.Join(conds, " AND ")
	}
	args = append(args, limit)
	rows, err := fs.x.db.QueryContext(ctx, `SELECT 'S' || f.session, s.worktree, f.path, f.action, f.count, f.first_seq, f.last_seq,
		f.first_event, f.last_event FROM files f JOIN sessions s ON s.id = f.session
		`+where+` ORDER BY f.last_event DESC, f.path, f.action LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("files of %s: %w", fs.x.st.Path(), err)
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

// PathCount is a file and how often the sessions touched it.
type PathCount struct {
	Path  string
	Count int64
}

// Top sums, per path, the touches of the sessions created since the
// day (session 0: every session) and returns the n most touched, most
// first (ties by path).
func (fs FileService) Top(ctx context.Context, since string, session int64, n int) ([]PathCount, error) {
	query, args := `SELECT f.path, SUM(f.count) FROM files f JOIN sessions s ON s.id = f.session
		WHERE s.day >= ? AND (? = 0 OR s.id = ?) GROUP BY f.path ORDER BY 2 DESC, 1 LIMIT ?`, []any{since, session, session, n}
	if since == "" && session == 0 { // every row: no need to look up each one's session
		query, args = `SELECT path, SUM(count) FROM files GROUP BY path ORDER BY 2 DESC, 1 LIMIT ?`, []any{n}
	}
	rows, err := fs.x.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("top files of %s: %w", fs.x.st.Path(), err)
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

// Churn is a file changed many times in one session.
type Churn struct {
	Session  int64
	Path     string
	Count    int64 // edits, writes, creations and deletions
	FirstSeq int64
	LastSeq  int64
}

// Churned lists the files some session changed at least min times, in
// session and path order.
func (fs FileService) Churned(ctx context.Context, min int64) ([]Churn, error) {
	rows, err := fs.x.db.QueryContext(ctx, `SELECT session, path, SUM(count), MIN(first_seq), MAX(last_seq) FROM files
		WHERE action != 'read' GROUP BY session, path HAVING SUM(count) >= ? ORDER BY session, path`, min)
	if err != nil {
		return nil, fmt.Errorf("churned files of %s: %w", fs.x.st.Path(), err)
	}
	defer rows.Close()
	var out []Churn
	for rows.Next() {
		var c Churn
		if err := rows.Scan(&c.Session, &c.Path, &c.Count, &c.FirstSeq, &c.LastSeq); err != nil {
			return nil, fmt.Errorf("churned files of %s: %w", fs.x.st.Path(), err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Change is what one session did to one file with one action.
type Change struct {
	Session int64
	Path    string
	Action  string // edit, write, create or delete
	Count   int64
	LastSeq int64
}

// Changes lists every file change of every session (reads left out), in
// session, path and action order: one query for a report over many
// sessions.
func (fs FileService) Changes(ctx context.Context) ([]Change, error) {
	rows, err := fs.x.db.QueryContext(ctx, `SELECT session, path, action, count, last_seq FROM files
		WHERE action != 'read' ORDER BY session, path, action`)
	if err != nil {
		return nil, fmt.Errorf("changes of %s: %w", fs.x.st.Path(), err)
	}
	defer rows.Close()
	var out []Change
	for rows.Next() {
		var c Change
		if err := rows.Scan(&c.Session, &c.Path, &c.Action, &c.Count, &c.LastSeq); err != nil {
			return nil, fmt.Errorf("changes of %s: %w", fs.x.st.Path(), err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}
