package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lazuli-app/lazuli/internal/gittest"
)

// TestStoreStaysOutOfGit: importing a transcript creates a store and writes a
// session in a linked worktree of a real repository; afterwards git status
// shows nothing in either worktree, and no .gitignore was written.
func TestStoreStaysOutOfGit(t *testing.T) {
	needShared(t)
	main, linked, git := gittest.RepoWithWorktree(t)

	transcript, _ := filepath.Abs(filepath.Join(sharedDir, "real-cli", "claude-a-multitool", "stdout.jsonl"))
	for _, wt := range []string{linked, main} {
		if code, _, errOut := run(t, wt, "import", "--name", "secret work", transcript); code != 0 {
			t.Fatalf("import in %s: exit %d: %s", wt, code, errOut)
		}
		if _, err := os.Stat(filepath.Join(wt, ".azureal", "sessions.azs")); err != nil {
			t.Fatalf("no store in %s: %v", wt, err)
		}
	}
	for _, wt := range []string{linked, main} {
		if out := git(wt, "status", "--porcelain", "--untracked-files=all"); out != "" {
			t.Errorf("git status in %s = %q, want nothing", wt, out)
		}
		if _, err := os.Stat(filepath.Join(wt, ".gitignore")); !os.IsNotExist(err) {
			t.Errorf("%s/.gitignore exists (%v)", wt, err)
		}
	}
}
