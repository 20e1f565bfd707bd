package store

import (
	"context"
	"database/sql"
	"math"
	"strings"
)

// usageInsertSQL is the INSERT of lazuli_usage rows without its VALUES.
const usageInsertSQL = `INSERT INTO lazuli_usage(session_id, session_created, after_seq, at, source,
		message_id, model, backend, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd)
		VALUES `

// usageRowSQL is the VALUES of one lazuli_usage row (usageCols columns).
const (
	usageRowSQL = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	usageCols   = 14
)

// usageRowsSQL is the INSERT of n usage rows.
func usageRowsSQL(n int) string {
	return usageInsertSQL + strings.Repeat(usageRowSQL+", ", n-1) + usageRowSQL
}

// usageInserter inserts a session's usage rows insertBatch at a time in
// multi-row INSERTs: one statement per row cost an import with usage on
// every reply (Pi) as much as its events. The rows and their rowids are
// those one INSERT per row gives, in the same order.
type usageInserter struct {
	tx      *sql.Tx
	session int64
	created string
	seqOf   func(Usage) int64
	// cached: ctx caches tx's statements, so a tail is split into INSERTs
	// of 16, 8, 4, 2 and 1 rows (few statements to keep); else the tail
	// is one INSERT of its size.
	cached  bool
	stmts   map[int]*sql.Stmt
	release []func()
	args    []any
}

// insert inserts usage, in order.
func (w *usageInserter) insert(ctx context.Context, usage []Usage) error {
	for len(usage) > 0 {
		n := min(insertBatch, len(usage))
		if w.cached && n < insertBatch {
			for n = insertBatch / 2; n > len(usage); n /= 2 {
			}
		}
		stmt, err := w.stmt(ctx, n)
		if err != nil {
			return err
		}
		w.args = w.args[:0]
		for _, u := range usage[:n] {
			w.args = appendUsageArgs(w.args, w.session, w.created, w.seqOf(u), u)
		}
		if _, err := stmt.ExecContext(ctx, w.args...); err != nil {
			return err
		}
		usage = usage[n:]
	}
	return nil
}

// stmt returns the INSERT of n rows.
func (w *usageInserter) stmt(ctx context.Context, n int) (*sql.Stmt, error) {
	if s, ok := w.stmts[n]; ok {
		return s, nil
	}
	s, release, err := prepare(ctx, w.tx, usageRowsSQL(n))
	if err != nil {
		return nil, err
	}
	if w.stmts == nil {
		w.stmts = map[int]*sql.Stmt{}
	}
	w.stmts[n], w.release = s, append(w.release, release)
	return s, nil
}

func (w *usageInserter) close() {
	for _, r := range w.release {
		r()
	}
}

// appendUsageArgs appends the usageCols values of u's row.
func appendUsageArgs(args []any, session int64, created string, afterSeq int64, u Usage) []any {
	var cost any
	if u.HasCost && !math.IsNaN(u.CostUSD) && !math.IsInf(u.CostUSD, 0) {
		cost = u.CostUSD
	}
	return append(args, session, created, afterSeq, u.At, u.Source, u.MessageID, u.Model, u.Backend,
		max(u.Input, 0), max(u.Output, 0), max(u.CacheRead, 0), max(u.CacheWrite, 0), max(u.Reasoning, 0), cost)
}
