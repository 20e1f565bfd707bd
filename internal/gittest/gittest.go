// Package gittest makes real git repositories for tests.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RepoWithWorktree makes, under a temporary folder, a repository "repo" on
// branch main with one commit and a linked worktree "wt-feature" on branch
// feature. It returns both folders and a runner of git in a folder that
// fails the test on an error. The test is skipped when git is missing.
func RepoWithWorktree(t testing.TB) (main, linked string, git func(dir string, args ...string) string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	main, linked = filepath.Join(root, "repo"), filepath.Join(root, "wt-feature")
	git = func(dir string, args ...string) string {
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
	return main, linked, git
}
