package search

import (
	"context"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// TestSearchFindsThinking: an agent's thinking is found by Search (with
// the index) and by Scan (without it), in its place among the event hits,
// newest first, and with a limit.
func TestSearchFindsThinking(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t, testStorePath(t))
	mustSession(t, st, "thinks",
		codec.UserMessage("fix the zibblewidget"),                  // 1
		store.Thinking("the Zibblewidget leaks; check pondermark"), // before 2
		codec.AssistantText("zibblewidget fixed"),                  // 2
		store.Thinking("pondermark again, last"),                   // after 2: before the next event
	)
	x := mustIndex(t, st)
	for _, tc := range []struct{ query, want string }{
		{"pondermark", "S1#3 Thinking, S1#2 Thinking"},
		{"zibblewidget", "S1#2 AssistantText, S1#2 Thinking, S1#1 UserMessage"},
		{"leaks pondermark", "S1#2 Thinking"},
		{"pondermark zibble", "S1#2 Thinking"},
	} {
		r := mustSearch(t, x, tc.query)
		if got := strings.Join(hitKeys(r), ", "); got != tc.want {
			t.Errorf("Search(%q) = %q, want %q", tc.query, got, tc.want)
		}
		s, err := Scan(ctx, st, tc.query, Options{})
		if got := strings.Join(hitKeys(s), ", "); err != nil || got != tc.want {
			t.Errorf("Scan(%q) = %q, %v, want %q", tc.query, got, err, tc.want)
		}
	}
	r, err := x.Search(ctx, "zibblewidget", Options{Limit: 2})
	if got := strings.Join(hitKeys(r), ", "); err != nil || got != "S1#2 AssistantText, S1#2 Thinking" || !r.More {
		t.Errorf("Search(zibblewidget, 2) = %q more=%v, %v", got, r.More, err)
	}
	if len(r.Hits) == 2 && (len(r.Hits[1].Highlights) == 0 || r.Hits[1].DisplayName != "thinks") {
		t.Errorf("thinking hit %+v lacks its highlight or session", r.Hits[1])
	}
}

// TestThinkingMatch: a thought is found as an event's text is: ASCII case
// ignored, SQL's LIKE wildcards and backslashes taken literally, a NUL byte
// before the word, and non-ASCII text around it.
func TestThinkingMatch(t *testing.T) {
	st := mustOpenStore(t, testStorePath(t))
	mustSession(t, st, "thinks",
		codec.UserMessage("go"),
		store.Thinking("The QUUXFROB is broken"),             // 2
		store.Thinking("a nul\x00 then quuxfrob_x"),          // 3
		store.Thinking("ünïcode ärounď quuxfrob, ok"),        // 4
		store.Thinking("quuxfrobax: not with an underscore"), // 5
		store.Thinking("100% sure"),                          // 6
		store.Thinking("1000 sure"),                          // 7
		store.Thinking(`see C:\Temp\quux`),                   // 8
		codec.AssistantText("done"),
	)
	x := mustIndex(t, st)
	for _, tc := range []struct {
		query string
		want  int
	}{
		{"quuxfrob", 4},
		{"QuuxFrob broken", 1},
		{"quuxfrob_x", 1},
		{"0% sure", 1},
		{"ärounď quuxfrob", 1},
		{`c:\temp\quux`, 1},
	} {
		if got := len(mustSearch(t, x, tc.query).Hits); got != tc.want {
			t.Errorf("Search(%q) = %d hits, want %d", tc.query, got, tc.want)
		}
	}
}

// TestThinkingIndexed: Update indexes the thoughts (in docs), when a
// deleted session's thoughts' ids are given to new thoughts (the ids of
// lazuli_thinking are not AUTOINCREMENT) the next Update indexes the new
// ones and the old ones are found no more, and a search finds thoughts
// written since the last Update (above the think mark).
func TestThinkingIndexed(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t, testStorePath(t))
	keep := mustSession(t, st, "keep", codec.UserMessage("go"), store.Thinking("a thought of plimsolls")) // thought 1
	gone := mustSession(t, st, "gone",
		codec.UserMessage("go"), store.Thinking("first doomed quandary"), store.Thinking("second doomed quandary")) // 2, 3
	x := mustIndex(t, st)
	if n := thoughtDocs(t, x); n != 3 {
		t.Errorf("after Update, %d thoughts in docs, want 3", n)
	}
	if got := len(mustSearch(t, x, "quandary").Hits); got != 2 {
		t.Errorf("Search(quandary) = %d hits, want 2", got)
	}
	// The newest thoughts go with their session; new ones take their ids
	// (2, 3 and 4).
	if err := st.Sessions().Delete(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Events().Append(ctx, keep.ID, []codec.Event{store.Thinking("zephyr one"), store.Thinking("zephyr two"),
		store.Thinking("zephyr three"), codec.AssistantText("done")}); err != nil {
		t.Fatal(err)
	}
	if th, err := st.Thinking().Of(ctx, keep.ID); err != nil || len(th) != 4 || th[1].ID != 2 {
		t.Fatalf("thinking of keep = %+v, %v; want the ids of the deleted thoughts given again", th, err)
	}
	mustUpdate(t, x)
	for q, want := range map[string]int{"zephyr": 3, "quandary": 0, "plimsolls": 1} {
		if got := len(mustSearch(t, x, q).Hits); got != want {
			t.Errorf("Search(%q) after the ids were given again = %d hits, want %d", q, got, want)
		}
	}
	if n := thoughtDocs(t, x); n != 4 {
		t.Errorf("after the ids were given again, %d thoughts in docs, want 4", n)
	}
	// Written after the last Update: found without one.
	if _, err := st.Events().Append(ctx, keep.ID, []codec.Event{store.Thinking("late marmalade musing"), codec.AssistantText("ok")}); err != nil {
		t.Fatal(err)
	}
	if got := len(mustSearch(t, x, "marmalade").Hits); got != 1 {
		t.Errorf("Search(marmalade) before an Update = %d hits, want 1", got)
	}
}

// thoughtDocs counts the thoughts' rows in x's docs.
func thoughtDocs(t *testing.T, x *Index) int {
	t.Helper()
	var n int
	if err := x.r.QueryRow("SELECT COUNT(*) FROM docs WHERE id <= ?", -thinkingRows).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
