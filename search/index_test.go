package search

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// kindEvents holds one unusual word in each kind of text Search covers,
// and one (initonlyword) in an Init event, which it does not.
func kindEvents() []codec.Event {
	path := "/src/frobfile.go"
	return []codec.Event{
		codec.UserMessage("please refactor quuxparser now"),                                                                                       // 1
		codec.AssistantText("I will use **Zorblex** here"),                                                                                        // 2
		codec.Plan("plonkplan", "first step"),                                                                                                     // 3
		codec.ToolCall("t1", "Bash", nil, json.RawMessage(`{"command":"grep -rn wibblecmd ."}`)),                                                  // 4
		codec.ToolResult("t1", "Bash", nil, "line one\ngronkresult here", false),                                                                  // 5
		codec.ToolCall("t2", "Edit", &path, json.RawMessage(`{"file_path":"/src/frobfile.go","old_string":"quibble\tx","new_string":"snazzle"}`)), // 6
		codec.Hook("PreToolUse", "blarghook fired"),                                                                                               // 7
		codec.Command("/compactify"),                                                                                                              // 8
		codec.Init("/cwd/initonlyword", "opus"),                                                                                                   // 9
		codec.Complete(true, 5, 0.1),                                                                                                              // 10
	}
}

func TestSearchKinds(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t, testStorePath(t))
	s := mustSession(t, st, "kinds", kindEvents()...)
	if _, err := st.Compactions().Add(ctx, s.ID, 5, "summary of flibbertsum work"); err != nil {
		t.Fatal(err)
	}
	x := mustIndex(t, st)
	for _, tc := range []struct {
		query, want string
	}{
		{"quuxparser", "S1#1 UserMessage"},
		{"ZORBLEX", "S1#2 AssistantText"},
		{"plonkplan", "S1#3 Plan"},
		{"wibblecmd", "S1#4 ToolCall"},
		{"gronkresult", "S1#5 ToolResult"},
		{"frobfile", "S1#6 ToolCall"},
		{"quibble", "S1#6 ToolCall"},
		{"snazzle", "S1#6 ToolCall"},
		{"blarghook", "S1#7 Hook"},
		{"compactify", "S1#8 Command"},
		{"flibbertsum", "S1#5 Compaction"},
		{"initonlyword", ""},
		{"refactor quux", "S1#1 UserMessage"},
		{"quux zorblex", ""}, // words in different events
	} {
		r := mustSearch(t, x, tc.query)
		if got := strings.Join(hitKeys(r), ", "); got != tc.want {
			t.Errorf("Search(%q) = %q, want %q", tc.query, got, tc.want)
		}
		for _, h := range r.Hits {
			if h.StorePath != st.Path() || h.DisplayName != "kinds" || h.Worktree != "main" || h.Time == "" {
				t.Errorf("Search(%q) hit %+v lacks its session", tc.query, h)
			}
			if len(h.Highlights) == 0 {
				t.Errorf("Search(%q) hit %q has no highlight", tc.query, h.Snippet)
			}
		}
	}
	// The same answers without the index.
	r, err := Scan(ctx, st, "flibbertsum", Options{})
	if err != nil || strings.Join(hitKeys(r), ",") != "S1#5 Compaction" {
		t.Errorf("Scan(flibbertsum) = %v, %v", hitKeys(r), err)
	}
}

