package store

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// thinkingPair writes the same conversation into two stores, one with the
// agent's thinking between its events and one without.
func thinkingPair(t *testing.T) (with, without *Store, id int64) {
	t.Helper()
	plain := []codec.Event{codec.UserMessage("why?"), codec.AssistantText("because"), codec.ToolCall("t1", "Bash", nil, []byte(`{"command":"ls"}`)), codec.ToolResult("t1", "Bash", nil, "a\nb", false)}
	thinking := []codec.Event{codec.UserMessage("why?"), Thinking("let me think it over"), codec.AssistantText("because"),
		Thinking(""), Thinking("now list the files"), Thinking("twice"), plain[2], plain[3], Thinking("the end")}
	with, without = mustOpen(t), mustOpen(t)
	a := mustCreateSession(t, with, "main", "")
	b := mustCreateSession(t, without, "main", "")
	mustAppend(t, with, a.ID, thinking...)
	mustAppend(t, without, b.ID, plain...)
	return with, without, a.ID
}

// TestThinkingStaysOutOfEvents: thinking takes no events row, no seq, no
// char_len, so AZUREAL's dump, counts, context and meter are those of the
// same conversation without it; Lazuli's load shows it before its event.
func TestThinkingStaysOutOfEvents(t *testing.T) {
	ctx := context.Background()
	with, without, id := thinkingPair(t)
	got, err := with.Dump(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want, err := without.Dump(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got.Sessions[0].Created = want.Sessions[0].Created // written a second apart, maybe
	if d := firstDiff("dump", got, want); d != "" {
		t.Errorf("AZUREAL's view of the store changed: %s", d)
	}
	for _, q := range []string{"SELECT COUNT(*) FROM events", "SELECT SUM(char_len) FROM events", "SELECT group_concat(kind || seq) FROM events"} {
		if g, w := rawQueryString(t, with.Path(), q), rawQueryString(t, without.Path(), q); g != w {
			t.Errorf("%s = %s, want %s", q, g, w)
		}
	}
	sw, _ := with.Sessions().Get(ctx, id)
	so, _ := without.Sessions().Get(ctx, 1)
	if sw.EventCount != so.EventCount || sw.MessageCount != so.MessageCount || sw.CharsSinceCompaction != so.CharsSinceCompaction {
		t.Errorf("session %+v, want the counts of %+v", sw, so)
	}
	cw, err := with.Compactions().Context(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	co, _ := without.Compactions().Context(ctx, 1)
	if codec.BuildContextPrompt(cw, "next") != codec.BuildContextPrompt(co, "next") {
		t.Error("thinking reached the context prompt")
	}
	events := mustLoad(t, with, id)
	var shown [][]string
	for _, e := range events {
		shown = append(shown, e.Thinking)
	}
	wantShown := [][]string{nil, {"let me think it over"}, {"now list the files", "twice"}, nil}
	if !reflect.DeepEqual(shown, wantShown) {
		t.Errorf("thinking per event = %q, want %q", shown, wantShown)
	}
	// A range load gets the thinking of its range only.
	part, err := with.Events().Range(ctx, id, 3, 3)
	if err != nil || len(part) != 1 || !slices.Equal(part[0].Thinking, []string{"now list the files", "twice"}) {
		t.Errorf("LoadEventsRange(3, 3) = %+v, %v", part, err)
	}
	// The trailing thought waits for the event after it.
	mustAppend(t, with, id, codec.AssistantText("done"))
	events = mustLoad(t, with, id)
	if last := events[len(events)-1]; !slices.Equal(last.Thinking, []string{"the end"}) {
		t.Errorf("the event after the trailing thought has %q", last.Thinking)
	}
	all, err := with.Thinking().Of(ctx, id)
	if err != nil || len(all) != 4 {
		t.Errorf("Thinking().Of() = %+v, %v", all, err)
	}
	if th, err := without.Thinking().Of(ctx, 1); err != nil || th != nil {
		t.Errorf("a store without the table: Thoughts() = %v, %v", th, err)
	}
	if rep, err := with.Check(ctx); err != nil || len(rep.Findings) != 0 {
		t.Errorf("Check() of a store with thinking = %+v, %v", rep.Findings, err)
	}
}

// TestThinkingUnderAZUREAL plays AZUREAL's side on a store with thinking:
// its schema script and migration, its list query and its load query (which
// never sees a thinking row), then its delete, whose cascade takes the
// thinking along. A session that reuses the deleted one's id (foreign keys
// off) does not inherit it.
func TestThinkingUnderAZUREAL(t *testing.T) {
	ctx := context.Background()
	with, _, _ := thinkingPair(t)
	path := with.Path()
	with.Close()
	db, conn := openAsAZUREAL(t, path)
	var events, messages int
	err := conn.QueryRowContext(ctx, `SELECT COUNT(e.id), SUM(CASE WHEN e.kind IN ('UserMessage','AssistantText') THEN 1 ELSE 0 END)
		FROM sessions s LEFT JOIN events e ON e.session_id = s.id GROUP BY s.id`).Scan(&events, &messages)
	if err != nil || events != 4 || messages != 2 {
		t.Fatalf("AZUREAL's list query: %d events, %d messages, %v", events, messages, err)
	}
	for _, q := range []string{"DELETE FROM sessions WHERE id = 1", "VACUUM"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var left int
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM lazuli_thinking").Scan(&left); err != nil || left != 0 {
		t.Errorf("thinking rows after AZUREAL's delete: %d, %v", left, err)
	}
	conn.Close()
	db.Close()

	// Foreign keys off: the rows stay, but a new session with the same id
	// (and another created time) does not show them.
	s := mustOpen(t)
	a := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, a.ID, codec.UserMessage("q"), Thinking("old thought"), codec.AssistantText("a"))
	rawExec(t, s.Path(), "DELETE FROM sessions WHERE id = 1",
		"INSERT INTO sessions(id, worktree, created) VALUES (1, 'main', '2000-01-01 00:00:00')")
	if th, err := s.Thinking().Of(ctx, a.ID); err != nil || len(th) != 0 {
		t.Errorf("a reused session id shows %v, %v", th, err)
	}
}

// TestMergeCopiesThinking: merge and export carry a session's thinking
// with it, before the same events.
func TestMergeCopiesThinking(t *testing.T) {
	ctx := context.Background()
	with, _, id := thinkingPair(t)
	dst := mustOpen(t)
	mustCreateSession(t, dst, "main", "") // the copy gets another id
	if _, err := dst.Transfer().Merge(ctx, with); err != nil {
		t.Fatal(err)
	}
	want, _ := with.Thinking().Of(ctx, id)
	got, err := dst.Thinking().Of(ctx, 2)
	if err != nil || len(got) != len(want) {
		t.Fatalf("merged thoughts %+v, %v; want %+v", got, err, want)
	}
	for i := range got {
		if got[i].BeforeSeq != want[i].BeforeSeq || got[i].Text != want[i].Text {
			t.Errorf("thought %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	out := filepath.Join(t.TempDir(), "export.azs")
	if err := with.Transfer().Export(ctx, []int64{id}, out); err != nil {
		t.Fatal(err)
	}
	exp := mustOpenPath(t, out)
	if got, err := exp.Thinking().Of(ctx, 1); err != nil || len(got) != len(want) {
		t.Errorf("exported thoughts %+v, %v", got, err)
	}
}

// TestScanThoughtsMatch: Thinking().Scan hands fn the thoughts match accepts,
// in order of their ids, each with the events.id of the event it precedes
// (one more than the largest for thinking after the last event), and
// never the others.
func TestScanThoughtsMatch(t *testing.T) {
	ctx := context.Background()
	st, _, id := thinkingPair(t)
	evs, err := st.Events().All(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	last := evs[len(evs)-1].ID
	var seen []string
	var got []string
	err = st.Thinking().Scan(ctx, func(th Thought) bool {
		seen = append(seen, th.Text)
		return th.Text == "let me think it over" || th.Text == "the end"
	}, func(th Thought, order int64) error {
		got = append(got, fmt.Sprintf("%s@%d", th.Text, order))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{fmt.Sprintf("let me think it over@%d", evs[1].ID), fmt.Sprintf("the end@%d", last+1)}
	if !slices.Equal(got, want) {
		t.Errorf("Thinking().Scan gave %q, want %q", got, want)
	}
	if len(seen) != 4 {
		t.Errorf("match saw %q, want the 4 thoughts with text", seen)
	}
}

// TestThoughtsAfterAndByID: After pages through the thoughts by id, ByID
// reads those asked for that exist and From those above an id, each with
// the order Scan gives, and none returns the thoughts of a deleted
// session.
func TestThoughtsAfterAndByID(t *testing.T) {
	ctx := context.Background()
	st, _, id := thinkingPair(t)
	all, err := st.Thinking().After(ctx, 0, 100)
	if err != nil || len(all) < 3 {
		t.Fatalf("After(0, 100) = %d thoughts, %v; want the pair's", len(all), err)
	}
	page, err := st.Thinking().After(ctx, all[0].ID, 2)
	if err != nil || len(page) != 2 || page[0].ID != all[1].ID || page[1].ID != all[2].ID {
		t.Errorf("After(%d, 2) = %+v, %v, want the next two", all[0].ID, page, err)
	}
	orders := map[int64]int64{}
	if err := st.Thinking().Scan(ctx, func(Thought) bool { return true }, func(th Thought, order int64) error {
		orders[th.ID] = order
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var got []string
	err = st.Thinking().ByID(ctx, []int64{all[2].ID, 1 << 40, all[0].ID}, func(th Thought, order int64) error {
		if order != orders[th.ID] {
			t.Errorf("ByID: thought %d has order %d, Scan says %d", th.ID, order, orders[th.ID])
		}
		got = append(got, th.Text)
		return nil
	})
	if want := []string{all[0].Text, all[2].Text}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ByID = %q, %v, want %q (in order of ids, the missing one left out)", got, err, want)
	}
	var from []int64
	if err := st.Thinking().From(ctx, all[0].ID, func(th Thought, order int64) error {
		if order != orders[th.ID] {
			t.Errorf("From: thought %d has order %d, Scan says %d", th.ID, order, orders[th.ID])
		}
		from = append(from, th.ID)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(from) != len(all)-1 || from[0] != all[1].ID {
		t.Errorf("From(%d) gave thoughts %v, want every one after it", all[0].ID, from)
	}
	if err := st.Sessions().Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	left, err := st.Thinking().After(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range left {
		if th.SessionID == id {
			t.Errorf("After gives thought %d of deleted session %d", th.ID, id)
		}
	}
	err = st.Thinking().ByID(ctx, []int64{all[0].ID}, func(th Thought, _ int64) error {
		if th.SessionID == id {
			t.Errorf("ByID gives thought %d of deleted session %d", th.ID, id)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
