package teamsync

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lazuli-app/lazuli/internal/genstore"
	"github.com/lazuli-app/lazuli/internal/pgtest"
	"github.com/lazuli-app/lazuli/internal/testcache"
	"github.com/lazuli-app/lazuli/store"
)

// One server serves the package's tests (each test gets a database of its
// own); tests that stop or restart a server start one of their own.
var (
	sharedOnce sync.Once
	shared     *pgtest.Server
	sharedErr  error
)

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(childMain())
	}
	code := testcache.Run(m)
	if shared != nil {
		shared.Close()
	}
	os.Exit(code)
}

// testDB returns the URL of a new, empty database on the shared server.
func testDB(t *testing.T) (*pgtest.Server, string) {
	t.Helper()
	sharedOnce.Do(func() { shared, sharedErr = pgtest.New() })
	if sharedErr != nil {
		pgtest.Missing(t, sharedErr)
	}
	return shared, shared.URL(shared.CreateDB(t), pgtest.Superuser)
}

func connect(t *testing.T, url string) *DB {
	t.Helper()
	db, err := Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// genStore writes a generated store of sessions and events into dir.
func genStore(t testing.TB, dir string, sessions, events int, seed uint64) string {
	t.Helper()
	path := filepath.Join(dir, "sessions.azs")
	if _, err := genstore.Create(context.Background(), path, genstore.Options{Sessions: sessions, Events: events, Seed: seed}, false); err != nil {
		t.Fatal(err)
	}
	return path
}

func openStore(t testing.TB, path string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func opts(machine string) Options {
	return Options{Machine: machine, User: "tester", Repository: "repo"}
}

// counts is what a database holds for one store.
type counts struct {
	Sessions, Events, Compactions int64
	EventIDs, Distinct            int64  // sum of event ids, distinct (store, id) pairs
	Digest                        string // session ids, names and event counts
}

func dbCounts(t *testing.T, db *DB, storeID string) counts {
	t.Helper()
	var c counts
	ctx := context.Background()
	q := func(sql string, dst ...any) {
		if err := db.conn.QueryRow(ctx, sql, storeID).Scan(dst...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	q(`SELECT count(*) FROM lazuli_sessions WHERE store_id = $1`, &c.Sessions)
	q(`SELECT count(*), coalesce(sum(event_id), 0), count(DISTINCT event_id) FROM lazuli_events WHERE store_id = $1`, &c.Events, &c.EventIDs, &c.Distinct)
	q(`SELECT count(*) FROM lazuli_compactions WHERE store_id = $1`, &c.Compactions)
	q(`SELECT coalesce(string_agg(session_id || ':' || name || ':' || event_count, ',' ORDER BY session_id), '') FROM lazuli_sessions WHERE store_id = $1`, &c.Digest)
	return c
}

// localCounts is what a store holds.
func localCounts(t *testing.T, st *store.Store) counts {
	t.Helper()
	ctx := context.Background()
	var c counts
	list, err := st.Sessions().List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	c.Sessions = int64(len(list))
	var digest []string
	for _, s := range list {
		digest = append(digest, fmt.Sprintf("%d:%s:%d", s.ID, s.Name, s.EventCount))
		c.Events += s.EventCount
		comps, err := st.Compactions().Of(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		c.Compactions += int64(len(comps))
	}
	err = st.Scan().Events(ctx, store.ScanOptions{}, func(evs []store.ScannedEvent) error {
		for _, e := range evs {
			c.EventIDs += e.ID
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	c.Distinct = c.Events
	slices.SortFunc(digest, func(a, b string) int {
		var x, y int
		fmt.Sscanf(a, "%d", &x)
		fmt.Sscanf(b, "%d", &y)
		return x - y
	})
	c.Digest = strings.Join(digest, ",")
	return c
}
