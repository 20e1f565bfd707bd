package teamsync

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// TestTwoMachinesListShowSearchPull pushes two stores as two machines and
// reads them back: both in one listing, each transcript as the local one,
// a search across both, stats, and a pull that copies payloads byte for
// byte and skips the duplicate the second time.
func TestTwoMachinesListShowSearchPull(t *testing.T) {
	_, url := testDB(t)
	db := connect(t, url)
	ctx := context.Background()
	a := openStore(t, genStore(t, t.TempDir(), 4, 400, 3))
	b := openStore(t, genStore(t, t.TempDir(), 3, 300, 4))
	sa, _, err := a.Sessions().CreateWithEvents(ctx, "feature/x", "needle session", []codec.Event{
		codec.UserMessage("where is the zebracorn parser"), codec.AssistantText("The zebracorn parser is in parse.go"),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Compactions().Add(ctx, sa.ID, 1, "summary of the zebracorn work"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		st *store.Store
		m  string
	}{{a, "alpha"}, {b, "beta"}} {
		if _, err := Push(ctx, db, p.st, opts(p.m)); err != nil {
			t.Fatal(err)
		}
	}
	list, err := db.List(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	machines := map[string]int{}
	var needle Session
	for _, s := range list {
		machines[s.Machine]++
		if s.Name == "needle session" {
			needle = s
		}
	}
	if machines["alpha"] != 5 || machines["beta"] != 3 {
		t.Fatalf("sessions by machine %v, want alpha 5, beta 3", machines)
	}
	if needle.ID == 0 || needle.EventCount != 2 || needle.Worktree != "feature/x" || needle.DisplayName != "needle session" {
		t.Fatalf("needle session listed as %+v", needle)
	}
	events, err := db.Events(ctx, needle)
	if err != nil {
		t.Fatal(err)
	}
	local, err := a.Events().All(ctx, sa.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != len(local) {
		t.Fatalf("team transcript has %d events, local %d", len(events), len(local))
	}
	for i := range local {
		lj, _ := codec.EncodeEventJSON(local[i].Event)
		tj, _ := codec.EncodeEventJSON(events[i].Event)
		if !bytes.Equal(lj, tj) || local[i].Seq != events[i].Seq {
			t.Fatalf("event %d: team %s, local %s", i, tj, lj)
		}
	}
	res, err := db.Search(ctx, "ZEBRACORN parser", search.Options{Limit: 10})
	hits, more := res.Hits, res.More
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 || more || hits[0].SessionID != needle.ID || hits[0].Seq != 2 || hits[0].StorePath != "team:alpha:"+a.Path() {
		t.Fatalf("search hits %+v (more %v)", hits, more)
	}
	stats, err := db.Stats(ctx, "machine", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(stats) != 2 || stats[0].Key != "alpha" || stats[0].Sessions != 5 || stats[1].Sessions != 3 {
		t.Fatalf("stats by machine %+v", stats)
	}

	dst := openStore(t, filepath.Join(t.TempDir(), "pulled.azs"))
	id, dup, err := db.Pull(ctx, needle.ID, dst)
	if err != nil || dup {
		t.Fatalf("pull: id %d dup %v err %v", id, dup, err)
	}
	if again, dup, err := db.Pull(ctx, needle.ID, dst); err != nil || !dup || again != id {
		t.Fatalf("second pull: id %d dup %v err %v; want the duplicate S%d", again, dup, err, id)
	}
	want, got := rawPayloads(t, a, sa.ID), rawPayloads(t, dst, id)
	if len(want) != len(got) {
		t.Fatalf("pulled %d payloads, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(want[i], got[i]) {
			t.Fatalf("payload %d differs after pull", i)
		}
	}
	comps, err := dst.Compactions().Of(ctx, id)
	if err != nil || len(comps) != 1 || comps[0].Summary != "summary of the zebracorn work" {
		t.Fatalf("pulled compactions %+v, %v", comps, err)
	}
}

// rawPayloads returns the stored payloads of a session, by seq.
func rawPayloads(t *testing.T, st *store.Store, id int64) [][]byte {
	t.Helper()
	var out [][]byte
	err := st.Scan().Events(context.Background(), store.ScanOptions{Raw: true}, func(evs []store.ScannedEvent) error {
		for _, e := range evs {
			if e.SessionID == id {
				out = append(out, bytes.Clone(e.Payload))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
