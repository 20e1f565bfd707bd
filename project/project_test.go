package project

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lazuli-app/lazuli/internal/fixtures"
)

func TestParseWorktreeList(t *testing.T) {
	out := []byte("worktree /r\nHEAD 1\nbranch refs/heads/main\n\nworktree /r/wt/x\nHEAD 2\nbranch refs/heads/feature/x\n\nworktree /r/det\nHEAD 3\ndetached\n\nworktree /bare\nbare\n")
	got := parseWorktreeList(out)
	want := []Worktree{
		{Dir: "/r", Branch: "main", StorePath: "/r/.azureal/sessions.azs"},
		{Dir: "/r/wt/x", Branch: "feature/x", StorePath: "/r/wt/x/.azureal/sessions.azs"},
		{Dir: "/r/det", Branch: "HEAD", StorePath: "/r/det/.azureal/sessions.azs"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseWorktreeList = %+v, want %+v", got, want)
	}
}

func TestResolve(t *testing.T) {
	fixtures.NeedTool(t, "git")
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
	wts, err := Resolve(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(wts) != 2 || wts[0].Branch != "main" || wts[1].Branch != "feature/y" {
		t.Fatalf("Resolve(repo) = %+v", wts)
	}
	plain := t.TempDir()
	wts, err = Resolve(plain)
	if err != nil || len(wts) != 1 || wts[0].StorePath != filepath.Join(plain, ".azureal", "sessions.azs") {
		t.Fatalf("Resolve(folder) = %+v, %v", wts, err)
	}
	file := filepath.Join(plain, "x.azs")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if wts, err = Resolve(file); err != nil || len(wts) != 1 || wts[0].StorePath != file {
		t.Fatalf("Resolve(file) = %+v, %v", wts, err)
	}
	if _, err := Resolve(filepath.Join(plain, "missing")); err == nil {
		t.Error("Resolve(missing) succeeded")
	}
}

// TestUnbornBranch: in a repository without a commit yet, every way of
// asking names the branch HEAD will create (git symbolic-ref HEAD), so
// the sessions of a fresh `git init` do not land in a "main" group beside
// an empty one of the real branch.
func TestUnbornBranch(t *testing.T) {
	fixtures.NeedTool(t, "git")
	root := t.TempDir()
	if out, err := exec.Command("git", "-C", root, "init", "-q", "-b", "trunk").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	if b, ok := GitBranch(root); !ok || b != "trunk" {
		t.Errorf("GitBranch(unborn) = %q, %v; want trunk", b, ok)
	}
	if b := BranchOfStore(filepath.Join(root, StoreRelPath)); b != "trunk" {
		t.Errorf("BranchOfStore(unborn) = %q, want trunk", b)
	}
	wts, err := Resolve(root)
	if err != nil || len(wts) != 1 || wts[0].Branch != "trunk" {
		t.Errorf("Resolve(unborn) = %+v, %v; want the one worktree on trunk", wts, err)
	}
}

// TestGitBranchDetached: a detached HEAD has no branch.
func TestGitBranchDetached(t *testing.T) {
	fixtures.NeedTool(t, "git")
	root := t.TempDir()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"commit", "-q", "--allow-empty", "-m", "x"}, {"checkout", "-q", "--detach"}} {
		cmd := exec.Command("git", append([]string{"-C", root, "-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if b, ok := GitBranch(root); ok {
		t.Errorf("GitBranch(detached) = %q, true", b)
	}
	if b, ok := GitBranch(t.TempDir()); ok {
		t.Errorf("GitBranch(not a repository) = %q, true", b)
	}
}

// TestBranchName: a branch typed on Windows with backslashes is stored as
// git and AZUREAL name it, so the store lists the same on every system.
func TestBranchName(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"main", "main"},
		{"feature/x", "feature/x"},
		{`feature\x`, "feature/x"},
		{`azureal\feature\deep`, "azureal/feature/deep"},
		{` /feature/x/ `, "feature/x"},
		{`\`, ""},
		{"", ""},
	} {
		if got := BranchName(tt.in); got != tt.want {
			t.Errorf("BranchName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
