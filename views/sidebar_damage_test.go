package views

import (
	"testing"

	"fyne.io/fyne/v2/theme"

	"github.com/lazuli-app/lazuli/store"
)

// TestSidebarMarksDamagedSession: a session the store marks damaged is
// listed with the others, with a warning badge and "damaged" where the
// completion would be (issue 15 item 3).
func TestSidebarMarksDamagedSession(t *testing.T) {
	rows := buildSidebarRows([]WorktreeGroup{{Worktree: "main", StorePath: "/p/a.azs", Sessions: []store.Session{
		{ID: 1, Created: "2026-11-22 10:00:00", MessageCount: 2, Completed: boolPtr(true), DurationMS: int64Ptr(1000)},
		{ID: 2, Created: "2026-11-22 10:00:00", MessageCount: 3, Completed: boolPtr(true), CharsSinceCompaction: -1,
			Damage: "char_len values too large to add up: the context size is unknown"},
	}}})
	if len(rows) != 3 {
		t.Fatalf("%d rows, want a header and 2 sessions", len(rows))
	}
	sound, damaged := rows[1], rows[2]
	if sound.badge != "✓" || sound.duration == "damaged" {
		t.Errorf("sound session: badge %q, duration %q", sound.badge, sound.duration)
	}
	if damaged.badge != "⚠" || damaged.badgeName != theme.ColorNameError || damaged.duration != "damaged" || damaged.msgs != "[3 msgs]" {
		t.Errorf("damaged session: badge %q (%s), duration %q, msgs %q; want ⚠, error colour, damaged, [3 msgs]",
			damaged.badge, damaged.badgeName, damaged.duration, damaged.msgs)
	}
}
