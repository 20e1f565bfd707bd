package teamsync

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
)

// TestSearchFindsWhatTheMatcherFinds compares team search with the
// matcher run over every event of the store: the chunks' word filter and
// the server's ILIKE leave out no event the query matches (words inside
// words, across punctuation, non-ASCII letters, phrases, short words).
func TestSearchFindsWhatTheMatcherFinds(t *testing.T) {
	_, url := testDB(t)
	db := connect(t, url)
	ctx := context.Background()
	st := openStore(t, genStore(t, t.TempDir(), 5, 1500, 12))
	extra := []codec.Event{
		codec.UserMessage("why does TestParseConfig fail?"),
		codec.AssistantText("See internal/config.go:12 — the Größe check overflows."),
		codec.ToolResult("t1", "Bash", nil, "fatal: deadlock detected in worker 7\nGRÖSSE=3", true),
		codec.AssistantText("an ÉTÉ résumé of the naïve café"),
	}
	for i := range 3 {
		if _, _, err := st.Sessions().CreateWithEvents(ctx, "wt", fmt.Sprintf("extra %d", i), extra); err != nil {
			t.Fatal(err)
		}
	}
	o := opts("m")
	o.BatchRows = 300
	if _, err := Push(ctx, db, st, o); err != nil {
		t.Fatal(err)
	}
	list, err := db.List(ctx, Filter{})
	if err != nil {
		t.Fatal(err)
	}
	local := map[int64]int64{} // team id -> store session id
	for _, s := range list {
		local[s.ID] = s.SessionID
	}
	for _, q := range []string{"parseconfig", "arse", "config.go", "größe", "GRÖSSE", "été", "café résumé",
		`"deadlock detected"`, "detected deadlock", "fail?", "go:12", "the", "error", "handler retry"} {
		m, err := search.NewMatcher(q)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		err = st.Scan().Events(ctx, store.ScanOptions{}, func(evs []store.ScannedEvent) error {
			for _, e := range evs {
				if _, _, ok := m.Match(search.EventText(&e.Event)); ok {
					want = append(want, fmt.Sprintf("S%d#%d", e.SessionID, e.Seq))
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		res, err := db.Search(ctx, q, search.Options{Limit: 100000})
		hits, more := res.Hits, res.More || res.Partial
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, h := range hits {
			got = append(got, fmt.Sprintf("S%d#%d", local[h.SessionID], h.Seq))
		}
		slices.Sort(want)
		slices.Sort(got)
		if more || !slices.Equal(got, want) {
			t.Fatalf("search %q: %d hits (more %v), the matcher finds %d\ngot  %.300v\nwant %.300v", q, len(got), more, len(want), got, want)
		}
		t.Logf("%q: %d hits", q, len(got))
	}
}
