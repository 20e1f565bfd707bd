package project

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// excludeLine is the pattern ExcludeStore adds: any folder named .azureal.
const excludeLine = ".azureal/"

// ExcludeStore keeps the session store at storePath out of git: when the
// store sits at <worktree>/.azureal/sessions.azs in a git worktree, and git
// does not ignore it yet, it appends ".azureal/" to the repository's
// info/exclude (the common git dir's for a linked worktree, so that every
// worktree shares it). It never edits a .gitignore, and does nothing for a
// store elsewhere or outside git. Running it again changes nothing.
func ExcludeStore(storePath string) error {
	dir := filepath.Dir(storePath)
	if filepath.Base(dir) != ".azureal" {
		return nil
	}
	wt := filepath.Dir(dir)
	out, err := exec.Command("git", "-C", wt, "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
	if err != nil {
		return nil // not in a git worktree (or no git): nothing to keep out
	}
	common := strings.TrimSpace(string(out))
	// Already ignored, by the user's rules or an earlier run? check-ignore
	// exits 0 when it is, 1 when it is not.
	rel := filepath.ToSlash(filepath.Join(".azureal", filepath.Base(storePath)))
	err = exec.Command("git", "-C", wt, "check-ignore", "-q", "--no-index", rel).Run()
	if err == nil {
		return nil
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		return fmt.Errorf("git check-ignore in %s: %w", wt, err)
	}
	path := filepath.Join(common, "info", "exclude")
	if err := appendLine(path, excludeLine, "# Lazuli's session stores (added by Lazuli)"); err != nil {
		return fmt.Errorf("exclude .azureal/ from git: %w", err)
	}
	return nil
}

// appendLine adds comment and line to the file at path, creating it (and its
// folder), after a newline if the file does not end with one.
func appendLine(path, line, comment string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	var b bytes.Buffer
	if len(old) > 0 && old[len(old)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(comment + "\n" + line + "\n")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
