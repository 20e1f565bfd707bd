package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// scanIDs scans with opt and returns the ids of the rows, the batches' sizes
// and the rows that could not be decoded.
func scanIDs(t *testing.T, s *Store, opt ScanOptions) (ids []int64, batches []int, undecodable []int64) {
	t.Helper()
	err := s.Scan().Events(context.Background(), opt, func(b []ScannedEvent) error {
		batches = append(batches, len(b))
		for _, e := range b {
			ids = append(ids, e.ID)
			if e.Event.Kind == "" {
				undecodable = append(undecodable, e.ID)
			} else if e.Event.Kind != e.Kind {
				t.Errorf("row %d: kind column %s, event %s", e.ID, e.Kind, e.Event.Kind)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Scan().Events(%+v) = %v", opt, err)
	}
	return ids, batches, undecodable
}

func seqIDs(from, to int64) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

func TestScanEvents(t *testing.T) {
	s := mustOpen(t)
	if ids, _, _ := scanIDs(t, s, ScanOptions{}); len(ids) != 0 {
		t.Errorf("scan of a missing store = %v", ids)
	}
	a := mustCreateSession(t, s, "main", "a")
	b := mustCreateSession(t, s, "main", "b")
	for i := range 30 { // interleaved sessions, as agents running side by side write them
		sess := a
		if i%3 == 0 {
			sess = b
		}
		mustAppend(t, s, sess.ID, codec.AssistantText(fmt.Sprintf("reply %d", i)))
	}
	mustAppend(t, s, a.ID, codec.UserMessage("prompt"), codec.Complete(true, 1, 0))
	rawExec(t, s.Path(), "INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (2, 99, 'UserMessage', X'28b52ffd00', 1)")

	ids, batches, bad := scanIDs(t, s, ScanOptions{Batch: 7})
	if !slices.Equal(ids, seqIDs(1, 33)) || !slices.Equal(bad, []int64{33}) {
		t.Errorf("ascending scan = %v, undecodable %v", ids, bad)
	}
	if slices.Max(batches) > 7 || len(batches) != 5 {
		t.Errorf("batches = %v, want at most 7 rows each", batches)
	}
	ids, _, _ = scanIDs(t, s, ScanOptions{After: 10, Before: 20, Desc: true, Batch: 4})
	if want := []int64{19, 18, 17, 16, 15, 14, 13, 12, 11}; !slices.Equal(ids, want) {
		t.Errorf("descending range = %v, want %v", ids, want)
	}
	ids, _, _ = scanIDs(t, s, ScanOptions{Kinds: []codec.Kind{codec.KindUserMessage, codec.KindComplete}})
	if want := []int64{31, 32, 33}; !slices.Equal(ids, want) {
		t.Errorf("kinds = %v, want %v", ids, want)
	}
	var got []ScannedEvent
	_ = s.Scan().Events(context.Background(), ScanOptions{After: 30}, func(b []ScannedEvent) error {
		got = append(got, b...)
		return nil
	})
	if len(got) != 3 || got[0].SessionID != a.ID || got[0].Seq != 21 || got[0].Event.Content != "prompt" ||
		got[1].Kind != codec.KindComplete || !got[1].Event.Success || got[2].SessionID != b.ID || got[2].Seq != 99 {
		t.Errorf("rows = %+v", got)
	}

	// An error from fn stops the scan and comes back as is.
	stop := errors.New("stop")
	calls := 0
	err := s.Scan().Events(context.Background(), ScanOptions{Batch: 2}, func([]ScannedEvent) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Errorf("Scan().Events with a failing fn = %v after %d calls", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Scan().Events(ctx, ScanOptions{}, func([]ScannedEvent) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("Scan().Events with a cancelled context = %v", err)
	}
}

func TestEventsAndCompactionsByID(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	if evs, err := s.Scan().EventsByID(ctx, []int64{1}); err != nil || len(evs) != 0 {
		t.Errorf("EventsByID on a missing store = %v, %v", evs, err)
	}
	a := mustCreateSession(t, s, "main", "a")
	mustAppend(t, s, a.ID, codec.UserMessage("one"), codec.AssistantText("two"), codec.AssistantText("three"))
	evs, err := s.Scan().EventsByID(ctx, []int64{3, 99, 1})
	if err != nil || len(evs) != 2 || evs[0].Event.Text != "three" || evs[1].Event.Content != "one" {
		t.Errorf("EventsByID(3, 99, 1) = %+v, %v", evs, err)
	}
	many := seqIDs(1, 600) // more than one query's worth
	if evs, err := s.Scan().EventsByID(ctx, many); err != nil || len(evs) != 3 {
		t.Errorf("EventsByID(1..600) = %d events, %v", len(evs), err)
	}
	c1, _ := s.Compactions().Add(ctx, a.ID, 1, "first")
	c2, _ := s.Compactions().Add(ctx, a.ID, 2, "second")
	comps, err := s.Scan().CompactionsByID(ctx, []int64{c2.ID, 42, c1.ID})
	if err != nil || len(comps) != 2 || comps[0].Summary != "second" || comps[1].Summary != "first" {
		t.Errorf("CompactionsByID = %+v, %v", comps, err)
	}
	var scanned []string
	err = s.Scan().Compactions(ctx, c1.ID, func(b []Compaction) error {
		for _, c := range b {
			scanned = append(scanned, c.Summary)
		}
		return nil
	})
	if err != nil || !slices.Equal(scanned, []string{"second"}) {
		t.Errorf("Scan().Compactions after %d = %v, %v", c1.ID, scanned, err)
	}
	if id, err := s.Scan().EventIDAt(ctx, a.ID, 2); err != nil || id != 2 {
		t.Errorf("EventIDAt(seq 2) = %d, %v", id, err)
	}
	if id, err := s.Scan().EventIDAt(ctx, a.ID, 0); err != nil || id != 0 {
		t.Errorf("EventIDAt(seq 0) = %d, %v", id, err)
	}
	for _, tc := range []struct {
		before int64
		n      int
		id     int64
		ok     bool
	}{{4, 1, 3, true}, {4, 3, 1, true}, {4, 4, 0, false}, {2, 1, 1, true}} {
		id, ok, err := s.Scan().EventIDBelow(ctx, tc.before, tc.n)
		if err != nil || id != tc.id || ok != tc.ok {
			t.Errorf("EventIDBelow(%d, %d) = %d %v %v, want %d %v", tc.before, tc.n, id, ok, err, tc.id, tc.ok)
		}
	}
}

func TestSessionRowsAndIDBounds(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	if b, err := s.Scan().IDBounds(ctx); err != nil || b != (IDBounds{}) {
		t.Errorf("IDBounds of a missing store = %+v, %v", b, err)
	}
	a := mustCreateSession(t, s, "main", "a")
	b := mustCreateSession(t, s, "feat", "")
	mustAppend(t, s, a.ID, codec.UserMessage("one"))
	mustAppend(t, s, b.ID, codec.UserMessage("two"), codec.UserMessage("three"))
	c, _ := s.Compactions().Add(ctx, a.ID, 1, "sum")
	rows, err := s.Scan().Sessions(ctx)
	if err != nil || len(rows) != 2 || rows[0].Name != "a" || rows[1].Worktree != "feat" || rows[1].DisplayName() != "S2" ||
		rows[0].Created == "" || rows[0].EventCount != 0 {
		t.Errorf("Scan().Sessions = %+v, %v", rows, err)
	}
	bounds, err := s.Scan().IDBounds(ctx)
	if err != nil || bounds != (IDBounds{MinEventID: 1, MaxEventID: 3, EventSequence: 3, MaxCompactionID: c.ID}) {
		t.Errorf("IDBounds = %+v, %v", bounds, err)
	}
	// Deleting the newest events lowers the largest id, never the sequence.
	if err := s.Sessions().Delete(ctx, b.ID); err != nil {
		t.Fatal(err)
	}
	bounds, err = s.Scan().IDBounds(ctx)
	if err != nil || bounds.MaxEventID != 1 || bounds.EventSequence != 3 {
		t.Errorf("IDBounds after a delete = %+v, %v", bounds, err)
	}
}

// TestFirstEventID: a session's smallest event id, 0 for a session without
// events (or none) and for a store without a file.
func TestFirstEventID(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	if id, err := s.Scan().FirstEventID(ctx, 1); err != nil || id != 0 {
		t.Errorf("FirstEventID of a missing store = %d, %v", id, err)
	}
	a := mustCreateSession(t, s, "main", "a")
	b := mustCreateSession(t, s, "main", "b")
	e := mustCreateSession(t, s, "main", "empty")
	mustAppend(t, s, a.ID, codec.UserMessage("one"))
	mustAppend(t, s, b.ID, codec.UserMessage("two"), codec.UserMessage("three"))
	mustAppend(t, s, a.ID, codec.UserMessage("four"))
	for _, c := range []struct{ session, want int64 }{{a.ID, 1}, {b.ID, 2}, {e.ID, 0}, {99, 0}} {
		if id, err := s.Scan().FirstEventID(ctx, c.session); err != nil || id != c.want {
			t.Errorf("FirstEventID(%d) = %d, %v; want %d", c.session, id, err, c.want)
		}
	}
}

// TestVersion: the token is the same while the file is unchanged, moves
// with every write transaction, and is "" when it cannot vouch (a -wal
// file beside the store) or there is no file.
func TestVersion(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	if v, err := s.Scan().Version(ctx); err != nil || v != "" {
		t.Errorf("Version of a missing store = %q, %v, want \"\"", v, err)
	}
	a := mustCreateSession(t, s, "main", "a")
	v1, err := s.Scan().Version(ctx)
	if err != nil || v1 == "" {
		t.Fatalf("Version = %q, %v, want a token", v1, err)
	}
	if v, err := s.Scan().Version(ctx); err != nil || v != v1 {
		t.Errorf("Version again = %q, %v, want %q (nothing written)", v, err, v1)
	}
	mustAppend(t, s, a.ID, codec.UserMessage("one"))
	v2, err := s.Scan().Version(ctx)
	if err != nil || v2 == "" || v2 == v1 {
		t.Errorf("Version after an append = %q, %v, want a new token (was %q)", v2, err, v1)
	}
	if err := s.Sessions().Rename(ctx, a.ID, "b"); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Scan().Version(ctx); err != nil || v == "" || v == v2 {
		t.Errorf("Version after a rename = %q, %v, want a new token (was %q)", v, err, v2)
	}
	if err := os.WriteFile(s.Path()+"-wal", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(s.Path() + "-wal")
	if v, err := s.Scan().Version(ctx); err != nil || v != "" {
		t.Errorf("Version with a -wal file beside the store = %q, %v, want \"\"", v, err)
	}
}
