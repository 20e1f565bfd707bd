package search

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// importNative stores a native session of events, one per word (a
// Glob result that compaction shortens to "N files" among them), as an
// importer does, and returns what the store wrote.
func importNative(t *testing.T, st *store.Store, id string, words ...string) []store.NativeResult {
	t.Helper()
	evs := []codec.Event{codec.UserMessage("prompt of " + id)}
	for _, w := range words {
		evs = append(evs, codec.AssistantText(w+" sharedword"))
	}
	var paths []string
	for i := range 12 {
		paths = append(paths, "/w/"+id+strconv.Itoa(i)+"_only_in_full.go")
	}
	evs = append(evs, codec.ToolCall("g", "Glob", nil, json.RawMessage(`{"pattern":"*.go"}`)),
		codec.ToolResult("g", "Glob", nil, strings.Join(paths, "\n"), false))
	res, err := st.Native().Import(context.Background(), []store.NativeBatch{{
		Key: store.NativeKey{Agent: "claude", ID: id}, Path: "/h/" + id + ".jsonl", Bytes: 10, Lines: 1, Checksum: "v1:" + id,
		Events: evs, Worktree: "main", Name: id, Created: "2025-06-01 10:00:00"}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// indexedStore is a store of two interleaved sessions and its index, up
// to date.
func indexedStore(t *testing.T) (*store.Store, *Index) {
	t.Helper()
	st := mustOpenStore(t, testStorePath(t))
	manyEvents(t, st, 2, 20)
	return st, mustIndex(t, st)
}

func feedAll(f *Feed, res []store.NativeResult) {
	created := map[int64]string{}
	var rows []store.ScannedEvent
	for _, r := range res {
		created[r.SessionID] = r.SessionCreated
		rows = append(rows, r.Rows...)
	}
	f.Add(created, rows)
}

// feedThenB hands a to f, imports a session b (with the word "betafed")
// while the feed runs, hands it over too, and closes the feed.
func feedThenB(t *testing.T, st *store.Store, f *Feed, a []store.NativeResult) ([]store.NativeResult, Stats) {
	t.Helper()
	feedAll(f, a)
	b := importNative(t, st, "b", "w1x3", "betafed")
	feedAll(f, b)
	s, err := f.Close(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b, s
}

func rowCount(res ...[]store.NativeResult) int64 {
	var n int64
	for _, rs := range res {
		for _, r := range rs {
			n += int64(len(r.Rows))
		}
	}
	return n
}

// TestFeedIndexesRowsInHand: rows handed to a feed are indexed as they
// are, without reading the store, and the index answers as one built from
// the store does (full text included); opened again, it is neither
// damaged nor rebuilt (the mark's row hash matches the stored row).
func TestFeedIndexesRowsInHand(t *testing.T) {
	ctx := context.Background()
	st, x := indexedStore(t)
	f := x.NewFeed(ctx)
	a := importNative(t, st, "a", "w0x1", "alphafed")
	b, s := feedThenB(t, st, f, a)
	if f.inHand != rowCount(a, b) || s.Rebuilt || s.Events != rowCount(a, b) {
		t.Fatalf("%d of %d rows taken in hand; stats %+v", f.inHand, rowCount(a, b), s)
	}
	if !f.caughtUp {
		t.Error("a feed of every new row did not find the index caught up: Close read the store again")
	}
	for _, q := range []string{"alphafed", "betafed", "b11_only_in_full"} {
		if r := mustSearch(t, x, q); len(r.Hits) != 1 {
			t.Errorf("%q: %+v", q, r.Hits)
		}
	}
	got := answers(t, x)
	x.Close()
	x, err := Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if s := mustUpdate(t, x); s.Damaged || s.Rebuilt || s.Events != 0 {
		t.Fatalf("the fed index opened again: %+v", s)
	}
	t.Setenv(store.CacheDirEnv, t.TempDir())
	if want := answers(t, mustIndex(t, st)); !equalAnswers(got, want) {
		t.Errorf("fed index: %v\nbuilt from the store: %v", got, want)
	}
}

// TestFeedFirstImportInHand: a first import's feed starts once its first
// transaction is stored, so the index's start puts those rows below its
// marks; when they are every event of the store, the feed indexes them in
// hand as the backfill would, and Close reads nothing back. Rows that are
// not the whole store up to the marks (an older session never handed
// over) are left to the backfill, and everything is found either way.
func TestFeedFirstImportInHand(t *testing.T) {
	ctx := context.Background()
	for _, older := range []bool{false, true} {
		st := mustOpenStore(t, testStorePath(t))
		if older {
			mustSession(t, st, "older", codec.AssistantText("olderword"))
		}
		a := importNative(t, st, "a", "w0x1", "alphafed")
		x, err := Open(ctx, st)
		if err != nil {
			t.Fatal(err)
		}
		f := x.NewFeed(ctx)
		b, s := feedThenB(t, st, f, a)
		want := rowCount(a, b)
		if older {
			want = rowCount(b)
		}
		if f.inHand != want || !s.Rebuilt {
			t.Fatalf("older session %v: %d rows taken in hand, want %d; stats %+v", older, f.inHand, want, s)
		}
		qs := []string{"alphafed", "betafed", "a11_only_in_full", "b11_only_in_full"}
		if older {
			qs = append(qs, "olderword")
		}
		for _, q := range qs {
			if r := mustSearch(t, x, q); len(r.Hits) != 1 {
				t.Errorf("older session %v: %q: %+v", older, q, r.Hits)
			}
		}
		got := answers(t, x)
		x.Close()
		t.Setenv(store.CacheDirEnv, t.TempDir())
		if want := answers(t, mustIndex(t, st)); !equalAnswers(got, want) {
			t.Errorf("older session %v: fed index: %v\nbuilt from the store: %v", older, got, want)
		}
	}
}

// TestFeedReadsWhatDoesNotFollow: rows whose ids do not directly follow
// what the index holds (another writer appended in between, or rows were
// never handed over) are read from the store instead, so nothing between
// them is missed.
func TestFeedReadsWhatDoesNotFollow(t *testing.T) {
	st, x := indexedStore(t)
	f := x.NewFeed(context.Background())
	importNative(t, st, "a", "alphamissed") // never handed over
	mustSession(t, st, "other writer", codec.AssistantText("appendedbetween"))
	b := importNative(t, st, "b", "betafed")
	feedAll(f, b)
	if _, err := f.Close(nil); err != nil {
		t.Fatal(err)
	}
	if f.inHand != 0 {
		t.Errorf("%d rows taken in hand after a gap", f.inHand)
	}
	for _, q := range []string{"alphamissed", "appendedbetween", "betafed", "a3_only_in_full"} {
		if r := mustSearch(t, x, q); len(r.Hits) != 1 {
			t.Errorf("%q: %+v", q, r.Hits)
		}
	}
}

// TestFeedLeavesTheRestToClose: rows stored after the last ones handed
// over are not caught up by the feed; Close's Update indexes them.
func TestFeedLeavesTheRestToClose(t *testing.T) {
	st, x := indexedStore(t)
	f := x.NewFeed(context.Background())
	feedAll(f, importNative(t, st, "a", "alphafed"))
	importNative(t, st, "c", "gammalate") // stored after the feed's last rows, never handed over
	if _, err := f.Close(nil); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"alphafed", "gammalate"} {
		if r := mustSearch(t, x, q); len(r.Hits) != 1 {
			t.Errorf("%q: %+v", q, r.Hits)
		}
	}
}

// TestFeedCancelled: a feed stopped part way (its context cancelled, as
// an interrupted import) leaves an index that the next Update completes
// to the same answers as one built at once.
func TestFeedCancelled(t *testing.T) {
	st, x := indexedStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	f := x.NewFeed(ctx)
	feedAll(f, importNative(t, st, "a", "alphafed"))
	cancel()
	feedAll(f, importNative(t, st, "b", "betafed"))
	if _, err := f.Close(nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close after the cancel = %v", err)
	}
	mustUpdate(t, x)
	for _, q := range []string{"alphafed", "betafed"} {
		if r := mustSearch(t, x, q); len(r.Hits) != 1 {
			t.Errorf("%q: %+v", q, r.Hits)
		}
	}
	got := answers(t, x)
	t.Setenv(store.CacheDirEnv, t.TempDir())
	if want := answers(t, mustIndex(t, st)); !equalAnswers(got, want) {
		t.Errorf("after the cancelled feed: %v\nwant %v", got, want)
	}
}
