package store

import (
	"context"
	"database/sql"
	"errors"
)

// txStatements caches the prepared statements of one write transaction,
// so that a transaction that writes many sessions (a native import of
// hundreds of small sessions) parses each statement once, not once per
// session. It lives in the context of the code that runs inside the
// transaction (withTxStatements); code running without one prepares and
// closes its statements as before.
type txStatements struct {
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	// created names the tables whose schema this transaction has applied.
	created map[string]bool
}

type txStatementsKey struct{}

// withTxStatements returns ctx carrying a statement cache for tx and the
// function that closes its statements (call it before tx ends).
func withTxStatements(ctx context.Context, tx *sql.Tx) (context.Context, func()) {
	c := &txStatements{tx: tx, stmts: map[string]*sql.Stmt{}, created: map[string]bool{}}
	return context.WithValue(ctx, txStatementsKey{}, c), func() {
		for _, s := range c.stmts {
			s.Close()
		}
	}
}

// cacheOf returns ctx's statement cache when it is tx's, else nil.
func cacheOf(ctx context.Context, tx *sql.Tx) *txStatements {
	c, _ := ctx.Value(txStatementsKey{}).(*txStatements)
	if c == nil || c.tx != tx {
		return nil
	}
	return c
}

// prepare returns query prepared in tx and the function that releases it:
// the cached statement (release does nothing) when ctx caches tx's
// statements, else a new one that release closes.
func prepare(ctx context.Context, tx *sql.Tx, query string) (*sql.Stmt, func(), error) {
	c := cacheOf(ctx, tx)
	if c == nil {
		s, err := tx.PrepareContext(ctx, query)
		if err != nil {
			return nil, nil, err
		}
		return s, func() { s.Close() }, nil
	}
	if s, ok := c.stmts[query]; ok {
		return s, func() {}, nil
	}
	s, err := tx.PrepareContext(ctx, query)
	if err != nil {
		return nil, nil, err
	}
	c.stmts[query] = s
	return s, func() {}, nil
}

// execCached runs query with args in tx, as a cached statement when ctx
// caches tx's statements.
func execCached(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if cacheOf(ctx, tx) == nil {
		return tx.ExecContext(ctx, query, args...)
	}
	s, _, err := prepare(ctx, tx, query)
	if err != nil {
		return nil, err
	}
	return s.ExecContext(ctx, args...)
}

// queryRowCached is QueryRowContext through the cache, as execCached.
func queryRowCached(ctx context.Context, tx *sql.Tx, query string, args ...any) *sql.Row {
	if cacheOf(ctx, tx) == nil {
		return tx.QueryRowContext(ctx, query, args...)
	}
	s, _, err := prepare(ctx, tx, query)
	if err != nil {
		return tx.QueryRowContext(ctx, query, args...) // reports err as the row's
	}
	return s.QueryRowContext(ctx, args...)
}

// schemaApplied reports whether ctx's cache for tx has seen table's schema
// applied, and marks it so; false without a cache.
func schemaApplied(ctx context.Context, tx *sql.Tx, table string) bool {
	c := cacheOf(ctx, tx)
	if c == nil {
		return false
	}
	done := c.created[table]
	c.created[table] = true
	return done
}

// requireSessionTx is requireSession in tx, through ctx's statement cache.
func requireSessionTx(ctx context.Context, tx *sql.Tx, id int64) error {
	var one int
	err := queryRowCached(ctx, tx, "SELECT 1 FROM sessions WHERE id = ?", id).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	return err
}
