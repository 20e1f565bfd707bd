package app

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/codec"
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
	s, _, err := st.Sessions().CreateWithEvents(bg, "main", "bomb", []codec.Event{
		codec.UserMessage("start"), codec.AssistantText(strings.Repeat("a", 60<<20))})
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

// rleBomb is a zstd frame of n RLE blocks of 128 KiB each, with no content
// size: 600 blocks decode to 75 MiB from 2.4 KB.
func rleBomb(n int) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38} // magic, no content size, window 128 KiB
	for i := range n {
		h := uint32(128<<10)<<3 | 1<<1 // RLE
		if i == n-1 {
			h |= 1 // last
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 'a')
	}
	return b
}

// TestWindowShowsUnreadableEvent: an event that cannot be read (it decodes
// to more than store.MaxEventSize) is not shown, but a muted row says so
// where it was, between the events around it.
func TestWindowShowsUnreadableEvent(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	s, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", "bomb", []codec.Event{
		codec.UserMessage("before the bomb"), codec.AssistantText("x"), codec.AssistantText("after the bomb")})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec("UPDATE events SET data = ? WHERE seq = 2", rleBomb(600))
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	ref := views.SessionRef{StorePath: wt.StorePath, ID: s.ID}
	pw.shown.loadSession(ref, pw.shown.loadGen)
	if pw.shown.current != ref {
		t.Fatal("the session was not loaded")
	}
	var texts []string
	for _, c := range widgetsOf[*canvas.Text](pw.win.Canvas().Content()) {
		if c.Visible() && c.Text != "" {
			texts = append(texts, c.Text)
		}
	}
	for _, l := range widgetsOf[*widget.Label](pw.win.Canvas().Content()) {
		if l.Visible() && l.Text != "" {
			texts = append(texts, l.Text)
		}
	}
	const want = "1 event could not be read: it decodes to more than 64 MiB"
	at, before, after := slices.Index(texts, want), slices.Index(texts, "before the bomb"), -1
	for i, s := range texts {
		if strings.Contains(s, "after the bomb") {
			after = i
		}
	}
	if at < 0 || !(before < at && at < after) {
		t.Errorf("the transcript shows %q; want %q between the prompt and the reply", texts, want)
	}
}
