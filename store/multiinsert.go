package store

import (
	"context"
	"database/sql"
	"math"
	"strings"
)

// multiInserter inserts rows of one table insertBatch at a time in
// multi-row INSERTs: one statement per row cost an import with usage on
// nearly every reply and many shortened tool results (Pi) as much as its
// events. The rows, and the rowids they get, are those one INSERT per row
// gives in the same order.
type multiInserter struct {
	tx *sql.Tx
	// insert is the statement without its VALUES, row the VALUES of one row.
	insert, row string
	// cached: ctx caches tx's statements, so a tail is split into INSERTs
	// of 16, 8, 4, 2 and 1 rows (few statements to keep); else the tail
	// is one INSERT of its size.
	cached  bool
	stmts   map[int]*sql.Stmt
	release []func()
	args    []any
}

// newMultiInserter returns the inserter of query (without VALUES) with
// rows of the form row, "(?, ...)".
func newMultiInserter(ctx context.Context, tx *sql.Tx, query, row string) *multiInserter {
	return &multiInserter{tx: tx, insert: query + " VALUES ", row: row, cached: cacheOf(ctx, tx) != nil}
}

// rows inserts n rows, appendArgs appending the values of row i.
func (w *multiInserter) rows(ctx context.Context, n int, appendArgs func(args []any, i int) []any) error {
	for i := 0; i < n; {
		k := min(insertBatch, n-i)
		if w.cached && k < insertBatch {
			for k = insertBatch / 2; k > n-i; k /= 2 {
			}
		}
		stmt, err := w.stmt(ctx, k)
		if err != nil {
			return err
		}
		w.args = w.args[:0]
		for j := i; j < i+k; j++ {
			w.args = appendArgs(w.args, j)
		}
		if _, err := stmt.ExecContext(ctx, w.args...); err != nil {
			return err
		}
		i += k
	}
	return nil
}

// stmt returns the INSERT of n rows.
func (w *multiInserter) stmt(ctx context.Context, n int) (*sql.Stmt, error) {
	if s, ok := w.stmts[n]; ok {
		return s, nil
	}
	s, release, err := prepare(ctx, w.tx, w.insert+strings.Repeat(w.row+", ", n-1)+w.row)
	if err != nil {
		return nil, err
	}
	if w.stmts == nil {
		w.stmts = map[int]*sql.Stmt{}
	}
	w.stmts[n], w.release = s, append(w.release, release)
	return s, nil
}

// close releases the statements.
func (w *multiInserter) close() {
	for _, r := range w.release {
		r()
	}
	w.stmts, w.release = nil, nil
}

// usageInsertSQL is the INSERT of lazuli_usage rows, without VALUES.
const usageInsertSQL = `INSERT INTO lazuli_usage(session_id, session_created, after_seq, at, source,
		message_id, model, backend, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd)`

// insertUsageValues inserts usage rows of a session (created is its
// created text), each after the seq that seqOf gives it.
func insertUsageValues(ctx context.Context, tx *sql.Tx, session int64, created string, usage []Usage, seqOf func(Usage) int64) error {
	w := newMultiInserter(ctx, tx, usageInsertSQL, "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
	defer w.close()
	return w.rows(ctx, len(usage), func(args []any, i int) []any {
		u := usage[i]
		var cost any
		if u.HasCost && !math.IsNaN(u.CostUSD) && !math.IsInf(u.CostUSD, 0) {
			cost = u.CostUSD
		}
		return append(args, session, created, seqOf(u), u.At, u.Source, u.MessageID, u.Model, u.Backend,
			max(u.Input, 0), max(u.Output, 0), max(u.CacheRead, 0), max(u.CacheWrite, 0), max(u.Reasoning, 0), cost)
	})
}
