package store

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// The tests in this file are the store vectors of spec §8 (AZUREAL's own
// session_store.rs unit tests), numbered as there.

func kinds(evs []StoredEvent) []codec.Kind {
	out := make([]codec.Kind, len(evs))
	for i, e := range evs {
		out[i] = e.Kind
	}
	return out
}

func seqs(evs []StoredEvent) []int64 {
	out := make([]int64, len(evs))
	for i, e := range evs {
		out[i] = e.Seq
	}
	return out
}

func sampleBatch() []codec.Event {
	p := "/src/main.rs"
	return []codec.Event{
		codec.UserMessage("Hello"), codec.AssistantText("Hi there!"),
		codec.ToolCall("t1", "Read", &p, json.RawMessage(`{"file_path":"/src/main.rs"}`)),
		codec.ToolResult("t1", "Read", &p, "fn main() {}", false),
	}
}

func TestVector01FreshSchema(t *testing.T) {
	s := mustOpen(t)
	mustCreateSession(t, s, "main", "")
	if got := rawQueryString(t, s.Path(), "SELECT value FROM meta WHERE key = 'schema_version'"); got != "3" {
		t.Errorf("schema_version = %q, want 3", got)
	}
	cols := rawQueryString(t, s.Path(), "SELECT group_concat(name, ',') FROM pragma_table_info('sessions')")
	for _, c := range legacyColumns {
		if strings.Contains(cols, c) {
			t.Errorf("legacy column %s present: %s", c, cols)
		}
	}
	master := rawQueryString(t, s.Path(), "SELECT group_concat(sql, ';') FROM sqlite_master")
	db := s.wdb
	for range 2 { // schema script and migration are idempotent
		tx, err := db.BeginTx(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := migrate(context.Background(), tx, s.Path()); err != nil {
			t.Fatalf("migrate again: %v", err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if again := rawQueryString(t, s.Path(), "SELECT group_concat(sql, ';') FROM sqlite_master"); again != master {
		t.Errorf("re-running the migration changed the schema:\n%s\n%s", master, again)
	}
}

func TestVector02CreateSessions(t *testing.T) {
	s := mustOpen(t)
	for want := int64(1); want <= 3; want++ {
		if sess := mustCreateSession(t, s, "main", ""); sess.ID != want || sess.Name != "" {
			t.Errorf("CreateSession() = id %d name %q, want id %d name ''", sess.ID, sess.Name, want)
		}
	}
}

func TestVector03Names(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	mustCreateSession(t, s, "main", "")
	mustCreateSession(t, s, "main", "")
	mustCreateSession(t, s, "main", "")
	if err := s.Sessions().Rename(ctx, 3, "Renamed"); err != nil {
		t.Fatal(err)
	}
	names, err := s.Sessions().Names(ctx)
	want := map[int64]string{1: "S1", 2: "S2", 3: "Renamed"}
	if err != nil || !reflect.DeepEqual(names, want) {
		t.Errorf("SessionNames() = %v, %v, want %v", names, err, want)
	}
}

func TestVector04SampleBatch(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	if n := mustAppend(t, s, sess.ID, sampleBatch()...); n != 4 {
		t.Fatalf("AppendEvents() = %d, want 4", n)
	}
	got, err := s.Sessions().Get(ctx, sess.ID)
	if err != nil || got.EventCount != 4 || got.MessageCount != 2 {
		t.Errorf("GetSession() = %+v, %v, want 4 events, 2 messages", got, err)
	}
	list, _ := s.Sessions().List(ctx, "")
	if len(list) != 1 || list[0].EventCount != 4 || list[0].MessageCount != 2 {
		t.Errorf("ListSessions() = %+v", list)
	}
	evs := mustLoad(t, s, sess.ID)
	wantKinds := []codec.Kind{codec.KindUserMessage, codec.KindAssistantText, codec.KindToolCall, codec.KindToolResult}
	if !reflect.DeepEqual(kinds(evs), wantKinds) || !reflect.DeepEqual(seqs(evs), []int64{1, 2, 3, 4}) {
		t.Errorf("LoadEvents() = %v %v", kinds(evs), seqs(evs))
	}
}

func TestVector05FilteredSkipped(t *testing.T) {
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	if n := mustAppend(t, s, sess.ID, codec.UserMessage("hi"), codec.Unit(codec.KindFiltered), codec.AssistantText("hello")); n != 2 {
		t.Errorf("AppendEvents() = %d, want 2", n)
	}
}

func TestVector06UnitVariants(t *testing.T) {
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	if n := mustAppend(t, s, sess.ID, codec.Unit(codec.KindCompacting), codec.Unit(codec.KindCompacted), codec.Unit(codec.KindMayBeCompacting)); n != 2 {
		t.Fatalf("AppendEvents() = %d, want 2", n)
	}
	if got := kinds(mustLoad(t, s, sess.ID)); !reflect.DeepEqual(got, []codec.Kind{codec.KindCompacting, codec.KindCompacted}) {
		t.Errorf("LoadEvents() kinds = %v", got)
	}
}

func TestVector07SeqContinues(t *testing.T) {
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, codec.UserMessage("one"))
	mustAppend(t, s, sess.ID, codec.UserMessage("two"))
	if got := seqs(mustLoad(t, s, sess.ID)); !reflect.DeepEqual(got, []int64{1, 2}) {
		t.Errorf("seqs = %v, want [1 2]", got)
	}
}

func TestVector08Ranges(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, sampleBatch()...)
	from3, err := s.Events().Range(ctx, sess.ID, 3, 0)
	if err != nil || len(from3) != 2 || from3[0].Kind != codec.KindToolCall {
		t.Errorf("LoadEventsRange(3, 0) = %v, %v", kinds(from3), err)
	}
	if evs, err := s.Events().Range(ctx, sess.ID, 100, 0); err != nil || len(evs) != 0 {
		t.Errorf("LoadEventsRange(100, 0) = %v, %v", evs, err)
	}
	other := mustCreateSession(t, s, "main", "")
	for i := range 10 {
		mustAppend(t, s, other.ID, codec.AssistantText(fmt.Sprint(i)))
	}
	if evs, err := s.Events().Range(ctx, other.ID, 3, 6); err != nil || !reflect.DeepEqual(seqs(evs), []int64{3, 4, 5, 6}) {
		t.Errorf("LoadEventsRange(3, 6) = %v, %v", seqs(evs), err)
	}
}

func sessionIDs(list []Session) []int64 {
	out := make([]int64, len(list))
	for i, s := range list {
		out[i] = s.ID
	}
	return out
}

func TestVector09ListOrder(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	mustCreateSession(t, s, "main", "")
	mustCreateSession(t, s, "main", "")
	if list, _ := s.Sessions().List(ctx, ""); !reflect.DeepEqual(sessionIDs(list), []int64{2, 1}) {
		t.Errorf("order without events = %v, want [2 1]", sessionIDs(list))
	}
	mustCreateSession(t, s, "main", "")
	mustAppend(t, s, 1, codec.UserMessage("x"))
	if list, _ := s.Sessions().List(ctx, ""); !reflect.DeepEqual(sessionIDs(list), []int64{1, 3, 2}) {
		t.Errorf("order = %v, want [1 3 2]", sessionIDs(list))
	}
}

func TestVector10RenameWorktree(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	first := mustCreateSession(t, s, "feature/old", "")
	second := mustCreateSession(t, s, "feature/old", "")
	mustCreateSession(t, s, "main", "")
	if n, err := s.Sessions().RenameWorktree(ctx, "feature/old", "feature/new"); err != nil || n != 2 {
		t.Fatalf("RenameWorktree() = %d, %v, want 2", n, err)
	}
	list, err := s.Sessions().List(ctx, "feature/new")
	if err != nil || !reflect.DeepEqual(sessionIDs(list), []int64{second.ID, first.ID}) {
		t.Errorf("ListSessions(feature/new) = %v, %v", sessionIDs(list), err)
	}
}

func TestVector11DeleteCascades(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, sampleBatch()...)
	if _, err := s.Compactions().Add(ctx, sess.ID, 2, "sum"); err != nil {
		t.Fatal(err)
	}
	if err := s.Sessions().Delete(ctx, sess.ID); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"events", "compactions", "sessions"} {
		if n := rawQueryString(t, s.Path(), "SELECT COUNT(*) FROM "+table); n != "0" {
			t.Errorf("%s rows after delete = %s, want 0", table, n)
		}
	}
}

