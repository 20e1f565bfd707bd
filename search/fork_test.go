package search

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestForkCopiesRankAfterTheOriginal: a fork's copies of its parent's
// events keep the parent's time (not the fork's, made minutes ago) and
// rank just after the event they copy, in the index's answer, the scan's
// and a page of one; an event the fork added ranks as its own.
func TestForkCopiesRankAfterTheOriginal(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t, testStorePath(t))
	const old = "2025-01-02 03:04:05"
	parent, _, err := st.Transfer().CreateAt(ctx, "main", "parent", old, []codec.Event{
		codec.UserMessage("first"), codec.AssistantText("zorblex one"),
		codec.UserMessage("second"), codec.AssistantText("zorblex two")})
	if err != nil {
		t.Fatal(err)
	}
	other := mustSession(t, st, "other", codec.AssistantText("zorblex other"))
	fork, err := st.Forks().Create(ctx, parent.ID, 3, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Events().Append(ctx, fork.ID, []codec.Event{codec.UserMessage("third"), codec.AssistantText("zorblex fork's own")}); err != nil {
		t.Fatal(err)
	}
	x := mustIndex(t, st)
	key := func(h Hit) string { return fmt.Sprintf("S%d#%d", h.SessionID, h.Seq) }
	own, orig, copied, second, oth := fmt.Sprintf("S%d#4", fork.ID), fmt.Sprintf("S%d#2", parent.ID), fmt.Sprintf("S%d#2", fork.ID),
		fmt.Sprintf("S%d#4", parent.ID), fmt.Sprintf("S%d#1", other.ID)
	want := strings.Join([]string{own, oth, second, orig, copied}, " ")
	for _, tc := range []struct {
		name  string
		query string
		opt   Options
		want  string
	}{
		{"index", "zorblex", Options{}, want},
		{"scan", "zo", Options{}, want},
		{"index, a page of one after the original", "zorblex", Options{Offset: 4, Limit: 1}, copied},
		{"index, the page before the copy", "zorblex", Options{Offset: 2, Limit: 2}, second + " " + orig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := x.Search(ctx, tc.query, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range r.Hits {
				got = append(got, key(h))
				if key(h) == copied && (h.Time != old || !strings.Contains(h.Snippet, "zorblex one")) {
					t.Errorf("the copy's hit %+v, want the parent's time %s and its snippet", h, old)
				}
				if key(h) == own && h.Time == old {
					t.Errorf("the fork's own event has its parent's time")
				}
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("Search(%q, %+v) = %s, want %s", tc.query, tc.opt, strings.Join(got, " "), tc.want)
			}
		})
	}
}
