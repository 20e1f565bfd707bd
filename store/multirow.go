package store

import (
	"context"
	"database/sql"
	"strings"
)

// multiRowMax is the most rows execRows puts in one INSERT.
const multiRowMax = 16

// execRows inserts n rows with head ("INSERT INTO t(a, b) VALUES ") and one
// tuple ("(?, ?)") per row, in INSERTs of up to multiRowMax rows, then 8,
// 4, 2 and 1: per row, one statement run through database/sql and the
// driver cost more than the row itself. args appends row i's values to
// dst. The statements come from ctx's cache when it caches tx's.
func execRows(ctx context.Context, tx *sql.Tx, head, tuple string, n int, args func(dst []any, i int) []any) error {
	var vals []any
	for i := 0; i < n; {
		k := multiRowMax
		for k > n-i {
			k /= 2
		}
		stmt, release, err := prepare(ctx, tx, head+strings.Repeat(tuple+", ", k-1)+tuple)
		if err != nil {
			return err
		}
		vals = vals[:0]
		for j := i; j < i+k; j++ {
			vals = args(vals, j)
		}
		_, err = stmt.ExecContext(ctx, vals...)
		release()
		if err != nil {
			return err
		}
		i += k
	}
	return nil
}
