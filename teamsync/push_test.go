package teamsync

import (
	"context"
	"testing"
)

func TestPushThenRepushSendsNothing(t *testing.T) {
	_, url := testDB(t)
	db := connect(t, url)
	st := openStore(t, genStore(t, t.TempDir(), 12, 2500, 1))
	ctx := context.Background()
	o := opts("m1")
	o.BatchRows = 700
	rep, err := Push(ctx, db, st, o)
	if err != nil {
		t.Fatal(err)
	}
	want := localCounts(t, st)
	if got := dbCounts(t, db, rep.StoreID); got != want {
		t.Fatalf("after push: database %+v, store %+v", got, want)
	}
	if !rep.NewStoreID || rep.Events != want.Events || int64(rep.Sessions) != want.Sessions {
		t.Fatalf("report %+v, store %+v", rep, want)
	}
	if id, _ := st.StoreID(ctx); id != rep.StoreID {
		t.Fatalf("store id in meta %q, report %q", id, rep.StoreID)
	}
	again, err := Push(ctx, db, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Events != 0 || again.Sessions != 0 || again.Compactions != 0 || again.NewStoreID || again.Forked {
		t.Fatalf("re-push sent %+v", again)
	}
	if got := dbCounts(t, db, rep.StoreID); got != want {
		t.Fatalf("after re-push: database %+v, store %+v", got, want)
	}
}
