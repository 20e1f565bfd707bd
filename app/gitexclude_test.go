package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/gittest"
	"github.com/lazuli-app/lazuli/store"
)

// TestWindowKeepsStoreOutOfGit: a window that opens a linked worktree's
// store and writes a session leaves git status empty; a read-only window
// writes nothing in .git.
func TestWindowKeepsStoreOutOfGit(t *testing.T) {
	fa := test.NewTempApp(t)
	main, linked, git := gittest.RepoWithWorktree(t)
	exclude := filepath.Join(main, ".git", "info", "exclude")
	before, _ := os.ReadFile(exclude)
	newWindow := func(wt Worktree, readOnly bool) *projectWindow {
		pw := newWindowParts(&gui{ctx: context.Background(), fa: fa}, []Worktree{wt}, readOnly)
		pw.win = test.NewTempWindow(t, pw.mv.Content())
		return pw
	}
	wt := Worktree{Dir: linked, Branch: "feature", StorePath: filepath.Join(linked, StoreRelPath)}

	// A store another tool made, opened read-only: .git is not touched.
	if err := os.MkdirAll(filepath.Dir(wt.StorePath), 0o755); err != nil {
		t.Fatal(err)
	}
	seed, err := store.Open(context.Background(), wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := seed.Sessions().CreateWithEvents(context.Background(), "feature", "seed", []codec.Event{codec.UserMessage("hi")}); err != nil {
		t.Fatal(err)
	}
	seed.Close()
	ro := newWindow(wt, true)
	if _, err := ro.store(wt.StorePath); err != nil {
		t.Fatal(err)
	}
	ro.wg.Wait()
	ro.close()
	if after, _ := os.ReadFile(exclude); string(after) != string(before) {
		t.Fatalf("a read-only window changed info/exclude:\n%s", after)
	}

	pw := newWindow(wt, false)
	defer pw.close()
	st, err := pw.store(wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Sessions().CreateWithEvents(context.Background(), "feature", "secret", []codec.Event{codec.UserMessage("token=…")}); err != nil {
		t.Fatal(err)
	}
	pw.wg.Wait()
	for _, dir := range []string{linked, main} {
		if out := git(dir, "status", "--porcelain", "--untracked-files=all"); strings.TrimSpace(out) != "" {
			t.Errorf("git status in %s = %q, want nothing", dir, out)
		}
	}
}
