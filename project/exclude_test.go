package project

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/internal/gittest"
)

// writeStoreFile stands in for a store: the folder and file git would see.
func writeStoreFile(t *testing.T, wt string) string {
	t.Helper()
	p := filepath.Join(wt, StoreRelPath)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExcludeStore(t *testing.T) {
	main, linked, git := gittest.RepoWithWorktree(t)
	stores := []string{writeStoreFile(t, linked), writeStoreFile(t, main)}
	for _, wt := range []string{linked, main} {
		if out := git(wt, "status", "--porcelain"); !strings.Contains(out, ".azureal/") {
			t.Fatalf("before: git status in %s = %q, want the store untracked", wt, out)
		}
	}
	// The linked worktree first: its exclude is the common git dir's, so
	// the main worktree is covered too. Then again, and from the main one.
	for _, p := range []string{stores[0], stores[0], stores[1]} {
		if err := ExcludeStore(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, wt := range []string{linked, main} {
		if out := git(wt, "status", "--porcelain"); out != "" {
			t.Errorf("after: git status in %s = %q, want nothing", wt, out)
		}
	}
	b, err := os.ReadFile(filepath.Join(main, ".git", "info", "exclude"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n.azureal/\n"); n != 1 {
		t.Errorf("info/exclude holds .azureal/ %d times, want once:\n%s", n, b)
	}
	for _, wt := range []string{main, linked} {
		if _, err := os.Stat(filepath.Join(wt, ".gitignore")); !os.IsNotExist(err) {
			t.Errorf("%s/.gitignore exists (%v): Lazuli must never write one", wt, err)
		}
	}
}

// TestExcludeStoreAlreadyIgnored: a user's own rule is enough; nothing added.
func TestExcludeStoreAlreadyIgnored(t *testing.T) {
	main, _, _ := gittest.RepoWithWorktree(t)
	if err := os.WriteFile(filepath.Join(main, ".gitignore"), []byte(".azureal\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	exclude := filepath.Join(main, ".git", "info", "exclude")
	before, _ := os.ReadFile(exclude)
	if err := ExcludeStore(writeStoreFile(t, main)); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(exclude); string(after) != string(before) {
		t.Errorf("info/exclude changed though .gitignore already covers .azureal:\n%s", after)
	}
}

// TestExcludeStoreOutsideGit: no repository, a bare .azs file, or no
// exclude folder writable: no error that could stop the store, and nothing
// written outside git.
func TestExcludeStoreOutsideGit(t *testing.T) {
	dir := t.TempDir()
	if err := ExcludeStore(filepath.Join(dir, StoreRelPath)); err != nil {
		t.Errorf("outside git: %v", err)
	}
	if err := ExcludeStore(filepath.Join(dir, "dropped.azs")); err != nil {
		t.Errorf("bare .azs: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("wrote %v outside git", entries)
	}
}
