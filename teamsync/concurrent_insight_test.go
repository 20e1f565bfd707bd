package teamsync

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"

	"github.com/lazuli-app/lazuli/insight"
)

// TestConcurrentPushesOneStoreInsight: many processes push one store at
// once, each bringing the store's one insight index up to date (issue 28,
// item 8: 2 of 7 failed with "database is locked"). None fails; the index
// then counts every event once, as one rebuilt alone does.
func TestConcurrentPushesOneStoreInsight(t *testing.T) {
	_, url := testDB(t)
	ctx := context.Background()
	path := genStore(t, t.TempDir(), 12, 3000, 21)
	// The events are in the database already (a push without the index),
	// so that the pushers below reach the index together.
	if _, err := Push(ctx, connect(t, url), openStore(t, path), opts("m")); err != nil {
		t.Fatal(err)
	}
	const pushers = 8
	var wg sync.WaitGroup
	outs := make([][]byte, pushers)
	errs := make([]error, pushers)
	for i := range pushers {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"=1", childURL+"="+url, childStore+"="+path, childInsight+"=1")
		wg.Go(func() { outs[i], errs[i] = cmd.CombinedOutput() })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("pusher %d: %v: %s", i, err, outs[i])
		}
	}
	st := openStore(t, path)
	x, err := insight.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	got := insightDigest(t, x)
	if _, err := x.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if want := insightDigest(t, x); got != want {
		t.Fatalf("index after concurrent pushes = %s, want %s (as rebuilt alone)", got, want)
	}
}

// insightDigest is what an insight index totals: sessions, turns, tokens
// and cost, and its files' rows and counts.
func insightDigest(t *testing.T, x *insight.Index) string {
	t.Helper()
	rows, err := x.Usage().Stats(context.Background(), insight.StatsQuery{By: insight.BySession})
	if err != nil {
		t.Fatal(err)
	}
	var turns, tokens int64
	var cost float64
	for _, r := range rows {
		turns += r.Turns
		tokens += r.Input + r.Output + r.CacheRead + r.CacheWrite + r.Reasoning
		cost += r.CostUSD
	}
	files, err := x.Files().List(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, f := range files {
		n += f.Count
	}
	return fmt.Sprintf("%d sessions, %d turns, %d tokens, $%.4f, %d files touched %d times", len(rows), turns, tokens, cost, len(files), n)
}