func TestSearchLiteralSyntax(t *testing.T) {
	texts := []string{`say "hi" now`, "a*b", "x AND y", "NEAR(abc", "foo-bar", "key:value", "(paren)", "^caret", `"quoted"`, "Große ÄÖÜ-Straße"}
	var evs []codec.Event
	for _, s := range texts {
		evs = append(evs, codec.AssistantText(s))
	}
	st := mustOpenStore(t, testStorePath(t))
	mustSession(t, st, "syntax", evs...)
	x := mustIndex(t, st)
	for _, tc := range []struct {
		query string
		seq   int64
	}{
		{`"hi"`, 1}, {`say "hi"`, 1}, {"a*b", 2}, {"AND", 3}, {"NEAR(", 4}, {"NEAR(abc", 4}, {"foo-bar", 5},
		{"-bar", 5}, {"key:value", 6}, {"(paren)", 7}, {"paren)", 7}, {"^caret", 8}, {`"quoted"`, 9}, {`""quoted""`, 0},
		{`*`, 0}, {`NOT`, 0}, {`a OR`, 0}, {"straße", 10}, {"äöü-", 10}, {"GROSSE", 0}, {"GROßE", 10},
	} {
		r, err := x.Search(context.Background(), tc.query, Options{})
		if errors.Is(err, ErrShortQuery) && tc.seq == 0 {
			continue
		}
		if err != nil {
			t.Errorf("Search(%q): %v", tc.query, err)
			continue
		}
		var seqs []int64
		for _, h := range r.Hits {
			seqs = append(seqs, h.Seq)
		}
		want := []int64{tc.seq}
		if tc.seq == 0 {
			want = nil
		}
		if !slices.Equal(seqs, want) {
			t.Errorf("Search(%q) = seqs %v, want %v", tc.query, seqs, want)
		}
	}
}

func TestSearchQueryErrors(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	mustSession(t, st, "s", codec.AssistantText("go is a language"), codec.AssistantText("nothing here"))
	x := mustIndex(t, st)
	ctx := context.Background()
	for q, want := range map[string]error{"": ErrEmptyQuery, "  ": ErrEmptyQuery, "g": ErrShortQuery, "a b": ErrShortQuery} {
		if _, err := x.Search(ctx, q, Options{}); !errors.Is(err, want) {
			t.Errorf("Search(%q) error = %v, want %v", q, err, want)
		}
		if _, err := Scan(ctx, st, q, Options{}); !errors.Is(err, want) {
			t.Errorf("Scan(%q) error = %v, want %v", q, err, want)
		}
	}
	r := mustSearch(t, x, "GO")
	if strings.Join(hitKeys(r), ",") != "S1#1 AssistantText" || r.Partial {
		t.Errorf("Search(GO) = %v partial %v", hitKeys(r), r.Partial)
	}
}

func TestShortQueryScansNewestEvents(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	var evs []codec.Event
	for i := range 10 {
		evs = append(evs, codec.AssistantText(fmt.Sprintf("event %d", i)))
	}
	evs[0] = codec.AssistantText("the oldest says qz")
	mustSession(t, st, "s", evs...)
	q, err := parseQuery("qz")
	if err != nil {
		t.Fatal(err)
	}
	r, err := scan(context.Background(), st, q, Options{Limit: 5}, 4)
	if err != nil || len(r.Hits) != 0 || !r.Partial || r.Note != shortQueryNote {
		t.Errorf("scan of the newest 4 = %v partial %v note %q, %v", hitKeys(r), r.Partial, r.Note, err)
	}
	r, err = scan(context.Background(), st, q, Options{Limit: 5}, 100)
	if err != nil || len(r.Hits) != 1 || r.Partial {
		t.Errorf("scan of all = %v partial %v, %v", hitKeys(r), r.Partial, err)
	}
}

func TestSearchNewestFirst(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	var evs []codec.Event
	for i := range 60 {
		evs = append(evs, codec.AssistantText(fmt.Sprintf("commonword number %d", i)))
	}
	a := mustSession(t, st, "a", evs[:30]...)
	b := mustSession(t, st, "b", evs[30:]...)
	if _, err := st.Events().Append(context.Background(), a.ID, []codec.Event{codec.AssistantText("commonword latest")}); err != nil {
		t.Fatal(err)
	}
	x := mustIndex(t, st)
	r := mustSearch(t, x, "commonword")
	if len(r.Hits) != DefaultLimit || !r.More {
		t.Fatalf("Search = %d hits, more %v; want %d and more", len(r.Hits), r.More, DefaultLimit)
	}
	if h := r.Hits[0]; h.SessionID != a.ID || h.Seq != 31 {
		t.Errorf("first hit = %+v, want the latest append", h)
	}
	if h := r.Hits[1]; h.SessionID != b.ID || h.Seq != 30 {
		t.Errorf("second hit = %+v, want b's last event", h)
	}
	r, err := x.Search(context.Background(), "commonword", Options{Limit: 100})
	if err != nil || len(r.Hits) != 61 || r.More {
		t.Errorf("Search(limit 100) = %d hits, more %v, %v", len(r.Hits), r.More, err)
	}
}

