package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestImportWorktreeBackslashes: a branch given with backslashes, as a
// Windows user may type it, is stored with slashes (git's and AZUREAL's
// form), so the session lists under the same worktree on every system.
func TestImportWorktreeBackslashes(t *testing.T) {
	needShared(t)
	dir := t.TempDir()
	transcript, _ := filepath.Abs(filepath.Join(sharedDir, "real-cli", "claude-a-multitool", "stdout.jsonl"))
	if code, _, errOut := run(t, dir, "import", "--worktree", `feature\windows`, transcript); code != 0 {
		t.Fatalf("import exit %d: %s", code, errOut)
	}
	code, out, errOut := run(t, dir, "ls", "--json")
	if code != 0 {
		t.Fatalf("ls exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"worktree": "feature/windows"`) {
		t.Errorf("ls --json does not list the session under feature/windows:\n%s", out)
	}
}
