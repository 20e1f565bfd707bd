package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLookingWritesNothing: commands that only look (ls, import-native
// --dry-run) in a fresh git repository leave it as it was: no .azureal
// folder, no line in .git/info/exclude. The first write (an import that
// stores a session) adds the line.
func TestLookingWritesNothing(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	repo := t.TempDir()
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	exclude := filepath.Join(repo, ".git", "info", "exclude")
	before, err := os.ReadFile(exclude)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"ls"},
		{"ls", "--json"},
		{"import-native", "--dry-run", "--project", "."},
	} {
		run(t, repo, args...)
		after, _ := os.ReadFile(exclude)
		if string(after) != string(before) {
			t.Errorf("lazuli %s changed info/exclude:\n%s", strings.Join(args, " "), after)
		}
		if _, err := os.Lstat(filepath.Join(repo, ".azureal")); err == nil {
			t.Errorf("lazuli %s made .azureal", strings.Join(args, " "))
		}
	}
	transcript := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(transcript, []byte(`{"type":"user","message":{"role":"user","content":"hi"},"sessionId":"s","uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, repo, "import", transcript); code != 0 {
		t.Fatalf("import exit %d: %s", code, errOut)
	}
	if after, _ := os.ReadFile(exclude); !strings.Contains(string(after), "\n.azureal/\n") {
		t.Errorf("after the first import, info/exclude = %q, want a .azureal/ line", after)
	}
}