func TestVector12Completion(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	check := func(step string, completed *bool, duration *int64, cost *float64) {
		t.Helper()
		got, err := s.Sessions().Get(ctx, sess.ID)
		if err != nil || !reflect.DeepEqual(got.Completed, completed) || !reflect.DeepEqual(got.DurationMS, duration) ||
			!reflect.DeepEqual(got.CostUSD, cost) {
			t.Errorf("%s: completion = %v %v %v, %v", step, ptrStr(got.Completed), ptrStr(got.DurationMS), ptrStr(got.CostUSD), err)
		}
	}
	yes, dur, cost := true, int64(5000), 0.05
	mustAppend(t, s, sess.ID, codec.UserMessage("go"), codec.Complete(true, 5000, 0.05))
	check("after Complete", &yes, &dur, &cost)
	mustAppend(t, s, sess.ID, codec.UserMessage("again"))
	check("after turn content", nil, nil, nil)
	mustAppend(t, s, sess.ID, codec.Complete(true, 5000, 0.05))
	mustAppend(t, s, sess.ID, codec.ModelSwitch("opus"))
	check("after ModelSwitch", &yes, &dur, &cost)
	if n := mustAppend(t, s, sess.ID, codec.UserMessage("# AGENTS.md instructions for /repo\n<INSTRUCTIONS>x</INSTRUCTIONS>")); n != 0 {
		t.Errorf("hidden Codex context stored %d rows", n)
	}
	check("after hidden context", &yes, &dur, &cost)
}

