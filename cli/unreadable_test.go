package cli

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

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

// unreadableStore writes a store in dir whose session S1 holds three
// events; with bomb, the second decodes to 75 MiB.
func unreadableStore(t *testing.T, dir string, bomb bool) {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(dir, ".azureal", "sessions.azs")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = st.Sessions().CreateWithEvents(ctx, "main", "bomb", []codec.Event{
		codec.UserMessage("before the bomb"), codec.AssistantText("x"), codec.AssistantText("after the bomb")})
	st.Close()
	if err != nil || !bomb {
		return
	}
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec("UPDATE events SET data = ? WHERE seq = 2", rleBomb(600)); err != nil {
		t.Fatal(err)
	}
}

// TestUnreadableEventSaidOnce: a command that shows, prints the context
// of, exports or dumps a session holding an event it cannot read (one
// that decodes to more than store.MaxEventSize) does its work without the
// event and says so in one line on stderr, once; with a healthy store it
// says nothing.
func TestUnreadableEventSaidOnce(t *testing.T) {
	const line = "S1: 1 event could not be read and is left out (#2: it decodes to more than 64 MiB)\n"
	commands := [][]string{
		{"show", "1"}, {"show", "1", "--json"}, {"context", "1", "next"}, {"dump"},
		{"export", "1", "--format", "md", "-o", "-"}, {"export", "1", "--format", "json", "-o", "-"},
	}
	for _, bomb := range []bool{true, false} {
		dir := t.TempDir()
		unreadableStore(t, dir, bomb)
		want := ""
		if bomb {
			want = line
		}
		for _, args := range commands {
			code, out, errOut := run(t, dir, args...)
			if code != ExitOK || !strings.Contains(out, "after the bomb") {
				t.Errorf("%v (bomb %v): exit %d, stdout %q", args, bomb, code, out)
			}
			if errOut != want {
				t.Errorf("%v (bomb %v): stderr %q, want %q", args, bomb, errOut, want)
			}
		}
	}
}
