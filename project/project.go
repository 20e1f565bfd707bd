// Package project finds the worktrees of a project and their session
// stores: every worktree of a git repository, a single folder, or one .azs
// file. The window and the command line both start from it. It runs git
// but never imports Fyne.
package project

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Worktree is one git worktree (or plain folder) and its session store.
type Worktree struct {
	Dir       string // the worktree folder; "" for a bare .azs file
	Branch    string // the branch AZUREAL records in sessions.worktree
	StorePath string // <Dir>/.azureal/sessions.azs, or the .azs file itself
}

// StoreRelPath is where a worktree keeps its sessions.
var StoreRelPath = filepath.Join(".azureal", "sessions.azs")

// Resolve turns a path into the worktrees to show: every worktree of a git
// repository (the one containing path first), a single folder, or one .azs
// file.
func Resolve(path string) ([]Worktree, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, errors.Unwrap(err))
	}
	if !fi.IsDir() {
		return []Worktree{{StorePath: abs, Branch: BranchOfStore(abs)}}, nil
	}
	if wts := gitWorktrees(abs); len(wts) > 0 {
		return wts, nil
	}
	return []Worktree{{Dir: abs, Branch: "main", StorePath: filepath.Join(abs, StoreRelPath)}}, nil
}

// BranchOfStore guesses the branch of a bare store file from the folder it
// sits in, when that folder is a worktree; "" otherwise.
func BranchOfStore(storePath string) string {
	dir := filepath.Dir(storePath)
	if filepath.Base(dir) != ".azureal" {
		return ""
	}
	if b, ok := GitBranch(filepath.Dir(dir)); ok {
		return b
	}
	return ""
}

// BranchOf returns the git branch checked out in dir, or "main" when dir is
// not a git worktree or has a detached HEAD.
func BranchOf(dir string) string {
	if b, ok := GitBranch(dir); ok {
		return b
	}
	return "main"
}

// BranchName is a branch name as git and AZUREAL write it in a store's
// worktree column, whatever system it was typed on: backslashes, which
// git refuses in branch names and a Windows user may type for a
// "feature\x" branch, become slashes, and slashes at either end go. A
// store written on Windows then lists the same worktrees on Linux.
func BranchName(s string) string {
	return strings.Trim(strings.ReplaceAll(strings.TrimSpace(s), `\`, "/"), "/")
}

// OneLine flattens an error message to one line.
func OneLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", " ")), " ")
}

// GitBranch returns the git branch checked out in dir, also in a
// repository without a commit yet (the branch HEAD will create: git
// symbolic-ref, which `rev-parse --abbrev-ref HEAD` cannot resolve); false
// when dir is not a git worktree or has a detached HEAD.
func GitBranch(dir string) (string, bool) {
	out, err := exec.Command("git", "-C", dir, "symbolic-ref", "--short", "-q", "HEAD").Output()
	b := strings.TrimSpace(string(out))
	if err != nil || b == "" {
		return "", false
	}
	return b, true
}

// gitWorktrees lists the worktrees of the repository containing dir, the
// one containing dir first. It returns nil when dir is not in a repository.
func gitWorktrees(dir string) []Worktree {
	out, err := exec.Command("git", "-C", dir, "worktree", "list", "--porcelain").Output()
	if err != nil {
		return nil
	}
	wts := parseWorktreeList(out)
	top, err := exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output()
	if err == nil {
		cur := strings.TrimSpace(string(top))
		for i, w := range wts {
			if sameDir(w.Dir, cur) && i > 0 {
				wts[0], wts[i] = wts[i], wts[0]
			}
		}
	}
	return wts
}

// parseWorktreeList parses `git worktree list --porcelain`.
func parseWorktreeList(out []byte) []Worktree {
	var wts []Worktree
	var cur *Worktree
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "worktree "):
			wts = append(wts, Worktree{Dir: strings.TrimPrefix(line, "worktree ")})
			cur = &wts[len(wts)-1]
			cur.StorePath = filepath.Join(cur.Dir, StoreRelPath)
		case cur != nil && strings.HasPrefix(line, "branch "):
			cur.Branch = strings.TrimPrefix(strings.TrimPrefix(line, "branch "), "refs/heads/")
		case cur != nil && line == "bare":
			wts = wts[:len(wts)-1]
			cur = nil
		}
	}
	for i := range wts {
		if wts[i].Branch == "" {
			wts[i].Branch = "HEAD"
		}
	}
	return wts
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
