package insight

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestRunSQLStopsLargeValues: a query that would make a value or an
// answer of hundreds of megabytes stops at once with ErrSQLTooLarge and a
// one-line reason, instead of allocating it (before the budget was looked
// at); ordinary queries still answer.
func TestRunSQLStopsLargeValues(t *testing.T) {
	st := mustOpenStore(t)
	fill(t, st, 1, 2)
	x := mustIndex(t, st)
	sources := []SQLSource{{Store: st.Path(), Index: x.Path()}}
	for _, tt := range []struct {
		name, query string
		want        string // in the error; "" for an answer
	}{
		{"OK", "SELECT COUNT(*), MAX(LENGTH(json)) FROM events", ""},
		{"SmallValue", "SELECT LENGTH(zeroblob(1000000))", ""},
		{"HexZeroblob", "SELECT hex(zeroblob(250000000))", "a value larger than"},
		{"Printf", "SELECT printf('%.*c', 999999999, 'x')", "a value larger than"},
		{"Randomblob", "SELECT randomblob(999999999)", "a value larger than"},
		{"Zeroblob", "SELECT zeroblob(999999999)", "a value larger than"},
		{"Replace", "SELECT replace(printf('%.*c', 1000000, 'x'), 'x', printf('%.*c', 1000, 'y'))", "a value larger than"},
		{"GroupConcat", "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100) SELECT group_concat(printf('%.*c', 1000000, 'x')) FROM c", "a value larger than"},
		{"ManyRows", "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT printf('%.*c', 30000000, 'x') FROM c", "the result is larger than"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := RunSQL(context.Background(), sources, tt.query, 1000, time.Hour)
			if tt.want == "" {
				if err != nil || len(res.Rows) == 0 {
					t.Fatalf("RunSQL(%q) = %+v, %v, want rows", tt.query, res, err)
				}
				return
			}
			if !errors.Is(err, ErrSQLTooLarge) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("RunSQL(%q) = %v, want ErrSQLTooLarge saying %q on one line", tt.query, err, tt.want)
			}
		})
	}
}
