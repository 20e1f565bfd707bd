package teamsync

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
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

// TestPushFillsGapBelowLaterBatch leaves the database as a push whose
// first batch did not commit while later ones did (batches commit in any
// order): the next push sends exactly the missing events, and search
// finds them.
func TestPushFillsGapBelowLaterBatch(t *testing.T) {
	_, url := testDB(t)
	db := connect(t, url)
	st := openStore(t, genStore(t, t.TempDir(), 6, 2000, 9))
	ctx := context.Background()
	if _, _, err := st.Sessions().CreateWithEvents(ctx, "wt", "first", []codec.Event{codec.UserMessage("the quokkafish migration")}); err != nil {
		t.Fatal(err)
	}
	o := opts("m1")
	o.BatchRows = 400
	rep, err := Push(ctx, db, st, o)
	if err != nil {
		t.Fatal(err)
	}
	var upto int64
	if err := db.conn.QueryRow(ctx, `SELECT min(upto_id) FROM lazuli_pushed WHERE store_id = $1`, rep.StoreID).Scan(&upto); err != nil {
		t.Fatal(err)
	}
	var lost int64
	for _, q := range []string{
		`DELETE FROM lazuli_events WHERE store_id = $1 AND event_id <= $2`,
		`DELETE FROM lazuli_event_chunks WHERE store_id = $1 AND last_event <= $2`,
		`DELETE FROM lazuli_pushed WHERE store_id = $1 AND upto_id = $2`,
	} {
		tag, err := db.conn.Exec(ctx, q, rep.StoreID, upto)
		if err != nil {
			t.Fatal(err)
		}
		if lost == 0 {
			lost = tag.RowsAffected()
		}
	}
	// The newest events are there: the quokkafish is in the last batch.
	again, err := Push(ctx, db, st, o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Events != lost || lost == 0 {
		t.Fatalf("second push sent %d events, want the %d of the first batch", again.Events, lost)
	}
	if got, want := dbCounts(t, db, rep.StoreID), localCounts(t, st); got != want {
		t.Fatalf("database %+v, store %+v", got, want)
	}
	var first string
	if err := db.conn.QueryRow(ctx, `SELECT text FROM lazuli_events WHERE store_id = $1 AND text <> '' ORDER BY event_id LIMIT 1`, rep.StoreID).Scan(&first); err != nil {
		t.Fatal(err)
	}
	words := strings.Fields(first)
	q := strings.Join(words[:min(3, len(words))], " ")
	if res, err := db.Search(ctx, q, search.Options{Limit: 1000}); err != nil || len(res.Hits) == 0 {
		t.Fatalf("search %q after the gap was filled: %d hits, %v", q, len(res.Hits), err)
	}
	if res, err := db.Search(ctx, "quokkafish", search.Options{Limit: 10}); err != nil || len(res.Hits) != 1 {
		t.Fatalf("search quokkafish: %d hits, %v", len(res.Hits), err)
	}
}

// TestMigrateFromVersion1 pushes into a database of schema version 1 (as
// the first Lazuli with team sync left it): readers refuse it with a
// one-line error, a push migrates it (the events pushed before become
// searchable) and sends nothing again.
func TestMigrateFromVersion1(t *testing.T) {
	_, url := testDB(t)
	db := connect(t, url)
	ctx := context.Background()
	st := openStore(t, genStore(t, t.TempDir(), 3, 300, 11))
	if _, _, err := st.Sessions().CreateWithEvents(ctx, "wt", "old", []codec.Event{codec.AssistantText("the wombatron was rebuilt")}); err != nil {
		t.Fatal(err)
	}
	if err := db.migrateStep(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := db.Version(ctx); err != nil || v != 1 {
		t.Fatalf("version %d, %v; want 1", v, err)
	}
	// Push as version 1 did: the event rows and the session rows.
	if err := st.SetStoreID(ctx, "legacy"); err != nil {
		t.Fatal(err)
	}
	p := &pusher{db: db, st: st, opt: opts("old"), id: "legacy", rep: Report{Redactions: []Redaction{}}}
	if err := p.loadSessionRows(ctx); err != nil {
		t.Fatal(err)
	}
	b := &eventBatch{}
	err := st.Scan().Events(ctx, store.ScanOptions{Raw: true}, func(evs []store.ScannedEvent) error {
		for _, e := range evs {
			b.events = append(b.events, e)
			b.created = append(b.created, p.rows[e.SessionID].Created)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.prepare(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := db.conn.CopyFrom(ctx, pgx.Identifier{"lazuli_events"}, eventColumns, pgx.CopyFromRows(b.rows)); err != nil {
		t.Fatal(err)
	}
	if err := p.pushSessions(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = db.List(ctx, Filter{})
	var se *SchemaError
	if !errors.As(err, &se) || se.Have != 1 {
		t.Fatalf("list of a version 1 database: %v", err)
	}
	oneLine(t, err, "version 1", "lazuli sync push")
	rep, err := Push(ctx, db, st, opts("old"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Events != 0 || rep.StoreID != "legacy" {
		t.Fatalf("push after the migration sent %d events as %s; want none, as legacy", rep.Events, rep.StoreID)
	}
	if got, want := dbCounts(t, db, "legacy"), localCounts(t, st); got != want {
		t.Fatalf("database %+v, store %+v", got, want)
	}
	if res, err := db.Search(ctx, "wombatron", search.Options{Limit: 10}); err != nil || len(res.Hits) != 1 {
		t.Fatalf("search of an event pushed before the migration: %d hits, %v", len(res.Hits), err)
	}
}

// TestPushedMergesPrefixSpans: the spans a push finds recorded (batches
// commit in any order, and twice when a push was retried) are merged, not
// only de-duplicated: adjacent, overlapping, contained and repeated spans
// from 0 make one covered prefix, which is left as the one row of it; the
// spans above a gap stay as they are.
func TestPushedMergesPrefixSpans(t *testing.T) {
	_, url := testDB(t)
	db := connect(t, url)
	ctx := context.Background()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	recorded := []span{{0, 10}, {10, 20}, {5, 25}, {12, 18}, {0, 10}, {30, 40}, {45, 50}, {45, 50}}
	for _, s := range recorded {
		if _, err := db.conn.Exec(ctx, `INSERT INTO lazuli_pushed VALUES ('s1', $1, $2)`, s.after, s.upto); err != nil {
			t.Fatal(err)
		}
	}
	// Another store's spans are not merged into it.
	if _, err := db.conn.Exec(ctx, `INSERT INTO lazuli_pushed VALUES ('s2', 25, 30)`); err != nil {
		t.Fatal(err)
	}
	rows := func(id string) []span {
		t.Helper()
		r, err := db.conn.Query(ctx, `SELECT after_id, upto_id FROM lazuli_pushed WHERE store_id = $1 ORDER BY after_id, upto_id`, id)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(r, func(r pgx.CollectableRow) (span, error) {
			var s span
			return s, r.Scan(&s.after, &s.upto)
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	p := &pusher{db: db, id: "s1"}
	wantAbove := []span{{30, 40}, {45, 50}, {45, 50}}
	for i := range 2 { // the second time finds the merged rows
		w, above, err := p.pushed(ctx)
		if err != nil || w != 25 || !slices.Equal(above, wantAbove) {
			t.Fatalf("pushed (call %d) = %d, %v, %v, want 25, %v", i+1, w, above, err, wantAbove)
		}
		if got, want := rows("s1"), []span{{0, 25}, {30, 40}, {45, 50}, {45, 50}}; !slices.Equal(got, want) {
			t.Fatalf("lazuli_pushed after pushed (call %d) = %v, want %v", i+1, got, want)
		}
	}
	if got, want := rows("s2"), []span{{25, 30}}; !slices.Equal(got, want) {
		t.Errorf("another store's spans = %v, want %v", got, want)
	}
}
