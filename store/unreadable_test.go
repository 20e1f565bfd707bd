package store

import (
	"context"
	"encoding/hex"
	"reflect"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestLoadReportsUnreadable: a load leaves out the rows it cannot read,
// and says which (LoadResult.Unreadable, and once each in
// Store.Unreadable); a healthy session reports none.
func TestLoadReportsUnreadable(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	bomb := mustCreateSession(t, s, "main", "bomb")
	mustAppend(t, s, bomb.ID, codec.UserMessage("before"), codec.AssistantText("x"), codec.AssistantText("after"), codec.AssistantText("y"))
	healthy := mustCreateSession(t, s, "main", "healthy")
	mustAppend(t, s, healthy.ID, codec.UserMessage("hello"), codec.AssistantText("hi"))
	path := s.Path()
	s.Close()
	execRaw(t, path,
		"UPDATE events SET data = X'"+hex.EncodeToString(rleBomb(600))+"' WHERE session_id = 1 AND seq = 2",
		"UPDATE events SET data = X'00ff' WHERE session_id = 1 AND seq = 4")
	s = mustOpenPath(t, path)

	if r, err := s.Events().Load(ctx, healthy.ID, 0, 0); err != nil || len(r.Events) != 2 || r.Unreadable != nil {
		t.Fatalf("Load(healthy) = %d events, unreadable %v, %v", len(r.Events), r.Unreadable, err)
	}
	if rows, more := s.Unreadable(); len(rows) != 0 || more != 0 {
		t.Fatalf("Unreadable() after a healthy load = %v, %d", rows, more)
	}
	want := []Unreadable{{Session: 1, Seq: 2, TooLarge: true}, {Session: 1, Seq: 4}}
	for _, rng := range [][2]int64{{0, 0}, {0, 0}, {2, 4}} { // whole (decoded, then cached), range
		r, err := s.Events().Load(ctx, bomb.ID, rng[0], rng[1])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Unreadable, want) || r.Skipped != 2 {
			t.Errorf("Load(%v).Unreadable = %v (skipped %d), want %v", rng, r.Unreadable, r.Skipped, want)
		}
	}
	rows, more := s.Unreadable()
	if !reflect.DeepEqual(rows, want) || more != 0 {
		t.Errorf("Unreadable() = %v, %d; want %v once each", rows, more, want)
	}
	const line = "S1: 2 events could not be read and are left out (#2: it decodes to more than 64 MiB, #4)"
	if got := UnreadableNotice(rows, more); got != line {
		t.Errorf("UnreadableNotice = %q, want %q", got, line)
	}
}

// TestUnreadableNotice is the one line a command says.
func TestUnreadableNotice(t *testing.T) {
	tests := []struct {
		name string
		rows []Unreadable
		more int
		want string
	}{
		{"none", nil, 0, ""},
		{"one too large", []Unreadable{{Session: 3, Seq: 7, TooLarge: true}}, 0,
			"S3: 1 event could not be read and is left out (#7: it decodes to more than 64 MiB)"},
		{"two sessions", []Unreadable{{Session: 1, Seq: 2}, {Session: 4, Seq: 9}}, 0,
			"2 events could not be read and are left out (S1 #2, S4 #9)"},
		{"many", []Unreadable{{Session: 1, Seq: 1}, {Session: 1, Seq: 2}, {Session: 1, Seq: 3}, {Session: 1, Seq: 4},
			{Session: 1, Seq: 5}, {Session: 1, Seq: 6}}, 0,
			"S1: 6 events could not be read and are left out (#1, #2, #3, #4, #5, …)"},
		{"past the ones kept", []Unreadable{{Session: 1, Seq: 1}}, 2,
			"3 events could not be read and are left out (S1 #1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := UnreadableNotice(tc.rows, tc.more); got != tc.want {
				t.Errorf("UnreadableNotice(%v, %d) = %q, want %q", tc.rows, tc.more, got, tc.want)
			}
		})
	}
}

// TestWithUnreadable puts a placeholder where each unreadable row was.
func TestWithUnreadable(t *testing.T) {
	ev := func(seqs ...int64) []StoredEvent {
		var out []StoredEvent
		for _, s := range seqs {
			out = append(out, StoredEvent{Seq: s, Kind: codec.KindAssistantText, Event: codec.AssistantText("t")})
		}
		return out
	}
	tests := []struct {
		name   string
		events []StoredEvent
		rows   []Unreadable
		want   []int64 // seqs; negative: a placeholder
	}{
		{"none", ev(1, 2), nil, []int64{1, 2}},
		{"between", ev(1, 3), []Unreadable{{Seq: 2}}, []int64{1, -2, 3}},
		{"first and last", ev(2, 3), []Unreadable{{Seq: 1}, {Seq: 4, TooLarge: true}}, []int64{-1, 2, 3, -4}},
		{"only", nil, []Unreadable{{Seq: 5}}, []int64{-5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := WithUnreadable(tc.events, tc.rows)
			var seqs []int64
			for _, e := range got {
				if e.Kind == codec.KindUnreadable {
					seqs = append(seqs, -e.Seq)
					if _, err := codec.EncodeEventJSON(e.Event); err == nil {
						t.Errorf("a placeholder encodes: it could be stored")
					}
					continue
				}
				seqs = append(seqs, e.Seq)
			}
			if !reflect.DeepEqual(seqs, tc.want) {
				t.Errorf("WithUnreadable(%v) = %v, want %v", tc.rows, seqs, tc.want)
			}
		})
	}
	p := WithUnreadable(nil, []Unreadable{{Seq: 4, TooLarge: true}})[0]
	if got, want := p.Event.Notice(), "1 event could not be read: it decodes to more than 64 MiB"; got != want {
		t.Errorf("Notice() = %q, want %q", got, want)
	}
}
