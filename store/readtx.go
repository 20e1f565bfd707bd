package store

// A read transaction whose large reads bypass database/sql's row copying,
// and the seq bounds every range read uses.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"math"
)

// readTx is a read transaction on a connection of its own, whose driver a
// large read uses directly (see scanRaw).
type readTx struct {
	*sql.Tx
	conn *sql.Conn
}

// beginRead starts a read transaction on a connection of db.
func beginRead(ctx context.Context, db *sql.DB) (*readTx, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		_ = conn.Close() // the begin error is the one to report
		return nil, err
	}
	return &readTx{Tx: tx, conn: conn}, nil
}

// end ends the transaction and returns the connection to the pool.
func (t *readTx) end() {
	_ = t.Rollback()   // read-only: nothing to lose
	_ = t.conn.Close() // returns it to the pool
}

// scanRaw runs query in t's transaction and hands its rows to scan, reading
// them through the driver rather than database/sql: for the tens of
// thousands of rows of a large session, database/sql's locking and
// conversions per row cost about a tenth of the load.
func (t *readTx) scanRaw(ctx context.Context, query string, args []any, scan func(driver.Rows) (int, error)) (n int, err error) {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	err = t.conn.Raw(func(dc any) error {
		qc, ok := dc.(driver.QueryerContext)
		if !ok {
			return errors.New("the database driver cannot run queries directly")
		}
		rows, err := qc.QueryContext(ctx, query, named)
		if err != nil {
			return err
		}
		n, err = scan(rows)
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		return err
	})
	return n, err
}

// Bounds for Events().Range.
const (
	minSeq = math.MinInt64
	maxSeq = math.MaxInt64
)
