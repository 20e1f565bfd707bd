package app

import (
	"log"

	"github.com/lazuli-app/lazuli/project"
)

// Worktree is one git worktree (or plain folder) and its session store.
type Worktree = project.Worktree

// StoreRelPath is where a worktree keeps its sessions.
var StoreRelPath = project.StoreRelPath

// ResolveProject turns the PATH argument into the worktrees to show: every
// worktree of a git repository, a single folder, or one .azs file.
func ResolveProject(path string) ([]Worktree, error) { return project.Resolve(path) }

// branchOfStore guesses the branch of a bare store file from the folder it
// sits in, when that folder is a worktree.
func branchOfStore(storePath string) string { return project.BranchOfStore(storePath) }

// excludeStore keeps a store out of git (project.ExcludeStore), called
// when a window's first write creates it (store.WithFirstWrite); a failure
// is logged, never in the way of the store.
func excludeStore(path string) {
	if err := project.ExcludeStore(path); err != nil {
		log.Printf("keep %s out of git: %v", path, err)
	}
}
