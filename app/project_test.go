package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestResolveProject(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	root := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "init")
	git("worktree", "add", "-q", "-b", "feature/y", filepath.Join(root, "wt-y"))
	wts, err := ResolveProject(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(wts) != 2 || wts[0].Branch != "main" || wts[1].Branch != "feature/y" {
		t.Fatalf("ResolveProject(repo) = %+v", wts)
	}
	plain := t.TempDir()
	wts, err = ResolveProject(plain)
	if err != nil || len(wts) != 1 || wts[0].StorePath != filepath.Join(plain, ".azureal", "sessions.azs") {
		t.Fatalf("ResolveProject(folder) = %+v, %v", wts, err)
	}
	file := filepath.Join(plain, "x.azs")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if wts, err = ResolveProject(file); err != nil || len(wts) != 1 || wts[0].StorePath != file {
		t.Fatalf("ResolveProject(file) = %+v, %v", wts, err)
	}
	if _, err := ResolveProject(filepath.Join(plain, "missing")); err == nil {
		t.Error("ResolveProject(missing) succeeded")
	}
}
