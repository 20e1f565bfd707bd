package insight

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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

// TestSQLSourceOfReadsWhatStoreReads: over a store another program left
// in WAL mode with commits only in its WAL file, RunSQL (through
// SQLSourceOf) sees those commits and changes no file in the store's
// folder: it reads the copy the store reads, not the file, which any
// SQLite connection would give a -shm index.
func TestSQLSourceOfReadsWhatStoreReads(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t)
	fill(t, st, 1, 1)
	path := st.Path()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{"PRAGMA journal_mode = WAL", "PRAGMA wal_autocheckpoint = 0",
		"INSERT INTO sessions(worktree, name) VALUES ('main', 'in the WAL')"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	x := mustIndex(t, st)
	folder := func() string {
		entries, err := os.ReadDir(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(filepath.Dir(path), e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, fmt.Sprintf("%s %x", e.Name(), sha256.Sum256(data)))
		}
		return strings.Join(out, "\n")
	}
	before := folder()
	src, err := SQLSourceOf(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunSQL(ctx, []SQLSource{src}, "SELECT COUNT(*) FROM s0.sessions", 10, time.Hour)
	if err != nil || len(res.Rows) != 1 || fmt.Sprint(res.Rows[0][0]) != "2" {
		t.Errorf("RunSQL = %+v, %v; want 2 sessions", res, err)
	}
	if after := folder(); after != before {
		t.Errorf("RunSQL changed the store's folder:\n%s\nwas\n%s", after, before)
	}
}

// TestRunSQLReturnsByTwiceTheBudget: a query stuck inside one step of
// SQLite's program, where no interruption is looked at (here decode(),
// held by the test; in life a function call on a large value), does not
// hold RunSQL past twice its budget: it says the query was interrupted.
func TestRunSQLReturnsByTwiceTheBudget(t *testing.T) {
	st := mustOpenStore(t)
	fill(t, st, 1, 1)
	x := mustIndex(t, st)
	release := make(chan struct{})
	hold := func() { <-release }
	decodeHook.Store(&hold)
	defer decodeHook.Store(nil)
	defer close(release)
	returned := make(chan error, 1)
	go func() {
		_, err := RunSQL(context.Background(), []SQLSource{{Store: st.Path(), Index: x.Path()}},
			"SELECT decode(data) FROM s0.events", 10, 10*time.Millisecond)
		returned <- err
	}()
	select {
	case err := <-returned:
		if err == nil || !strings.Contains(err.Error(), "interrupted after 10ms") {
			t.Errorf("RunSQL = %v, want interrupted after 10ms", err)
		}
	case <-time.After(time.Minute): // the query is held for ever: only a RunSQL that does not wait for it returns
		t.Fatal("RunSQL waited for a query stuck in one step")
	}
}

// TestRunSQLMemoryLimit: a row of many large values, each within
// MaxSQLValue, stops with ErrSQLTooLarge once the process's memory has
// grown by more than WithMemoryLimit, before SQLite has made the whole row
// (the answer's own cap would only see it after).
func TestRunSQLMemoryLimit(t *testing.T) {
	st := mustOpenStore(t)
	fill(t, st, 1, 1)
	x := mustIndex(t, st)
	sources := []SQLSource{{Store: st.Path(), Index: x.Path()}}
	q := "SELECT " + strings.Repeat("printf('%.*c', 30000000, 'x'), ", 20) + "1"
	_, err := RunSQL(context.Background(), sources, q, 10, time.Hour, WithMemoryLimit(256<<20))
	if !errors.Is(err, ErrSQLTooLarge) || !strings.Contains(err.Error(), "more than 256 MB of memory") {
		t.Fatalf("RunSQL(%q) = %v, want ErrSQLTooLarge for memory", q, err)
	}
}

// TestRunSQLRefusesPragmaAndAttach: the authorizer refuses PRAGMA (reading
// or setting) and ATTACH/DETACH with ErrRefused naming the action, before
// SQLite runs them: no file is attached or created and the sources do not
// change; a SELECT still answers.
func TestRunSQLRefusesPragmaAndAttach(t *testing.T) {
	st := mustOpenStore(t)
	fill(t, st, 1, 2)
	x := mustIndex(t, st)
	sources := []SQLSource{{Store: st.Path(), Index: x.Path()}}
	other := filepath.Join(t.TempDir(), "other.db")
	hash := func(path string) [32]byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return sha256.Sum256(b)
	}
	before := map[string][32]byte{st.Path(): hash(st.Path()), x.Path(): hash(x.Path())}
	for _, tt := range []struct {
		query, want string // want: the refusal's action, in the error
	}{
		{"PRAGMA query_only = 0", "(PRAGMA query_only"},
		{"PRAGMA s0.user_version", "(PRAGMA user_version"},
		{"PRAGMA s0.user_version = 7", "(PRAGMA user_version"},
		{"PRAGMA writable_schema = 1", "(PRAGMA writable_schema"},
		{"PRAGMA x0.journal_mode = DELETE", "(PRAGMA journal_mode"},
		{"PRAGMA table_info(sessions)", "(PRAGMA table_info"},
		{"SELECT * FROM pragma_table_info('sessions')", "(PRAGMA table_info"},
		{"ATTACH DATABASE '" + other + "' AS o", "(ATTACH"},
		{"ATTACH DATABASE ':memory:' AS m", "(ATTACH"},
		{"DETACH DATABASE s0", "(DETACH"},
	} {
		res, err := RunSQL(context.Background(), sources, tt.query, 10, time.Hour)
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("RunSQL(%q) = %+v, %v, want ErrRefused with %q", tt.query, res, err, tt.want)
		}
	}
	if _, err := os.Stat(other); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat(%q) = %v, want not exist: ATTACH created it", other, err)
	}
	for p, h := range before {
		if hash(p) != h {
			t.Errorf("%s changed", p)
		}
	}
	if res, err := RunSQL(context.Background(), sources, "SELECT COUNT(*) FROM s0.sessions", 10, time.Hour); err != nil || len(res.Rows) != 1 {
		t.Errorf("RunSQL(SELECT) = %+v, %v, want one row", res, err)
	}
}
