package app

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// TestWindowRefusesBombSession: a session whose events decode to more
// than store.MaxLoadBytes (three events of 60 MiB, a few kilobytes of
// zstd) is not loaded into the transcript: the window says why, in a
// dialog, and shows nothing of it.
func TestWindowRefusesBombSession(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	s, _, err := st.CreateSessionWithEvents(bg, "main", "bomb", []store.Event{
		store.UserMessage("start"), store.AssistantText(strings.Repeat("a", 60<<20))})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range []int{3, 4} {
		if _, err := db.Exec(`INSERT INTO events(session_id, seq, kind, data, char_len)
			SELECT session_id, ?, kind, data, char_len FROM events WHERE seq = 2`, seq); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	pw := testWindow(t, fa, wt)
	defer pw.close()
	ref := views.SessionRef{StorePath: wt.StorePath, ID: s.ID}
	pw.shown.loadSession(ref, pw.shown.loadGen)
	if pw.shown.current == ref {
		t.Error("the session was loaded")
	}
	if got := dialogText(pw.win); !strings.Contains(got, "180.0 MiB of decoded events, more than one load reads (128.0 MiB)") {
		t.Errorf("dialog = %q", got)
	}
}
