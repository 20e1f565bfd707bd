package listcache

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

// TestListStateRoundTrip encodes and decodes a state.
func TestListStateRoundTrip(t *testing.T) {
	st := listState{
		stamp:    Stamp{Counter: 77, Pages: 1 << 31, Trusted: true},
		sessions: []sessionKey{{1, "2025-01-01 10:00:00"}, {3, ""}, {1 << 40, "x"}},
		last:     eventKey{session: 3, seq: -2, charLen: 1 << 50},
		lastID:   99, total: 12,
		aggs: map[int64]Agg{
			1: {Count: 5, Msgs: 2, MaxID: 97, Chars: 1234, AfterSeq: 3, Compacted: true},
			3: {Count: 7, Msgs: 0, MaxID: 99, Chars: -1},
			8: {AfterSeq: 4, Compacted: true}, // a compaction without events
		},
	}
	got, err := decodeListState(st.encode())
	if err != nil || !reflect.DeepEqual(*got, st) {
		t.Fatalf("decode(encode(%+v)) = %+v, %v", st, got, err)
	}
}

// FuzzDecodeListState checks that no cache file content crashes the
// decoder, and that what it accepts encodes back to the same bytes.
func FuzzDecodeListState(f *testing.F) {
	st := listState{sessions: []sessionKey{{1, "a"}}, lastID: 3, total: 3,
		aggs: map[int64]Agg{1: {Count: 3, MaxID: 3, Chars: 10}}}
	f.Add(st.encode())
	f.Add([]byte(listMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeListState(data)
		if err != nil {
			return
		}
		if again := got.encode(); !bytes.Equal(again, data) {
			t.Fatalf("accepted %q, which encodes back as %q", data, again)
		}
	})
}

// TestPrune checks that a Cache's first save removes cache files not
// written for listKeep and stale temporary files, and nothing else.
func TestPrune(t *testing.T) {
	db := mustDB(t, filepath.Join(t.TempDir(), "sessions.azs"))
	fill(t, db, 71, 3)
	file := cacheFileIn(t)
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	files := map[string]struct {
		age  time.Duration
		kept bool
	}{
		"old.list":       {listKeep + time.Hour, false},
		"recent.list":    {listKeep - time.Hour, true},
		"x.list.123.tmp": {listTmpKeep + time.Minute, false},
		"y.list.456.tmp": {time.Minute, true},
		"notes.txt":      {listKeep * 2, true},
	}
	for name, f := range files {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, now.Add(-f.age), now.Add(-f.age)); err != nil {
			t.Fatal(err)
		}
	}
	c := New(testFile{}, file)
	snapshot(t, c, db)
	c.Close()
	for name, f := range files {
		if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != f.kept {
			t.Errorf("%s (%v old): kept %v, want %v", name, f.age, err == nil, f.kept)
		}
	}
	if _, err := os.Stat(file); err != nil {
		t.Errorf("the store's own cache file: %v", err)
	}
}
