package store

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

func TestGetSession(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	created := mustCreateSession(t, s, "main", "named")
	t.Run("OK", func(t *testing.T) {
		got, err := s.Sessions().Get(ctx, created.ID)
		if err != nil || got.Name != "named" || got.Worktree != "main" || got.DisplayName() != "named" {
			t.Errorf("GetSession() = %+v, %v", got, err)
		}
		if !regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$`).MatchString(got.Created) {
			t.Errorf("created = %q, want SQLite datetime('now') text", got.Created)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		if _, err := s.Sessions().Get(ctx, 42); !errors.Is(err, ErrNotFound) {
			t.Errorf("GetSession(42) error = %v, want ErrNotFound", err)
		}
	})
}

func TestRenameAndUUID(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	if err := s.Sessions().Rename(ctx, sess.ID, "New name"); err != nil {
		t.Fatal(err)
	}
	if err := s.Sessions().SetLastClaudeUUID(ctx, sess.ID, "0199-uuid"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Sessions().Get(ctx, sess.ID)
	if got.Name != "New name" || got.LastClaudeUUID != "0199-uuid" {
		t.Errorf("after updates: %+v", got)
	}
	if err := s.Sessions().Rename(ctx, sess.ID, ""); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Sessions().Get(ctx, sess.ID); got.DisplayName() != "S1" {
		t.Errorf("DisplayName() = %q, want S1", got.DisplayName())
	}
	for name, err := range map[string]error{
		"RenameSession":     s.Sessions().Rename(ctx, 9, "x"),
		"SetLastClaudeUUID": s.Sessions().SetLastClaudeUUID(ctx, 9, "x"),
		"DeleteSession":     s.Sessions().Delete(ctx, 9),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s(9) error = %v, want ErrNotFound", name, err)
		}
	}
}

func TestDeleteSessionReusesIDWithoutOrphans(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	mustCreateSession(t, s, "main", "")
	second := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, second.ID, sampleBatch()...)
	s.Compactions().Add(ctx, second.ID, 2, "sum")
	mustLoad(t, s, second.ID) // cache it
	s.Sessions().List(ctx, "")
	if err := s.Sessions().Delete(ctx, second.ID); err != nil {
		t.Fatal(err)
	}
	again := mustCreateSession(t, s, "main", "")
	if again.ID != second.ID {
		t.Fatalf("new session id = %d, want the reused %d", again.ID, second.ID)
	}
	if evs := mustLoad(t, s, again.ID); len(evs) != 0 {
		t.Errorf("the reused id has %d old events", len(evs))
	}
	if c, _ := s.Compactions().Latest(ctx, again.ID); c != nil {
		t.Errorf("the reused id has an old compaction: %+v", c)
	}
	list, _ := s.Sessions().List(ctx, "")
	for _, sess := range list {
		if sess.EventCount != 0 || sess.CharsSinceCompaction != 0 {
			t.Errorf("session %d after delete: %+v", sess.ID, sess)
		}
	}
	if r, _ := s.Check(ctx); !r.OK() {
		t.Errorf("Check() after delete: %+v", r.Findings)
	}
}

func TestListSessionsCounts(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	a := mustCreateSession(t, s, "main", "a")
	b := mustCreateSession(t, s, "feature", "b")
	mustAppend(t, s, a.ID, sampleBatch()...)
	mustAppend(t, s, b.ID, codec.UserMessage("12345"), codec.Hook("h", "ab"))
	rawExec(t, s.Path(), "INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (2, 3, 'AssistantText', X'28b52ffd00', 7)")
	list, err := s.Sessions().List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64][3]int64{}
	for _, sess := range list {
		got[sess.ID] = [3]int64{sess.EventCount, sess.MessageCount, sess.CharsSinceCompaction}
	}
	// char_len: "Hello" 5 + "Hi there!" 9 + Read call 4+28 + result 12; "12345" 5 + hook 2 + raw row 7.
	want := map[int64][3]int64{a.ID: {4, 2, 58}, b.ID: {3, 2, 14}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("counts = %v, want %v", got, want)
	}
	if evs := mustLoad(t, s, b.ID); len(evs) != 2 {
		t.Errorf("the undecodable row was not skipped: %d events", len(evs))
	}
	if r, _ := s.Events().Load(ctx, b.ID, 0, 0); r.Skipped != 1 {
		t.Errorf("Load().Skipped = %d, want 1", r.Skipped)
	}
	only, _ := s.Sessions().List(ctx, "feature")
	if !reflect.DeepEqual(sessionIDs(only), []int64{b.ID}) {
		t.Errorf("ListSessions(feature) = %v", sessionIDs(only))
	}
}

// TestListCacheFollowsOtherWriters checks the incremental list cache against
// a full recount while another Store appends, compacts, deletes and reuses
// session ids in the same file.
func TestListCacheFollowsOtherWriters(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	mustCreateSession(t, s, "main", "")
	other := mustOpenPath(t, s.Path())
	steps := []func(){
		func() { mustAppend(t, other, 1, sampleBatch()...) },
		func() { mustCreateSession(t, other, "main", ""); mustAppend(t, other, 2, codec.UserMessage("two")) },
		func() { other.Compactions().Add(ctx, 1, 2, "sum") },
		func() { mustAppend(t, other, 1, codec.AssistantText("after compaction")) },
		func() { other.Compactions().Add(ctx, 1, 1, "older boundary, newer row") },
		func() { other.Sessions().Delete(ctx, 2) },
		func() { mustCreateSession(t, other, "main", "reused"); mustAppend(t, other, 2, codec.UserMessage("x")) },
		func() { other.Sessions().Delete(ctx, 2); mustCreateSession(t, other, "main", "") },
		func() { mustAppend(t, s, 1, codec.UserMessage("own write")) },
		func() { s.Sessions().Delete(ctx, 1) },
	}
	for i, step := range steps {
		step()
		got, err := s.Sessions().List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		fresh := mustOpenPath(t, s.Path())
		want, _ := fresh.Sessions().List(ctx, "")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("step %d: cached list\n%+v\nwant\n%+v", i, got, want)
		}
		for _, sess := range got {
			if g, _ := s.Sessions().Get(ctx, sess.ID); !reflect.DeepEqual(g, sess) {
				t.Errorf("step %d: GetSession(%d) = %+v, list has %+v", i, sess.ID, g, sess)
			}
		}
	}
}

func TestSessionNamesEmptyStore(t *testing.T) {
	s := mustOpen(t)
	names, err := s.Sessions().Names(context.Background())
	if err != nil || len(names) != 0 {
		t.Errorf("SessionNames() = %v, %v", names, err)
	}
	for i := range 3 {
		mustCreateSession(t, s, "main", fmt.Sprint("n", i))
	}
	if names, _ := s.Sessions().Names(context.Background()); len(names) != 3 || names[2] != "n1" {
		t.Errorf("SessionNames() = %v", names)
	}
}