func TestIncrementalUpdate(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t, testStorePath(t))
	mustSession(t, st, "keep", codec.UserMessage("keepword"))
	a := mustSession(t, st, "a", codec.UserMessage("alphaword"))
	x := mustIndex(t, st)
	count := func(q string) int { return len(mustSearch(t, x, q).Hits) }
	if count("alphaword") != 1 {
		t.Fatal("alphaword not found")
	}
	if _, err := st.Events().Append(ctx, a.ID, []codec.Event{codec.AssistantText("betaword")}); err != nil {
		t.Fatal(err)
	}
	if count("betaword") != 0 {
		t.Error("betaword found before Update")
	}
	if s := mustUpdate(t, x); s.Indexed != 1 || s.Events != 1 || s.Rebuilt {
		t.Errorf("Update after an append = %+v", s)
	}
	if count("betaword") != 1 {
		t.Error("betaword not found after Update")
	}
	if _, err := st.Compactions().Add(ctx, a.ID, 2, "deltaword summary"); err != nil {
		t.Fatal(err)
	}
	if s := mustUpdate(t, x); s.Compactions != 1 {
		t.Errorf("Update after a compaction = %+v", s)
	}
	if got := hitKeys(mustSearch(t, x, "deltaword")); len(got) != 1 || got[0] != fmt.Sprintf("S%d#2 Compaction", a.ID) {
		t.Errorf("deltaword = %v", got)
	}
	if s := mustUpdate(t, x); s.Indexed != 0 || s.Events != 0 || s.Purged != 0 {
		t.Errorf("Update with nothing new = %+v", s)
	}

	// A deleted session's hits go at once; Update removes its rows.
	if err := st.Sessions().Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"alphaword", "betaword", "deltaword"} {
		if count(q) != 0 {
			t.Errorf("%s found after its session was deleted", q)
		}
	}
	if s := mustUpdate(t, x); s.Purged != 1 {
		t.Errorf("Update after a delete = %+v", s)
	}
	if n := docsOf(t, x, a.ID); n != 0 {
		t.Errorf("%d rows of the deleted session remain", n)
	}
	// AZUREAL gives the deleted session's id to the next one.
	c := mustSession(t, st, "c", codec.UserMessage("gammaword"))
	mustUpdate(t, x)
	if got := hitKeys(mustSearch(t, x, "gammaword")); len(got) != 1 || got[0] != fmt.Sprintf("S%d#1 UserMessage", c.ID) {
		t.Errorf("gammaword = %v (session %d)", got, c.ID)
	}
	if count("keepword") != 1 || count("alphaword") != 0 {
		t.Error("the other sessions' hits changed")
	}
}

