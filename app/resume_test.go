package app

import (
	"context"
	"errors"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

func TestResumeCommand(t *testing.T) {
	for _, tc := range []struct{ agent, id, dir, want string }{
		{"claude", "3a6df021-2019", "/home/me/repo", "cd /home/me/repo && claude --resume 3a6df021-2019"},
		{"codex", "0199812e-64f0", "/home/me/my repo", "cd '/home/me/my repo' && codex resume 0199812e-64f0"},
		{"claude", "x'y", "", `claude --resume 'x'\''y'`},
	} {
		if got := resumeCommand(tc.agent, tc.id, tc.dir); got != tc.want {
			t.Errorf("resumeCommand(%q, %q, %q) = %q, want %q", tc.agent, tc.id, tc.dir, got, tc.want)
		}
	}
}

// TestCopyResumeCommand: a session imported from native history copies
// its agent's resume command, run in its worktree; a session a run
// recorded a Claude session for resumes that; others have none.
func TestCopyResumeCommand(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	dir, bg := wt.Dir, context.Background()
	batch := func(agent, id string) store.NativeBatch {
		return store.NativeBatch{Key: store.NativeKey{Agent: agent, ID: id}, Path: "/n/" + id + ".jsonl", Bytes: 1, Lines: 1, Checksum: "c",
			Events: []codec.Event{codec.UserMessage("q")}, Worktree: "main", Name: id, Created: "2026-01-02 03:04:05"}
	}
	res, err := st.Native().Import(bg, []store.NativeBatch{batch("claude", "cl-1"), batch("codex", "cx-2")})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := st.Sessions().Create(bg, "main", "plain")
	if err != nil {
		t.Fatal(err)
	}
	ran, err := st.Sessions().Create(bg, "main", "ran")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Sessions().SetLastClaudeUUID(bg, ran.ID, "run-uuid"); err != nil {
		t.Fatal(err)
	}
	st.Close()
	pw := testWindow(t, fa, wt)
	defer pw.close()
	ref := func(id int64) views.SessionRef { return views.SessionRef{StorePath: wt.StorePath, ID: id} }
	for id, want := range map[int64]string{
		res[0].SessionID: "cd " + dir + " && claude --resume cl-1",
		res[1].SessionID: "cd " + dir + " && codex resume cx-2",
		ran.ID:           "cd " + dir + " && claude --resume run-uuid",
	} {
		if got, err := pw.shown.sessionResumeCommand(ref(id)); err != nil || got != want {
			t.Errorf("session %d: %q, %v; want %q", id, got, err, want)
		}
	}
	if _, err := pw.shown.sessionResumeCommand(ref(plain.ID)); !errors.Is(err, errNotResumable) {
		t.Errorf("a plain session: %v, want errNotResumable", err)
	}
	pw.shown.mu.Lock()
	pw.shown.current = ref(res[1].SessionID)
	pw.shown.mu.Unlock()
	pw.shown.copyResumeCommand()
	pw.wg.Wait()
	if got := fa.Clipboard().Content(); got != "cd "+dir+" && codex resume cx-2" {
		t.Errorf("clipboard holds %q", got)
	}
}
