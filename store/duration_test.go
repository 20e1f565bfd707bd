package store

import (
	"context"
	"math"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestCompletionDurationAsAZUREALCasts: sessions.duration_ms holds
// AZUREAL's `duration_ms as i64` of the Complete event's u64 (the bits
// kept: past math.MaxInt64 it is negative, not clamped), and a dump reads
// the column back as AZUREAL's list_sessions does (`as u64`): the event's
// value again.
func TestCompletionDurationAsAZUREALCasts(t *testing.T) {
	tests := []struct {
		name       string
		durationMS uint64
		wantColumn int64
	}{
		{"ordinary", 83500, 83500},
		{"i64 max", math.MaxInt64, math.MaxInt64},
		{"one past i64 max", 1 << 63, math.MinInt64},
		{"u64 max", math.MaxUint64, -1},
	}
	ctx := context.Background()
	s := mustOpen(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sess := mustCreateSession(t, s, "main", tc.name)
			mustAppend(t, s, sess.ID, codec.UserMessage("go"), codec.Complete(true, tc.durationMS, 0))
			got, err := s.Sessions().Get(ctx, sess.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.DurationMS == nil {
				t.Fatalf("Complete(%d): sessions.duration_ms is NULL", tc.durationMS)
			}
			if *got.DurationMS != tc.wantColumn {
				t.Errorf("Complete(%d): sessions.duration_ms = %d, want %d", tc.durationMS, *got.DurationMS, tc.wantColumn)
			}
			if d := dumpSessionRow(got).DurationMS; *d != tc.durationMS {
				t.Errorf("Complete(%d): dump duration_ms = %d, want %d", tc.durationMS, *d, tc.durationMS)
			}
		})
	}
}