func ptrStr[T any](p *T) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

func TestVector13Chars(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	chars := func() int64 {
		t.Helper()
		n, err := s.Compactions().CharsSince(ctx, sess.ID)
		if err != nil {
			t.Fatal(err)
		}
		list, _ := s.Sessions().List(ctx, "")
		if list[0].CharsSinceCompaction != n {
			t.Errorf("ListSessions chars = %d, CharsSinceCompaction = %d", list[0].CharsSinceCompaction, n)
		}
		return n
	}
	mustAppend(t, s, sess.ID, codec.UserMessage("12345"))
	s.Compactions().Add(ctx, sess.ID, 1, "sum")
	mustAppend(t, s, sess.ID, codec.UserMessage("abc"))
	if n := chars(); n != 3 {
		t.Errorf("chars = %d, want 3", n)
	}
	big := mustCreateSession(t, s, "main", "")
	sess = big
	x := strings.Repeat("x", 200_000)
	mustAppend(t, s, big.ID, codec.UserMessage(x), codec.AssistantText(x))
	if n := chars(); n != 400_000 || n < CompactionThreshold {
		t.Errorf("chars = %d, want 400000 (≥ threshold)", n)
	}
	s.Compactions().Add(ctx, big.ID, 2, "sum")
	if n := chars(); n != 0 {
		t.Errorf("chars after compaction = %d, want 0", n)
	}
	mustAppend(t, s, big.ID, codec.UserMessage("short"))
	if n := chars(); n != 5 {
		t.Errorf("chars = %d, want 5", n)
	}
}

// appendPairs appends n User/Assistant pairs (users at seqs 1, 3, 5, …).
func appendPairs(t *testing.T, s *Store, id int64, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		mustAppend(t, s, id, codec.UserMessage(fmt.Sprintf("question %d", i)), codec.AssistantText(fmt.Sprintf("answer %d", i)))
	}
}

