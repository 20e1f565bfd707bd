package store

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// damagedStore writes three sessions and then damages two of them the way
// issue 15 item 3 found: session 2 gets two rows with char_len 2^63-1 (SUM
// overflows), session 3 a seq stored as TEXT. Session 1 is sound.
func damagedStore(t *testing.T) string {
	t.Helper()
	s := mustOpen(t)
	for i := range 3 {
		sess := mustCreateSession(t, s, "main", "")
		mustAppend(t, s, sess.ID, codec.UserMessage("hello"), codec.AssistantText("hi there"), codec.UserMessage("more "+strings.Repeat("x", i)))
	}
	path := s.Path()
	s.Close()
	execRaw(t, path,
		"UPDATE events SET char_len = 9223372036854775807 WHERE session_id = 2 AND seq IN (1, 2)",
		"UPDATE events SET seq = 'abc' WHERE session_id = 3 AND seq = 2")
	return path
}

// TestDamageInOneSessionHidesNoOther: the list, one session's data, a
// load, the dump and the context of the sound session all work; the
// damaged sessions are listed and marked, loading the unloadable one fails
// with ErrDamaged, and check reports both as damage (issue 15 item 3).
func TestDamageInOneSessionHidesNoOther(t *testing.T) {
	path := damagedStore(t)
	ctx := context.Background()
	checkList := func(step string, s *Store) {
		t.Helper()
		list, err := s.Sessions().List(ctx, "")
		if err != nil || len(list) != 3 {
			t.Fatalf("%s: ListSessions = %d sessions, %v; want 3", step, len(list), err)
		}
		byID := map[int64]Session{}
		for _, x := range list {
			byID[x.ID] = x
		}
		if d := byID[1].Damage; d != "" || byID[1].CharsSinceCompaction != int64(len("hello")+len("hi there")+len("more ")) {
			t.Errorf("%s: S1 damage %q, chars %d", step, d, byID[1].CharsSinceCompaction)
		}
		if s2 := byID[2]; !strings.Contains(s2.Damage, "char_len") || s2.CharsSinceCompaction != -1 || s2.EventCount != 3 {
			t.Errorf("%s: S2 = damage %q, chars %d, %d events", step, s2.Damage, s2.CharsSinceCompaction, s2.EventCount)
		}
		if s3 := byID[3]; !strings.Contains(s3.Damage, "seq") || s3.EventCount != 3 || s3.MessageCount != 3 {
			t.Errorf("%s: S3 = damage %q, %d events, %d messages", step, s3.Damage, s3.EventCount, s3.MessageCount)
		}
	}

	s := mustOpenPath(t, path)
	checkList("first list (full count)", s)
	checkList("second list (refresh)", s)
	s.Close()
	checkList("from the cache file", mustOpenPath(t, path))

	s = mustOpenPath(t, path)
	for id, want := range map[int64]string{1: "", 2: "char_len", 3: "seq"} {
		sess, err := s.Sessions().Get(ctx, id)
		if err != nil || (want == "") != (sess.Damage == "") || !strings.Contains(sess.Damage, want) {
			t.Errorf("GetSession(%d) = damage %q, %v; want %q", id, sess.Damage, err, want)
		}
	}
	for _, id := range []int64{1, 2} {
		if evs, err := s.Events().All(ctx, id); err != nil || len(evs) != 3 {
			t.Errorf("LoadEvents(%d) = %d events, %v", id, len(evs), err)
		}
	}
	if _, err := s.Events().All(ctx, 3); !errors.Is(err, ErrDamaged) {
		t.Errorf("LoadEvents(3) = %v, want ErrDamaged", err)
	}
	if _, err := s.Events().Range(ctx, 3, 1, 1); !errors.Is(err, ErrDamaged) {
		t.Errorf("LoadEventsRange(3, 1, 1) = %v, want ErrDamaged", err)
	}
	if p, err := s.Compactions().Context(ctx, 1); err != nil || p == nil {
		t.Errorf("BuildContext(1) = %v, %v", p, err)
	}
	if _, err := s.Compactions().CharsSince(ctx, 2); !errors.Is(err, ErrDamaged) {
		t.Errorf("CharsSinceCompaction(2) = %v, want ErrDamaged", err)
	}
	d, err := s.Dump(ctx)
	if err != nil || len(d.Sessions) != 3 || len(d.Events["1"]) != 3 || len(d.Events["3"]) != 0 {
		t.Fatalf("Dump = %d sessions, %d+%d events, %v", len(d.Sessions), len(d.Events["1"]), len(d.Events["3"]), err)
	}
	for _, ds := range d.Sessions {
		if (ds.ID == 1) != (ds.Damaged == "") {
			t.Errorf("Dump session %d damaged = %q", ds.ID, ds.Damaged)
		}
	}
	js, err := d.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var streamed bytes.Buffer
	if err := s.WriteDump(ctx, &streamed); err != nil || !bytes.Equal(streamed.Bytes(), js) {
		t.Errorf("WriteDump = %v, or differs from Dump().JSON():\n%s\n---\n%s", err, streamed.Bytes(), js)
	}

	rep, err := CheckFile(ctx, path)
	if err != nil {
		t.Fatalf("CheckFile = %v", err)
	}
	codes := map[string]int64{}
	for _, f := range rep.Findings {
		if f.Severity == SeverityError {
			codes[f.Code] = f.SessionID
		}
	}
	if rep.OK() || codes["char_len_overflow"] != 2 || codes["seq_not_integer"] != 3 {
		t.Errorf("CheckFile: OK %v, errors %v; want char_len_overflow in S2 and seq_not_integer in S3", rep.OK(), codes)
	}
}
