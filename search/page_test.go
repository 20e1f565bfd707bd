package search

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// pagingStore holds three sessions with 5, 1 and 3 hits for "quarkword"
// (one of them a thought, one a compaction summary) among other events,
// and returns it with its index.
func pagingStore(t *testing.T) (*store.Store, *Index) {
	t.Helper()
	st := mustOpenStore(t, testStorePath(t))
	mustSession(t, st, "five",
		codec.UserMessage("quarkword one"), codec.AssistantText("nothing"),
		codec.AssistantText("quarkword two"), store.Thinking("a quarkword thought"),
		codec.AssistantText("quarkword three"), codec.AssistantText("quarkword four"))
	mustSession(t, st, "one", codec.AssistantText("quarkword alone"), codec.AssistantText("other"))
	three := mustSession(t, st, "three",
		codec.AssistantText("quarkword a"), codec.AssistantText("quarkword b"), codec.AssistantText("unrelated"))
	if _, err := st.Compactions().Add(context.Background(), three.ID, 2, "summary with quarkword"); err != nil {
		t.Fatal(err)
	}
	return st, mustIndex(t, st)
}

// TestPaging: pages of any size, joined, are the whole answer, each hit
// on a page has its snippet, and More says whether another page follows;
// Scan pages as Search does.
func TestPaging(t *testing.T) {
	st, x := pagingStore(t)
	ctx := context.Background()
	whole, err := x.Search(ctx, "quarkword", Options{Limit: 100})
	if err != nil || len(whole.Hits) != 9 || whole.More {
		t.Fatalf("Search(quarkword) = %v more %v, %v; want 9 hits", hitKeys(whole), whole.More, err)
	}
	want := hitKeys(whole)
	search := map[string]func(Options) (Result, error){
		"Search": func(o Options) (Result, error) { return x.Search(ctx, "quarkword", o) },
		"Scan":   func(o Options) (Result, error) { return Scan(ctx, st, "quarkword", o) },
		"Stores": func(o Options) (Result, error) {
			return Stores(ctx, []Source{{Store: st, Index: x}, {Store: st}}, "quarkword", o)
		},
	}
	for name, find := range search {
		all, err := find(Options{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		whole := hitKeys(all)
		if name == "Stores" { // the same store twice
			if len(whole) != 2*len(want) {
				t.Errorf("Stores(the store twice) = %q, want each of %q twice", whole, want)
			}
		} else if strings.Join(whole, ", ") != strings.Join(want, ", ") {
			t.Errorf("%s(quarkword) = %q, want %q", name, whole, want)
		}
		for limit := 1; limit <= 10; limit++ {
			var got []string
			for offset := 0; ; offset += limit {
				r, err := find(Options{Limit: limit, Offset: offset})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range r.Hits {
					if h.Snippet == "" || len(h.Highlights) == 0 {
						t.Errorf("%s(limit %d, offset %d): hit %s has no snippet", name, limit, offset, hitKeys(Result{Hits: []Hit{h}}))
					}
				}
				got = append(got, hitKeys(r)...)
				if wantMore := offset+limit < len(whole); r.More != wantMore {
					t.Errorf("%s(limit %d, offset %d).More = %v, want %v", name, limit, offset, r.More, wantMore)
				}
				if !r.More {
					break
				}
			}
			if strings.Join(got, ", ") != strings.Join(whole, ", ") {
				t.Errorf("%s pages of %d = %q, want %q", name, limit, got, whole)
			}
		}
	}
	if r, err := x.Search(ctx, "quarkword", Options{Limit: 5, Offset: 50}); err != nil || len(r.Hits) != 0 || r.More {
		t.Errorf("Search(offset past the end) = %v more %v, %v", hitKeys(r), r.More, err)
	}
}

// TestSessions: Options.Sessions lists every session with hits once, with
// its number of hits (events, thoughts and compaction summaries) and its
// newest hit, ranked by hits, and pages them.
func TestSessions(t *testing.T) {
	st, x := pagingStore(t)
	ctx := context.Background()
	want := []string{"five 5 #5 AssistantText", "three 3 #2 Compaction", "one 1 #1 AssistantText"}
	show := func(r Result) []string {
		var out []string
		for _, s := range r.Sessions {
			out = append(out, fmt.Sprintf("%s %d #%d %s", s.DisplayName, s.Hits, s.Newest.Seq, s.Newest.Kind))
			if s.Newest.Snippet == "" || !strings.Contains(strings.ToLower(s.Newest.Snippet), "quarkword") {
				t.Errorf("session %s: newest hit's snippet %q", s.DisplayName, s.Newest.Snippet)
			}
		}
		return out
	}
	for name, find := range map[string]func(Options) (Result, error){
		"Search": func(o Options) (Result, error) { return x.Search(ctx, "quarkword", o) },
		"Scan":   func(o Options) (Result, error) { return Scan(ctx, st, "quarkword", o) },
		"Stores": func(o Options) (Result, error) {
			return Stores(ctx, []Source{{Store: st, Index: x}}, "quarkword", o)
		},
	} {
		r, err := find(Options{Sessions: true})
		if got := show(r); err != nil || strings.Join(got, ", ") != strings.Join(want, ", ") || r.More || r.Hits != nil {
			t.Errorf("%s(sessions) = %q more %v, %v; want %q", name, got, r.More, err, want)
		}
		r, err = find(Options{Sessions: true, Limit: 1, Offset: 1})
		if got := show(r); err != nil || len(got) != 1 || got[0] != want[1] || !r.More {
			t.Errorf("%s(sessions, limit 1, offset 1) = %q more %v, %v; want %q and more", name, got, r.More, err, want[1])
		}
	}
}

// TestCompleteWithoutBudget: without a Budget, a search checks every
// candidate however long it takes (here: a clock that moves an hour each
// time it is read), so the answer of a word in more events than any budget
// allows is whole; with a Budget, the same search stops and says so.
func TestCompleteWithoutBudget(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	n := 4 * maxChunk
	evs := make([]codec.Event, n)
	for i := range evs {
		evs[i] = codec.AssistantText(fmt.Sprintf("commonword %d", i))
	}
	mustSession(t, st, "many", evs...)
	x := mustIndex(t, st)
	x.now = (&fakeClock{step: time.Hour}).now
	ctx := context.Background()
	for _, opt := range []Options{{Limit: n + 1}, {Sessions: true}} {
		r, err := x.Search(ctx, "commonword", opt)
		got := len(r.Hits)
		if opt.Sessions && len(r.Sessions) == 1 {
			got = r.Sessions[0].Hits
		}
		if err != nil || got != n || r.Partial || r.More {
			t.Errorf("Search(commonword, %+v) on a slow machine = %d hits, partial %v, more %v, %v; want %d",
				opt, got, r.Partial, r.More, err, n)
		}
	}
	r, err := x.Search(ctx, "commonword", Options{Limit: n + 1, Budget: TypingBudget})
	if err != nil || !r.Partial || r.Note != budgetNote || len(r.Hits) >= n {
		t.Errorf("Search(commonword) with a budget on a slow machine = %d hits, partial %v note %q, %v", len(r.Hits), r.Partial, r.Note, err)
	}
}
