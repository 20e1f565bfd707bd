package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestLoadLimit: a session whose events decode to more than MaxLoadBytes
// (a few kilobytes of zstd each) is refused with a *LoadLimitError that
// says how much it holds, by every load: whole, a range, the context, the
// events by id; a session within the bound loads.
func TestLoadLimit(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	big := mustCreateSession(t, s, "main", "bomb")
	mustAppend(t, s, big.ID, codec.UserMessage("start"), codec.AssistantText(strings.Repeat("a", 60<<20)))
	small := mustCreateSession(t, s, "main", "fine")
	mustAppend(t, s, small.ID, codec.UserMessage("hello"))
	for k := int64(1); k <= 2; k++ { // three copies of the big event: 180 MiB
		rawExec(t, s.Path(), "INSERT INTO events(session_id, seq, kind, data, char_len) SELECT session_id, seq + "+
			string(rune('0'+k))+", kind, data, char_len FROM events WHERE session_id = 1 AND seq = 2")
	}
	s.events.forget(big.ID)
	for name, load := range map[string]func() error{
		"Load":         func() error { _, err := s.Events().Load(ctx, big.ID, 0, 0); return err },
		"Range":        func() error { _, err := s.Events().Load(ctx, big.ID, 2, 4); return err },
		"BuildContext": func() error { _, err := s.Compactions().Context(ctx, big.ID); return err },
		"EventsByID":   func() error { _, err := s.Scan().EventsByID(ctx, []int64{2, 4, 5}); return err },
	} {
		err := load()
		var le *LoadLimitError
		if !errors.As(err, &le) || le.Bytes < 180<<20 || le.Limit != MaxLoadBytes {
			t.Errorf("%s: error = %v, want a *LoadLimitError for 180 MiB", name, err)
		}
	}
	if evs, err := s.Events().Load(ctx, big.ID, 1, 2); err != nil || len(evs.Events) != 2 {
		t.Errorf("a range within the bound: %d events, %v", len(evs.Events), err)
	}
	if evs := mustLoad(t, s, small.ID); len(evs) != 1 {
		t.Errorf("the other session: %d events", len(evs))
	}
}
