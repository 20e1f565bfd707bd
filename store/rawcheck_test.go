package store

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// rawOf is a sound RawSession of events, encoded as a push sends them.
func rawOf(t *testing.T, s *Store, events ...codec.Event) RawSession {
	t.Helper()
	r := RawSession{Session: Session{Name: "n", Worktree: "feature/x", Created: "2026-05-02 09:00:00"}}
	for i, e := range events {
		data, err := s.Transfer().EncodePayload(e)
		if err != nil {
			t.Fatal(err)
		}
		r.Events = append(r.Events, RawEvent{Seq: int64(i + 1), Kind: e.Kind, CharLen: codec.CharLen(e), Data: data})
	}
	r.Compactions = []Compaction{{AfterSeq: 1, Summary: "sum", Created: "2026-05-02 09:10:00"}}
	return r
}

// TestCheckRaw: a session from elsewhere is refused for any row lazuli
// check would call damaged or wrong, or a load could not read, and for a
// worktree that is a path; ImportRaw then writes nothing.
func TestCheckRaw(t *testing.T) {
	s := mustOpen(t)
	ctx := context.Background()
	if _, _, err := s.Sessions().CreateWithEvents(ctx, "main", "mine", []codec.Event{codec.UserMessage("local")}); err != nil {
		t.Fatal(err)
	}
	big := codec.UserMessage(strings.Repeat("a", codec.MaxEventSize-(1<<20)))
	bigData, err := s.Transfer().EncodePayload(big)
	if err != nil {
		t.Fatal(err)
	}
	neg := -1.0
	negMS := int64(-5)
	nan := math.NaN()
	cases := []struct {
		name   string
		mutate func(r *RawSession)
		want   string // "" for a session CheckRaw accepts
	}{
		{"OK", func(r *RawSession) {}, ""},
		{"OK gap", func(r *RawSession) { r.Events = append(r.Events[:1], r.Events[2:]...) }, ""},
		{"OK empty worktree", func(r *RawSession) { r.Session.Worktree = "" }, ""},
		{"OK plain JSON payload", func(r *RawSession) { r.Events[0].Data = []byte(`{"UserMessage":{"content":"hello"}}`) }, ""},
		{"seq zero", func(r *RawSession) { r.Events[0].Seq = 0 }, "event 0 has a seq below 1"},
		{"seq negative", func(r *RawSession) { r.Events[0].Seq = -3 }, "event -3 has a seq below 1"},
		{"seq duplicate", func(r *RawSession) { r.Events[1].Seq = 1 }, "event 1 comes after seq 1"},
		{"seq going back", func(r *RawSession) { r.Events[2].Seq = 1 }, "event 1 comes after seq 2"},
		{"unknown kind", func(r *RawSession) { r.Events[1].Kind = "Evil" }, `event 2 has an unknown kind "Evil"`},
		{"kind mismatch", func(r *RawSession) { r.Events[0].Kind = codec.KindAssistantText }, "event 1 is a UserMessage stored as kind AssistantText"},
		{"char_len wrong", func(r *RawSession) { r.Events[0].CharLen++ }, "event 1 has char_len 6, but its event's size is 5"},
		{"char_len negative", func(r *RawSession) { r.Events[0].CharLen = -1 }, "event 1 has a negative char_len"},
		{"not zstd nor JSON", func(r *RawSession) { r.Events[1].Data = []byte{0xff, 0xfe} }, "event 2 cannot be decompressed"},
		{"truncated frame", func(r *RawSession) { r.Events[1].Data = r.Events[1].Data[:len(r.Events[1].Data)-2] }, "event 2 cannot be decompressed"},
		{"not an event", func(r *RawSession) { r.Events[1].Data = []byte(`{"Nope":1}`) }, "event 2 is not a valid event"},
		{"past the load limit", func(r *RawSession) {
			r.Events = nil
			for i := range 3 {
				r.Events = append(r.Events, RawEvent{Seq: int64(i + 1), Kind: big.Kind, CharLen: codec.CharLen(big), Data: bigData})
			}
		}, "event 3 brings the session past 128.0 MiB"},
		{"worktree ..", func(r *RawSession) { r.Session.Worktree = "../../etc" }, `its worktree "../../etc" is a path`},
		{"worktree inner ..", func(r *RawSession) { r.Session.Worktree = "a/../../b" }, "is a path"},
		{"worktree absolute", func(r *RawSession) { r.Session.Worktree = "/etc" }, "is a path"},
		{"worktree backslash", func(r *RawSession) { r.Session.Worktree = `..\..\x` }, "is a path"},
		{"worktree drive", func(r *RawSession) { r.Session.Worktree = "C:x" }, "is a path"},
		{"worktree control", func(r *RawSession) { r.Session.Worktree = "main\x1b[2J" }, "holds a control character"},
		{"name not UTF-8", func(r *RawSession) { r.Session.Name = "\xff" }, "its name is not valid UTF-8"},
		{"created empty", func(r *RawSession) { r.Session.Created = "" }, "its created time is empty"},
		{"created control", func(r *RawSession) { r.Session.Created = "2026\n" }, "its created time holds a control character"},
		{"duration negative", func(r *RawSession) { r.Session.DurationMS = &negMS }, "its duration is negative"},
		{"cost negative", func(r *RawSession) { r.Session.CostUSD = &neg }, "its cost is not a number of dollars"},
		{"cost NaN", func(r *RawSession) { r.Session.CostUSD = &nan }, "its cost is not a number of dollars"},
		{"compaction negative", func(r *RawSession) { r.Compactions[0].AfterSeq = -1 }, "a compaction covers up to seq -1"},
		{"compaction created empty", func(r *RawSession) { r.Compactions[0].Created = "" }, "a compaction's created time is empty"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := rawOf(t, s, codec.UserMessage("hello"), codec.AssistantText("hi there"), codec.UserMessage("bye"))
			tc.mutate(&r)
			err := CheckRaw(r)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("CheckRaw(%s) = %v, want nil", tc.name, err)
				}
				return
			}
			var re *RefusedError
			if !errors.Is(err, ErrRefused) || !errors.As(err, &re) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CheckRaw(%s) = %v, want ErrRefused saying %q", tc.name, err, tc.want)
			}
			before, err := s.Dump(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if id, _, err := s.Transfer().ImportRaw(ctx, r); !errors.Is(err, ErrRefused) {
				t.Fatalf("ImportRaw(%s) = S%d, %v, want ErrRefused", tc.name, id, err)
			}
			after, err := s.Dump(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(after.Sessions) != len(before.Sessions) {
				t.Fatalf("ImportRaw(%s) wrote a session: %d, then %d", tc.name, len(before.Sessions), len(after.Sessions))
			}
		})
	}
}