func TestVector14Boundary(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		users        int
		from         int64
		keep         int
		want         int64
		wantBoundary bool
	}{
		{2, 1, 3, 0, false}, {3, 1, 3, 0, false}, {5, 1, 3, 4, true}, {4, 1, 3, 2, true},
		{6, 5, 3, 6, true}, {5, 7, 3, 0, false}, {6, 1, 3, 6, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("users%d_from%d_keep%d", tt.users, tt.from, tt.keep), func(t *testing.T) {
			s := mustOpen(t)
			sess := mustCreateSession(t, s, "main", "")
			appendPairs(t, s, sess.ID, tt.users)
			got, ok, err := s.Compactions().Boundary(ctx, sess.ID, tt.from, tt.keep)
			if err != nil || ok != tt.wantBoundary || got != tt.want {
				t.Errorf("CompactionBoundary(%d, %d) = %d, %v, %v, want %d, %v", tt.from, tt.keep, got, ok, err, tt.want, tt.wantBoundary)
			}
		})
	}
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	appendPairs(t, s, sess.ID, 6)
	b, _, _ := s.Compactions().Boundary(ctx, sess.ID, 1, 3)
	if evs, _ := s.Events().Range(ctx, sess.ID, 1, b); len(evs) != 6 {
		t.Errorf("range 1–%d has %d events, want 6", b, len(evs))
	}
	s.Compactions().Add(ctx, sess.ID, b, "the summary")
	p, err := s.Compactions().Context(ctx, sess.ID)
	if err != nil || p == nil || len(p.Events) != 6 || p.Events[0].Content != "question 4" || p.Events[5].Text != "answer 6" {
		t.Fatalf("BuildContext() = %+v, %v", p, err)
	}
	prompt := codec.BuildContextPrompt(p, "next")
	for _, want := range []string{"[Previous conversation summary]", "the summary", "[Conversation continues]", "question 4", "answer 6"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %q", want)
		}
	}
	if !strings.HasSuffix(prompt, "next") || strings.Contains(prompt, "question 1") {
		t.Errorf("prompt = %q", prompt)
	}
}

func TestVector15MultipleCompactions(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	appendPairs(t, s, sess.ID, 10)
	s.Compactions().Add(ctx, sess.ID, 4, "First summary")
	s.Compactions().Add(ctx, sess.ID, 14, "Second summary")
	p, err := s.Compactions().Context(ctx, sess.ID)
	if err != nil || p == nil || *p.Summary != "Second summary" || len(p.Events) != 6 {
		t.Fatalf("BuildContext() = %+v, %v", p, err)
	}
	evs, _ := s.Events().Range(ctx, sess.ID, 15, 0)
	if evs[0].Seq != 15 || len(codec.BuildContextPrompt(p, "go")) < 8 {
		t.Errorf("events start at seq %d", evs[0].Seq)
	}
}

func TestVector16LatestCompaction(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	s.Compactions().Add(ctx, sess.ID, 15, "later boundary")
	s.Compactions().Add(ctx, sess.ID, 5, "newer row, earlier boundary")
	c, err := s.Compactions().Latest(ctx, sess.ID)
	if err != nil || c == nil || c.AfterSeq != 15 {
		t.Errorf("LatestCompaction() = %+v, %v, want after_seq 15", c, err)
	}
}

func TestVector17EmptyContext(t *testing.T) {
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	p, err := s.Compactions().Context(context.Background(), sess.ID)
	if err != nil || p != nil || codec.BuildContextPrompt(p, "hello") != "hello" {
		t.Errorf("BuildContext() = %+v, %v; want nil and the prompt unchanged", p, err)
	}
}

