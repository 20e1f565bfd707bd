package scale

import (
	"context"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/store"
)

// tailRows is how many of the newest rows the tail load reads: more than a
// window shows.
const tailRows = 200

// BenchmarkLoadBig loads the store's biggest session (50,000 events in the
// generated store) with a new Store each time, so that nothing is cached:
//
//   - full: Events().All, what the window does when a session is opened;
//   - tail: Load of the newest tailRows rows, the first rows a reader sees;
//   - azureal: the baseline, AZUREAL's load_events (LoadAZUREAL): every
//     payload read, then decompressed with a new zstd decoder and parsed.
func BenchmarkLoadBig(b *testing.B) {
	path := storePath(b)
	id, n := bigSession(b, path)
	ctx := context.Background()
	run := func(b *testing.B, load func(st *store.Store) int) {
		var s samples
		got := 0
		for b.Loop() {
			st, err := store.Open(ctx, path)
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			got = load(st)
			s = append(s, time.Since(start))
			st.Close()
		}
		s.report(b, "load")
		b.ReportMetric(float64(got), "events")
	}
	b.Run("full", func(b *testing.B) {
		run(b, func(st *store.Store) int {
			evs, err := st.Events().All(ctx, id)
			if err != nil || int64(len(evs)) != n {
				b.Fatalf("LoadEvents(S%d) = %d events, %v; want %d", id, len(evs), err, n)
			}
			return len(evs)
		})
	})
	b.Run("tail", func(b *testing.B) {
		run(b, func(st *store.Store) int {
			r, err := st.Events().Load(ctx, id, n-tailRows+1, 0)
			if err != nil || len(r.Events) != tailRows {
				b.Fatalf("Load(S%d, %d, 0) = %d events, %v; want %d", id, n-tailRows+1, len(r.Events), err, tailRows)
			}
			return len(r.Events)
		})
	})
	b.Run("azureal", func(b *testing.B) {
		var s samples
		got := 0
		for b.Loop() {
			db, err := OpenBaseline(path)
			if err != nil {
				b.Fatal(err)
			}
			if err := db.PingContext(ctx); err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			got, err = LoadAZUREAL(ctx, db, id)
			s = append(s, time.Since(start))
			db.Close()
			if err != nil || int64(got) != n {
				b.Fatalf("LoadAZUREAL(S%d) = %d events, %v; want %d", id, got, err, n)
			}
		}
		s.report(b, "load")
		b.ReportMetric(float64(got), "events")
	})
}