// docsOf counts the index rows of a session.
func docsOf(t *testing.T, x *Index, session int64) int {
	var n int
	if err := x.r.QueryRow("SELECT COUNT(*) FROM docs WHERE session = ?", session).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestAnotherStoreAtThePath(t *testing.T) {
	ctx := context.Background()
	path := testStorePath(t)
	t.Setenv(store.CacheDirEnv, t.TempDir())
	build := func(events ...codec.Event) *store.Store {
		st, err := store.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		mustSession(t, st, "s", events...)
		return st
	}
	for _, tc := range []struct {
		name string
		next []codec.Event
	}{
		{"Longer", []codec.Event{codec.UserMessage("omegaword"), codec.AssistantText("x"), codec.AssistantText("y"), codec.AssistantText("z")}},
		{"Shorter", []codec.Event{codec.UserMessage("omegaword")}},
		{"SameShape", []codec.Event{codec.UserMessage("omegaword"), codec.AssistantText("other")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.RemoveAll(filepath.Dir(path))
			st := build(codec.UserMessage("alphaword"), codec.AssistantText("reply"))
			x, err := Open(ctx, st)
			if err != nil {
				t.Fatal(err)
			}
			mustUpdate(t, x)
			x.Close()
			st.Close()
			if err := os.RemoveAll(filepath.Dir(path)); err != nil {
				t.Fatal(err)
			}
			st = build(tc.next...)
			defer st.Close()
			if x, err = Open(ctx, st); err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			if s := mustUpdate(t, x); !s.Rebuilt {
				t.Errorf("Update on another file = %+v, want a rebuild", s)
			}
			if n := len(mustSearch(t, x, "omegaword").Hits); n != 1 {
				t.Errorf("omegaword: %d hits", n)
			}
			var rows int
			if err := x.r.QueryRow("SELECT COUNT(*) FROM docs").Scan(&rows); err != nil || rows != len(tc.next) {
				t.Errorf("index rows = %d, %v; want %d", rows, err, len(tc.next))
			}
		})
	}
}

func TestDamagedIndexIsRebuilt(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t, testStorePath(t))
	mustSession(t, st, "s", codec.UserMessage("alphaword"))
	x := mustIndex(t, st)
	path := x.Path()
	x.Close()
	for _, junk := range [][]byte{[]byte("this is not a database, just text that is long enough to be read as a header......................................."), {}} {
		for _, suffix := range []string{"-wal", "-shm"} {
			_ = os.Remove(path + suffix)
		}
		if err := os.WriteFile(path, junk, 0o600); err != nil {
			t.Fatal(err)
		}
		x, err := Open(ctx, st)
		if err != nil {
			t.Fatalf("Open on a damaged index: %v", err)
		}
		mustUpdate(t, x)
		if n := len(mustSearch(t, x, "alphaword").Hits); n != 1 {
			t.Errorf("alphaword: %d hits after the rebuild", n)
		}
		x.Close()
	}
}

func TestIndexFormatChangeRebuilds(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	mustSession(t, st, "s", codec.UserMessage("alphaword"))
	x := mustIndex(t, st)
	if _, err := x.w.Exec("UPDATE meta SET value = 'old' WHERE key = 'format'"); err != nil {
		t.Fatal(err)
	}
	x.Close()
	x, err := Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if s := mustUpdate(t, x); !s.Rebuilt || s.Indexed != 1 {
		t.Errorf("Update of an old format = %+v", s)
	}
}

func TestUnusableCacheFallsBackToScan(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t, testStorePath(t))
	mustSession(t, st, "s", codec.UserMessage("alphaword"))
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(file, "cache"), file} {
		t.Setenv(store.CacheDirEnv, dir)
		if _, err := Open(ctx, st); !errors.Is(err, ErrUnavailable) {
			t.Errorf("Open with cache %s = %v, want ErrUnavailable", dir, err)
		}
	}
	r, err := Stores(ctx, []Source{{Store: st}}, "ALPHA", Options{})
	if err != nil || len(r.Hits) != 1 || r.Note != noIndexNote {
		t.Errorf("Stores without an index = %v note %q, %v", hitKeys(r), r.Note, err)
	}
}