func TestVector18OnlySummary(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	appendPairs(t, s, sess.ID, 2)
	s.Compactions().Add(ctx, sess.ID, 4, "all of it")
	p, err := s.Compactions().Context(ctx, sess.ID)
	if err != nil || p == nil || len(p.Events) != 0 {
		t.Fatalf("BuildContext() = %+v, %v", p, err)
	}
	prompt := codec.BuildContextPrompt(p, "go on")
	if !strings.Contains(prompt, "[Previous conversation summary]\nall of it") || !strings.HasSuffix(prompt, "go on") {
		t.Errorf("prompt = %q", prompt)
	}
}

func TestVector19InjectedUserMessage(t *testing.T) {
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	wrapped := codec.ContextOpenTag + "\n## User\nold\n" + codec.ContextCloseTag + "\n\nvisible prompt"
	if n := mustAppend(t, s, sess.ID, codec.UserMessage(wrapped)); n != 1 {
		t.Fatalf("AppendEvents() = %d, want 1", n)
	}
	evs := mustLoad(t, s, sess.ID)
	if evs[0].Event.Content != "visible prompt" || evs[0].CharLen != int64(len("visible prompt")) {
		t.Errorf("stored %q char_len %d", evs[0].Event.Content, evs[0].CharLen)
	}
	if n := mustAppend(t, s, sess.ID, codec.UserMessage(codec.ContextOpenTag+"\nnever closed")); n != 0 {
		t.Errorf("an unclosed context stored %d rows", n)
	}
}

// insertRaw inserts an event row as legacy AZUREAL builds did: the JSON of
// the event as given (not compacted), zstd, kind and char_len of the raw
// event.
func insertRaw(t *testing.T, s *Store, session, seq int64, e codec.Event) {
	t.Helper()
	js, err := codec.EncodeEventJSON(e)
	if err != nil {
		t.Fatal(err)
	}
	rawExec(t, s.Path(), fmt.Sprintf("INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (%d, %d, '%s', X'%x', %d)",
		session, seq, e.Kind, s.codec.Compress(js), codec.CharLen(e)))
}

func TestVector20LegacyRawRows(t *testing.T) {
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	insertRaw(t, s, sess.ID, 1, codec.UserMessage("hidden developer instructions"))
	insertRaw(t, s, sess.ID, 2, codec.UserMessage("hidden transcript tail\n"+codec.ContextCloseTag+"\n\nreal prompt"))
	insertRaw(t, s, sess.ID, 3, codec.AssistantText("answer"))
	insertRaw(t, s, sess.ID, 4, codec.UserMessage("# AGENTS.md instructions for /r\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>"))
	insertRaw(t, s, sess.ID, 5, codec.UserMessage(codec.ContextOpenTag+"\n## User\nq\n"+codec.ContextCloseTag+"\n\nfully injected"))
	insertRaw(t, s, sess.ID, 6, codec.AssistantText("second answer"))
	var got []string
	for _, e := range mustLoad(t, s, sess.ID) {
		got = append(got, string(e.Kind)+":"+e.Event.Content+e.Event.Text)
	}
	want := []string{"UserMessage:real prompt", "AssistantText:answer", "UserMessage:fully injected", "AssistantText:second answer"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LoadEvents() = %q, want %q", got, want)
	}
}

func TestVector22RoundTrips(t *testing.T) {
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	p := "/w/a.rs"
	mustAppend(t, s, sess.ID,
		codec.ToolResult("t1", "Bash", nil, "boom", true),
		codec.Complete(false, 12345, 0.0123),
		codec.ToolCall("t2", "Read", &p, json.RawMessage(`{"file_path":"/w/a.rs","offset":3}`)))
	evs := mustLoad(t, s, sess.ID)
	if !evs[0].Event.IsError {
		t.Error("is_error lost")
	}
	if c := evs[1].Event; c.Success || c.DurationMS != 12345 || c.CostUSD != 0.0123 {
		t.Errorf("Complete = %+v", c)
	}
	if c := evs[2].Event; *c.FilePath != p || string(c.Input) != `{"file_path":"/w/a.rs"}` {
		t.Errorf("ToolCall = %s %s", *c.FilePath, c.Input)
	}
}
