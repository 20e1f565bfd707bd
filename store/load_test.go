package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lazuli-app/lazuli/codec"
)

// referenceLoad loads a session the plain way, one row at a time: the rows
// in seq order through the index, each decoded with DecodeEventJSON, then
// the read-time filter as it was first written (filterRef). The load path
// must return exactly this.
func referenceLoad(t *testing.T, s *Store, session, fromSeq, toSeq int64) LoadResult {
	t.Helper()
	if fromSeq <= 0 {
		fromSeq = minSeq
	}
	if toSeq <= 0 {
		toSeq = maxSeq
	}
	db, _, err := s.reader(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT id, seq, kind, COALESCE(CAST(char_len AS INTEGER), 0), data FROM events
		WHERE session_id = ? AND seq >= ? AND seq <= ? ORDER BY seq`, session, fromSeq, toSeq)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var r LoadResult
	var events []StoredEvent
	for rows.Next() {
		var (
			e    StoredEvent
			kind []byte
			data []byte
		)
		if err := rows.Scan(&e.ID, &e.Seq, &kind, &e.CharLen, &data); err != nil {
			t.Fatal(err)
		}
		e.Kind = codec.Kind(kind)
		js, err := s.codec.Payload(data)
		if err == nil && utf8.Valid(js) {
			e.Event, err = codec.DecodeEventJSON(js)
		}
		if err != nil || !utf8.Valid(js) {
			r.Skipped++
			r.Unreadable = append(r.Unreadable, Unreadable{Session: session, Seq: e.Seq, TooLarge: errors.Is(err, codec.ErrEventTooLarge)})
			continue
		}
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	r.Events = filterRef(events)
	return r
}

// filterRef is FilterInjected as it was first written, kept to check the
// faster version against.
func filterRef(in []StoredEvent) []StoredEvent {
	out := make([]StoredEvent, 0, len(in))
	var pending []StoredEvent
	inside := false
	for _, x := range in {
		e := &x.Event
		if e.Kind != codec.KindUserMessage {
			if !inside {
				out = append(out, pending...)
			}
			pending, inside = pending[:0], false
			out = append(out, x)
			continue
		}
		switch {
		case codec.IsHiddenCodexContext(e.Content):
		case inside:
			if strings.Contains(e.Content, codec.ContextCloseTag) {
				inside = false
				if s, ok := codec.SanitizeUserMessage(e.Content); ok && !codec.IsBlank(s) {
					e.Content = s
					out = append(out, x)
				}
			}
		case codec.HasContextTag(e.Content):
			pending = pending[:0]
			if strings.Contains(e.Content, codec.ContextCloseTag) {
				if s, ok := codec.SanitizeUserMessage(e.Content); ok && !codec.IsBlank(s) {
					e.Content = s
					out = append(out, x)
				}
			} else {
				inside = true
			}
		default:
			pending = append(pending, x)
		}
	}
	if !inside {
		out = append(out, pending...)
	}
	return out
}

// insertRow inserts one events row with explicit values.
func insertRow(t *testing.T, db *sql.DB, session, seq int64, kind string, data any, charLen any) {
	t.Helper()
	_, err := db.Exec("INSERT INTO events(session_id, seq, kind, data, char_len) VALUES (?, ?, ?, ?, ?)", session, seq, kind, data, charLen)
	if err != nil {
		t.Fatal(err)
	}
}

// zstdJSON compresses a JSON payload as AZUREAL stores it.
func zstdJSON(t *testing.T, s *Store, js string) []byte {
	t.Helper()
	return s.codec.Compress([]byte(js))
}

// TestLoadAgreesWithReference loads sessions whose rows take each way
// through the load path, cold and cached, whole and in ranges, and checks
// each result against referenceLoad.
func TestLoadAgreesWithReference(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	for range 9 {
		mustCreateSession(t, s, "main", "")
	}
	gen := newBenchGen(9)
	// 1: dense, as AZUREAL writes, with every variant and injected context.
	mustAppend(t, s, 1, everyVariant()...)
	mustAppend(t, s, 1, gen.events(1500)...)
	mustAppend(t, s, 1, codec.UserMessage("part one"), codec.UserMessage("part two "+codec.ContextCloseTag+" visible"),
		codec.UserMessage(codec.ContextOpenTag+"\nhidden\n"+codec.ContextCloseTag+"\n\nshown"), codec.AssistantText("ok"))
	// 2 and 3 alternate (their id ranges are twice their counts: still
	// read by id); 4, 5 and 6 take turns (three times: read through the
	// index).
	for i := range 300 {
		mustAppend(t, s, int64(2+i%2), gen.turn()[:3]...)
		mustAppend(t, s, int64(4+i%3), gen.turn()[:2]...)
	}
	raw, err := sql.Open("sqlite", "file:"+s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	// Rows that are not what AZUREAL writes: a seq gap, seqs below the
	// first (ids out of seq order), payloads that do not decode or need the
	// strict decoder, odd kinds and char_len values.
	insertRow(t, raw, 2, 100_000, "UserMessage", zstdJSON(t, s, `{"UserMessage":{"content":"far away"}}`), 8)
	insertRow(t, raw, 3, -5, "AssistantText", zstdJSON(t, s, `{"AssistantText":{"text":"before \u00e9 \ud83d\ude00 \n"}}`), 3)
	insertRow(t, raw, 3, -4, "UserMessage", zstdJSON(t, s, `{ "UserMessage" : { "content" : "spaced" } }`), "7")
	insertRow(t, raw, 3, -3, "Hook", []byte(`{"Hook":{"name":"plain","output":"json blob"}}`), 2.5)
	insertRow(t, raw, 3, -2, "Hook", `{"Hook":{"name":"text","output":"v1 row"}}`, "x")
	insertRow(t, raw, 3, -1, "Mystery", zstdJSON(t, s, `{"Plan":{"name":"n","content":"c\\"}}`), 1)
	// char_len values that packedColumn carries (negative) and cannot
	// (past 2^58: the product overflows into a REAL), in rows read by id
	// (3) and through the index (6).
	insertRow(t, raw, 3, -6, "AssistantText", zstdJSON(t, s, `{"AssistantText":{"text":"negative"}}`), -7)
	insertRow(t, raw, 3, -7, "AssistantText", zstdJSON(t, s, `{"AssistantText":{"text":"huge"}}`), int64(1)<<60)
	insertRow(t, raw, 6, -1, "AssistantText", zstdJSON(t, s, `{"AssistantText":{"text":"huge"}}`), int64(-1)<<62)
	insertRow(t, raw, 6, -2, "UserMessage", zstdJSON(t, s, `{"UserMessage":{"content":"big"}}`), 1.5e30)
	var next int64
	if err := raw.QueryRow("SELECT MAX(seq) + 1 FROM events WHERE session_id = 1").Scan(&next); err != nil {
		t.Fatal(err)
	}
	insertRow(t, raw, 1, next, "UserMessage", []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00}, 1)
	insertRow(t, raw, 1, next+1, "UserMessage", zstdJSON(t, s, "{\"UserMessage\":{\"content\":\"bad \xff utf8\"}}"), 1)
	insertRow(t, raw, 1, next+2, "ToolCall", zstdJSON(t, s, `{"ToolCall":{"tool_use_id":"x","tool_name":"y","input":{"a":"\"q\"\n","b":[1,2.5e3,null]}}}`), 4)
	// 7: dense, but a gap filled later puts ids out of seq order.
	for _, seq := range []int64{1, 2, 4, 3, 5} {
		insertRow(t, raw, 7, seq, "AssistantText", zstdJSON(t, s, fmt.Sprintf(`{"AssistantText":{"text":"%d"}}`, seq)), 1)
	}
	// 8: a seq gap, in ids close together (read by id, then counted); 9:
	// a gap and nothing else in its id range.
	for i, seq := range []int64{1, 2, 4, 6, 7} {
		insertRow(t, raw, 8, seq, "AssistantText", zstdJSON(t, s, fmt.Sprintf(`{"AssistantText":{"text":"%d"}}`, seq)), 1)
		if i%2 == 0 {
			insertRow(t, raw, 1, next+3+int64(i), "Hook", zstdJSON(t, s, `{"Hook":{"name":"n","output":"o"}}`), 1)
		}
	}
	for _, seq := range []int64{10, 11, 13} {
		insertRow(t, raw, 9, seq, "AssistantText", zstdJSON(t, s, fmt.Sprintf(`{"AssistantText":{"text":"%d"}}`, seq)), 1)
	}
	insertRow(t, raw, 2, 100_001, "UserMessage", zstdJSON(t, s, `{"UserMessage":{"content":"later"}}`), 1)
	// 9 gets a seq between its first and last with an id after its last.
	insertRow(t, raw, 9, 12, "AssistantText", zstdJSON(t, s, `{"AssistantText":{"text":"12, late"}}`), 1)
	if _, err := raw.Exec("UPDATE events SET kind = CAST(kind AS BLOB) WHERE session_id = 5 AND seq % 7 = 0"); err != nil {
		t.Fatal(err)
	}
	ranges := [][2]int64{{0, 0}, {1, 40}, {-4, -2}, {-7, -5}, {3, 4}, {30, 0}, {next, next + 1}, {99_999, 100_001}}
	for _, cached := range []bool{false, true} {
		for session := int64(1); session <= 10; session++ { // 10 has no rows
			for _, r := range ranges {
				if !cached {
					s.events.forget(session)
				}
				got, err := s.Events().Load(ctx, session, r[0], r[1])
				if err != nil {
					t.Fatalf("Load(%d, %v) = %v", session, r, err)
				}
				want := referenceLoad(t, s, session, r[0], r[1])
				if len(got.Events) == 0 && len(want.Events) == 0 {
					got.Events, want.Events = nil, nil
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Load(%d, %v) cached=%v: %d events, %d skipped; want %d, %d%s", session, r, cached,
						len(got.Events), got.Skipped, len(want.Events), want.Skipped, firstEventDiff(got.Events, want.Events))
				}
			}
		}
	}
}

// firstEventDiff describes the first difference of two event lists.
func firstEventDiff(got, want []StoredEvent) string {
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			return fmt.Sprintf("\nfirst difference at %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
	return ""
}

// TestLoadedStringsSurviveLaterLoads checks that the strings of loaded
// events, which point into the decoder's buffers, keep their values while
// other sessions are loaded, evicted and loaded again.
func TestLoadedStringsSurviveLaterLoads(t *testing.T) {
	s := mustOpen(t)
	gen := newBenchGen(11)
	var first []StoredEvent
	var snapshot []byte
	for i := range cacheSessions + 2 {
		sess := mustCreateSession(t, s, "main", "")
		mustAppend(t, s, sess.ID, gen.events(700)...)
		evs := mustLoad(t, s, sess.ID)
		if i == 0 {
			first = evs
			snapshot, _ = json.Marshal(evs)
		}
	}
	for id := int64(1); id <= cacheSessions+2; id++ {
		mustLoad(t, s, id)
	}
	if again, _ := json.Marshal(first); string(again) != string(snapshot) {
		t.Error("events of an earlier load changed")
	}
}

func TestPlainEnd(t *testing.T) {
	naive := func(b []byte, i int) int {
		for ; i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20; i++ {
		}
		return i
	}
	gen := newBenchGen(5)
	alphabet := []byte("ab \"\\\x00\x1f\x20\x7f\xc3\xa9\xff")
	for range 2000 {
		b := make([]byte, gen.r.IntN(40))
		for i := range b {
			if gen.r.IntN(6) == 0 {
				b[i] = alphabet[gen.r.IntN(len(alphabet))]
			} else {
				b[i] = byte('a' + gen.r.IntN(26))
			}
		}
		for i := 0; i <= len(b); i++ {
			if got, want := codec.PlainEnd(b, i), naive(b, i); got != want {
				t.Fatalf("PlainEnd(%q, %d) = %d, want %d", b, i, got, want)
			}
		}
	}
}

func TestTailStartAndLastOfKind(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	sess := mustCreateSession(t, s, "main", "")
	other := mustCreateSession(t, s, "main", "")
	evs := []codec.Event{codec.Init("/w", "claude-opus-4-1"), codec.ModelSwitch("sonnet")}
	for i := range 6 {
		evs = append(evs, codec.UserMessage(fmt.Sprintf("p%d", i)))
	}
	evs = append(evs, codec.ModelSwitch("haiku"), codec.AssistantText("done")) // seqs 1..10
	mustAppend(t, s, sess.ID, evs...)
	mustAppend(t, s, other.ID, codec.ModelSwitch("opus"), codec.UserMessage("x"))

	for _, tc := range []struct {
		before     int64
		n          int
		from       int64
		wantBefore int
	}{
		{0, 3, 8, 7},  // the last three: seqs 8..10
		{8, 3, 5, 4},  // three before seq 8: 5..7
		{0, 10, 1, 0}, // exactly all
		{0, 11, 0, 0}, // more than there are: no bound
		{3, 5, 0, 0},  // only two before seq 3
		{1, 1, 0, 0},  // nothing before the first
	} {
		from, before, err := s.Events().TailStart(ctx, sess.ID, tc.before, tc.n)
		if err != nil || from != tc.from || before != tc.wantBefore {
			t.Errorf("TailStart(before %d, n %d) = %d, %d, %v; want %d, %d", tc.before, tc.n, from, before, err, tc.from, tc.wantBefore)
		}
	}

	e, ok, err := s.Events().LastOfKind(ctx, sess.ID, codec.KindModelSwitch)
	if err != nil || !ok || e.Seq != 9 || e.Event.Model != "haiku" {
		t.Errorf("last ModelSwitch = seq %d %q, %v, %v; want seq 9 haiku", e.Seq, e.Event.Model, ok, err)
	}
	e, ok, err = s.Events().LastOfKind(ctx, sess.ID, codec.KindInit)
	if err != nil || !ok || e.Seq != 1 || e.Event.Model != "claude-opus-4-1" || e.Event.CWD != "/w" {
		t.Errorf("last Init = %+v, %v, %v", e, ok, err)
	}
	if _, ok, err := s.Events().LastOfKind(ctx, sess.ID, codec.KindPlan); ok || err != nil {
		t.Errorf("last Plan of a session without one: ok %v, %v", ok, err)
	}
}

// The decoded-row cache keeps sessions within its byte budget: one that
// alone exceeds it is not kept, and older entries go first.
func TestEventCacheByteBudget(t *testing.T) {
	entry := func(session int64, bytes int) *cachedSession {
		return &cachedSession{session: session, count: 1, events: make([]StoredEvent, 1), bytes: bytes}
	}
	var c eventCache
	c.put(entry(1, cacheMaxBytes/2))
	c.put(entry(2, cacheMaxBytes/3))
	if !c.has(1) || !c.has(2) {
		t.Fatal("two entries within the budget are not both kept")
	}
	c.put(entry(3, cacheMaxBytes/3)) // over the budget: 1, the oldest, goes
	if c.has(1) || !c.has(2) || !c.has(3) {
		t.Errorf("after a third entry: has 1 %v, 2 %v, 3 %v; want false, true, true", c.has(1), c.has(2), c.has(3))
	}
	c.put(entry(4, cacheMaxBytes+1))
	if c.has(4) || !c.has(3) {
		t.Errorf("an entry over the whole budget was kept (%v), or evicted others (3 kept: %v)", c.has(4), c.has(3))
	}

	// A load measures what it keeps: the structs and the decoded payloads.
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "")
	mustAppend(t, s, sess.ID, codec.AssistantText(strings.Repeat("word ", 20000)), codec.UserMessage("short"))
	if _, err := s.Events().All(context.Background(), sess.ID); err != nil {
		t.Fatal(err)
	}
	e := s.events.get(sess.ID)
	if e == nil || e.bytes < 100000 || e.bytes > 100000+4096 {
		t.Errorf("cached entry of a 100 KB session: %+v", e)
	}
}