func TestStoreUntouched(t *testing.T) {
	ctx := context.Background()
	path := testStorePath(t)
	st := mustOpenStore(t, path)
	s := mustSession(t, st, "s", kindEvents()...)
	if _, err := st.Compactions().Add(ctx, s.ID, 3, "flibbertsum"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	before, list := fileHash(t, path), dirList(t, filepath.Dir(path))

	ro, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	x := mustIndex(t, ro)
	if strings.HasPrefix(x.Path(), filepath.Dir(path)) {
		t.Errorf("index %s is in the store's folder", x.Path())
	}
	mustSearch(t, x, "flibbertsum")
	mustSearch(t, x, "qu")
	if _, err := x.Rebuild(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Scan(ctx, ro, "gronk", Options{}); err != nil {
		t.Fatal(err)
	}
	x.Close()
	ro.Close()
	if after := fileHash(t, path); after != before {
		t.Error("the store changed")
	}
	if after := dirList(t, filepath.Dir(path)); !slices.Equal(after, list) {
		t.Errorf("the store's folder holds %v, was %v", after, list)
	}
}

func fileHash(t *testing.T, path string) [32]byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

func dirList(t *testing.T, dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestStoresMerge(t *testing.T) {
	ctx := context.Background()
	a := mustOpenStore(t, testStorePath(t))
	b := mustOpenStore(t, testStorePath(t))
	mustSession(t, a, "a1", codec.UserMessage("sharedword one"))
	mustSession(t, b, "b1", codec.UserMessage("sharedword two"), codec.UserMessage("sharedword three"))
	xa := mustIndex(t, a)
	r, err := Stores(ctx, []Source{{Store: a, Index: xa}, {Store: b}}, "sharedword", Options{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Hits) != 2 || !r.More || r.Note != noIndexNote {
		t.Errorf("Stores = %v more %v note %q", hitKeys(r), r.More, r.Note)
	}
	stores := map[string]bool{}
	r, _ = Stores(ctx, []Source{{Store: a, Index: xa}, {Store: b}}, "sharedword", Options{Limit: 10})
	for _, h := range r.Hits {
		stores[h.StorePath] = true
	}
	if len(r.Hits) != 3 || len(stores) != 2 {
		t.Errorf("Stores = %v from %d stores", hitKeys(r), len(stores))
	}
	if _, err := Stores(ctx, []Source{{Store: a, Index: xa}}, "x", Options{}); !errors.Is(err, ErrShortQuery) {
		t.Errorf("Stores(x) error = %v", err)
	}
}

func TestMissingStore(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t)) // no file yet
	x := mustIndex(t, st)
	if r := mustSearch(t, x, "anything"); len(r.Hits) != 0 || r.Partial {
		t.Errorf("search of a missing store = %v partial %v", hitKeys(r), r.Partial)
	}
	mustSession(t, st, "s", codec.UserMessage("first words"))
	if s := mustUpdate(t, x); s.Indexed != 1 {
		t.Errorf("Update once the store exists = %+v", s)
	}
	if n := len(mustSearch(t, x, "first").Hits); n != 1 {
		t.Errorf("first: %d hits", n)
	}
	s, err := x.Rebuild(context.Background(), nil)
	if err != nil || !s.Rebuilt || s.Indexed != 1 || s.Events != 1 {
		t.Errorf("Rebuild = %+v, %v", s, err)
	}
}

func TestSearchBeforeTheFirstUpdate(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	mustSession(t, st, "s", codec.UserMessage("alphaword"))
	t.Setenv(store.CacheDirEnv, t.TempDir())
	x, err := Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if r := mustSearch(t, x, "alphaword"); len(r.Hits) != 0 || !r.Partial || !strings.Contains(r.Note, "(0% of events") {
		t.Errorf("search before any update = %v partial %v note %q", hitKeys(r), r.Partial, r.Note)
	}
	mustUpdate(t, x)
	if r := mustSearch(t, x, "alphaword"); len(r.Hits) != 1 || r.Partial {
		t.Errorf("search after the update = %v partial %v", hitKeys(r), r.Partial)
	}
}

func TestIndexPath(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	x := mustIndex(t, st)
	want, err := IndexPath(st.Path())
	if err != nil || x.Path() != want {
		t.Fatalf("Open's index at %s, IndexPath = %s, %v", x.Path(), want, err)
	}
	cache, err := store.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(want) != filepath.Join(cache, "index") {
		t.Errorf("IndexPath = %s, want it in %s", want, filepath.Join(cache, "index"))
	}
}
