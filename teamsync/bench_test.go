package teamsync

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/internal/cputime"
	"github.com/lazuli-app/lazuli/internal/genstore"
	"github.com/lazuli-app/lazuli/internal/pgtest"
	"github.com/lazuli-app/lazuli/search"
)

// BenchmarkTeamScale pushes a generated store from scratch into a new
// database on a server of its own (on this machine), then measures a
// re-push with nothing new, team search and team ls. The store is
// $LAZULI_TEAM_BENCH_STORE when set (the 1 GB store of
// scripts/bench-scale.sh -generate-only), else one generated with
// $LAZULI_TEAM_BENCH_EVENTS events (default 100,000) in 2,000 sessions.
// Besides the times, it reports the processor time the push took in this
// process and in the server: on a machine shared with other work (as the
// 2-core machine of BENCHMARKS.md is), the wall time says as much about
// the others' load as about the push.
// Run it once: go test -run '^$' -bench TeamScale -benchtime 1x ./teamsync/
func BenchmarkTeamScale(b *testing.B) {
	ctx := context.Background()
	path := os.Getenv("LAZULI_TEAM_BENCH_STORE")
	if path == "" {
		events := 100_000
		if n, err := strconv.Atoi(os.Getenv("LAZULI_TEAM_BENCH_EVENTS")); err == nil && n > 0 {
			events = n
		}
		path = filepath.Join(b.TempDir(), "bench.azs")
		if _, err := genstore.Create(ctx, path, genstore.Options{Sessions: 2000, Events: events, Seed: 1}, false); err != nil {
			b.Fatal(err)
		}
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	srv, err := pgtest.New()
	if err != nil {
		pgtest.Missing(b, err)
	}
	defer srv.Close()
	url := srv.URL(srv.CreateDB(b), pgtest.Superuser)
	st := openStore(b, path)
	// The push writes its store id into the file's meta table: give a copy.
	db, err := Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for b.Loop() {
		client0, server0 := processCPU(b), serverCPU(b, srv)
		start := time.Now()
		rep, err := Push(ctx, db, st, Options{Machine: "bench", User: "bench", Repository: "repo"})
		if err != nil {
			b.Fatal(err)
		}
		full := time.Since(start)
		clientCPU, srvCPU := processCPU(b)-client0, serverCPU(b, srv)-server0
		start = time.Now()
		again, err := Push(ctx, db, st, Options{Machine: "bench", User: "bench", Repository: "repo"})
		if err != nil {
			b.Fatal(err)
		}
		re := time.Since(start)
		if again.Events != 0 || again.Sessions != 0 {
			b.Fatalf("re-push sent %+v", again)
		}
		// Searches and listings run on a settled database, as a team's is
		// between pushes: the bulk load vacuumed and analyzed (autovacuum
		// does it a while after a large push; right after one, the chunks'
		// index still has its pending list and the planner no statistics).
		if _, err := db.conn.Exec(ctx, `VACUUM (ANALYZE) lazuli_events, lazuli_event_chunks, lazuli_sessions`); err != nil {
			b.Fatal(err)
		}
		var took []time.Duration
		partial := 0
		for _, q := range []string{"panic", "TestParse", "handler", "cannot find", "race detected", "timeout", "config.go", "deadlock", "retry", "fixture", "needle", "schema"} {
			start := time.Now()
			res, err := db.Search(ctx, q, search.Options{Limit: 50, Budget: SearchBudget})
			if err != nil {
				b.Fatal(err)
			}
			if res.Partial {
				partial++
			}
			took = append(took, time.Since(start))
		}
		slices.Sort(took)
		var ls []time.Duration
		for range 5 {
			start := time.Now()
			list, err := db.List(ctx, Filter{})
			if err != nil {
				b.Fatal(err)
			}
			ls = append(ls, time.Since(start))
			if len(list) == 0 {
				b.Fatal("no sessions listed")
			}
		}
		slices.Sort(ls)
		b.ReportMetric(float64(rep.Events), "events")
		b.ReportMetric(float64(fi.Size())/1e6, "store-MB")
		b.ReportMetric(full.Seconds(), "push-s")
		b.ReportMetric(float64(rep.Events)/full.Seconds(), "events/s")
		b.ReportMetric(clientCPU.Seconds(), "push-client-cpu-s")
		b.ReportMetric(srvCPU.Seconds(), "push-server-cpu-s")
		b.ReportMetric(float64(re.Milliseconds()), "repush-ms")
		b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "search-p50-ms")
		b.ReportMetric(float64(took[len(took)-1].Microseconds())/1000, "search-max-ms")
		b.ReportMetric(float64(partial), "search-partial")
		b.ReportMetric(float64(ls[len(ls)/2].Microseconds())/1000, "ls-ms")
	}
}

// processCPU is the processor time this process has used.
func processCPU(*testing.B) time.Duration { return cputime.Process() }

// serverCPU is the processor time the server has used.
func serverCPU(b *testing.B, srv *pgtest.Server) time.Duration {
	d, err := srv.CPU()
	if err != nil {
		b.Fatal(err)
	}
	return d
}
