package store

// What Lazuli's own tables share: whether a table exists, whether a
// session does, the rows of a table whose session is gone or was replaced
// (a session id AZUREAL reused), and the placeholders of an IN list.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// requireSession returns ErrNotFound when the session does not exist.
func requireSession(ctx context.Context, q querier, id int64) error {
	var one int
	err := q.QueryRowContext(ctx, "SELECT 1 FROM sessions WHERE id = ?", id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}

// hasTable reports whether the file has the table name.
func hasTable(ctx context.Context, q querier, name string) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name).Scan(&n)
	return n > 0, err
}

// inList returns "(?, ?, …)" for n parameters and ids as arguments.
func inList(ids []int64) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", len(ids)), ", ") + ")", args
}

// ownTable describes one of Lazuli's own tables for checkOwnTable.
type ownTable struct {
	name, code  string
	count       string // query: rows, and rows whose session is gone
	info, stale string // formats: (table, rows) and (stale rows, table)
}

// sessionRowsQuery is the ownTable count query of a table keyed by
// session_id and session_created, aliased alias.
func sessionRowsQuery(table, alias string) string {
	return `SELECT COUNT(*), COALESCE(SUM(NOT EXISTS (SELECT 1 FROM sessions s
		WHERE s.id = ` + alias + `.session_id AND s.created = ` + alias + `.session_created)), 0) FROM ` + table + " " + alias
}

// checkOwnTable reports table t, when the file has it: its rows as
// information, rows whose session is gone as a warning.
func checkOwnTable(ctx context.Context, q querier, fs *findings, t ownTable) error {
	ok, err := hasTable(ctx, q, t.name)
	if err != nil || !ok {
		return err
	}
	var total, stale int
	if err := q.QueryRowContext(ctx, t.count).Scan(&total, &stale); err != nil {
		return fmt.Errorf("check %s: %w", t.name, err)
	}
	fs.addN(SeverityInfo, t.code, total, fmt.Sprintf(t.info, t.name, total))
	if stale > 0 {
		fs.addN(SeverityWarning, t.code+"_stale", stale, fmt.Sprintf(t.stale, stale, t.name))
	}
	return nil
}
