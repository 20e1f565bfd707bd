package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestStoreStaysOutOfGit: importing a transcript creates a store and writes a
// session in a linked worktree of a real repository; afterwards git status
// shows nothing in either worktree, and no .gitignore was written.
func TestStoreStaysOutOfGit(t *testing.T) {
	needShared(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	main, linked := filepath.Join(root, "repo"), filepath.Join(root, "wt-feature")
	git := func(dir string, args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@t", "-c", "user.name=t"}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if err := os.Mkdir(main, 0o755); err != nil {
		t.Fatal(err)
	}
	git(main, "init", "-q", "-b", "main")
	git(main, "commit", "-q", "--allow-empty", "-m", "init")
	git(main, "worktree", "add", "-q", "-b", "feature", linked)

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
