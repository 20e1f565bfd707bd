package store

import (
	"context"
	"database/sql"
	"errors"
	"testing"
)

// execRows inserts every row, in order, for any count: whole INSERTs of
// multiRowMax rows and the smaller ones of the rest.
func TestExecRows(t *testing.T) {
	s := mustOpen(t)
	mustCreateSession(t, s, "main", "x") // the file exists
	rollback := errors.New("roll back")
	for _, n := range []int{0, 1, 2, 3, 15, 16, 17, 31, 33, 40} {
		err := s.writeTx(context.Background(), false, func(tx *sql.Tx) error {
			if _, err := tx.Exec("CREATE TABLE t (a INTEGER, b TEXT)"); err != nil {
				return err
			}
			err := execRows(context.Background(), tx, "INSERT INTO t(a, b) VALUES ", "(?, ?)", n, func(dst []any, i int) []any {
				return append(dst, i, "row")
			})
			if err != nil {
				return err
			}
			rows, err := tx.Query("SELECT a FROM t ORDER BY rowid")
			if err != nil {
				return err
			}
			defer rows.Close()
			i := 0
			for ; rows.Next(); i++ {
				var a int
				if err := rows.Scan(&a); err != nil || a != i {
					t.Errorf("n=%d: row %d holds %d, %v", n, i, a, err)
				}
			}
			if i != n {
				t.Errorf("n=%d: %d rows inserted", n, i)
			}
			return rollback
		})
		if !errors.Is(err, rollback) {
			t.Fatalf("n=%d: %v", n, err)
		}
	}
}
