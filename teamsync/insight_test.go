package teamsync

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/insight"
)

// TestPushSendsInsight pushes a store with its insight index: the team's
// stats by session and by model total what the local index does, files
// and refs go up, and a re-push sends no session again.
func TestPushSendsInsight(t *testing.T) {
	_, url := testDB(t)
	db := connect(t, url)
	ctx := context.Background()
	st := openStore(t, genStore(t, t.TempDir(), 6, 1200, 13))
	o := opts("m")
	o.Insight = IndexInsight{}
	if _, err := Push(ctx, db, st, o); err != nil {
		t.Fatal(err)
	}
	x, err := insight.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for _, by := range []string{"model", "machine"} {
		local, err := x.Usage().Stats(ctx, insight.StatsQuery{By: map[string]insight.Grouping{"model": insight.ByModel, "machine": insight.ByTotal}[by]})
		if err != nil {
			t.Fatal(err)
		}
		team, err := db.Stats(ctx, by, "")
		if err != nil {
			t.Fatal(err)
		}
		if len(team) != len(local) || len(team) == 0 {
			t.Fatalf("by %s: team %+v, local %+v", by, team, local)
		}
		for i := range team {
			l, m := local[i], team[i]
			if by == "model" && m.Key != l.Key {
				t.Fatalf("by model: team key %q, local %q", m.Key, l.Key)
			}
			if m.Sessions != l.Sessions || m.Turns != l.Turns || m.Input != l.Input || m.Output != l.Output ||
				m.CacheRead != l.CacheRead || m.CacheWrite != l.CacheWrite || m.Input == 0 {
				t.Fatalf("by %s: team %+v, local %+v", by, m, l)
			}
			if d := m.CostUSD - l.CostUSD; d > 1e-6 || d < -1e-6 {
				t.Fatalf("by %s: team cost %v, local %v", by, m.CostUSD, l.CostUSD)
			}
		}
	}
	files, err := x.Files().List(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	refs, err := x.Refs().List(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	var nf, nr int
	if err := db.conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM lazuli_files), (SELECT count(*) FROM lazuli_refs)`).Scan(&nf, &nr); err != nil {
		t.Fatal(err)
	}
	if nf != len(files) || nr != len(refs) || nf == 0 {
		t.Fatalf("database has %d files and %d refs, the index %d and %d", nf, nr, len(files), len(refs))
	}
	bySession, err := db.Stats(ctx, "session", "")
	if err != nil || len(bySession) == 0 {
		t.Fatalf("stats by session: %v, %v", bySession, err)
	}
	id, _ := strconv.ParseInt(strings.TrimPrefix(bySession[0].Key, "T"), 10, 64)
	if one, err := db.SessionUsage(ctx, id); err != nil || one != bySession[0] {
		t.Fatalf("usage of T%d: %+v, %v; stats by session has %+v", id, one, err, bySession[0])
	}
	again, err := Push(ctx, db, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Sessions != 0 {
		t.Fatalf("re-push sent %d sessions again", again.Sessions)
	}
}
