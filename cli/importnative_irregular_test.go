//go:build unix

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestImportNativeIrregularEntries: import-native reports each entry
// named like a transcript that is not a regular file with one "skipped"
// line and its reason, counts them in --json (summary.skipped and the
// unreadable list), never hangs on a named pipe, and imports the good
// transcript. A 0000-mode file is skipped as unreadable, except for root,
// who can read it (the tests may run as root): then it is imported.
func TestImportNativeIrregularEntries(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	projects := filepath.Join(home, ".claude", "projects")
	proj := filepath.Join(projects, "-w-proj")
	line := func(id, prompt string) string {
		return `{"type":"user","message":{"role":"user","content":"` + prompt + `"},"uuid":"u1","parentUuid":null,"sessionId":"` + id +
			`","cwd":"/w/proj","timestamp":"2025-06-01T10:00:00.000Z"}` + "\n"
	}
	write := func(path, data string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(proj, "good.jsonl"), line("good", "fix the build"), 0o644)
	write(filepath.Join(proj, "mode0.jsonl"), line("mode0", "locked away"), 0)
	outside := t.TempDir()
	locked := filepath.Join(outside, "locked.jsonl")
	write(locked, line("locked", "x"), 0)
	pipe := filepath.Join(outside, "pipe")
	for _, p := range []string{pipe, filepath.Join(proj, "fifo.jsonl")} {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{
		"zero.jsonl": "/dev/zero", "locked.jsonl": locked, "pipelink.jsonl": pipe,
		"loop.jsonl": "loop.jsonl", "broken.jsonl": filepath.Join(outside, "missing.jsonl"),
	} {
		if err := os.Symlink(target, filepath.Join(proj, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(proj, "folder.jsonl"), 0o755); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"fifo.jsonl":     "not a regular file: a named pipe",
		"zero.jsonl":     "a symbolic link to a device; links are not followed",
		"locked.jsonl":   "a symbolic link to a file; links are not followed",
		"pipelink.jsonl": "a symbolic link to a named pipe; links are not followed",
		"loop.jsonl":     "a symbolic link that loops; links are not followed",
		"broken.jsonl":   "a broken symbolic link (its target does not exist)",
		"folder.jsonl":   "a folder, not a transcript file",
	}
	wantImported := 1
	if os.Geteuid() == 0 {
		wantImported = 2 // root reads the 0000 file
	} else {
		want["mode0.jsonl"] = "cannot read it: permission denied"
	}
	args := []string{"import-native", "--claude-dir", projects, "--codex-dir", filepath.Join(home, "none")}

	code, out, errOut := run(t, t.TempDir(), args...)
	if code != 0 {
		t.Fatalf("import-native exit %d: %s", code, errOut)
	}
	for name, reason := range want {
		if l := "skipped    " + filepath.Join(proj, name) + ": " + reason + "\n"; !strings.Contains(out, l) {
			t.Errorf("import-native output lacks %q:\n%s", l, out)
		}
	}
	skippedLines := 0
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "skipped    ") {
			skippedLines++
		}
	}
	if got := skippedLines; got != len(want) {
		t.Errorf("import-native printed %d skipped lines, want %d:\n%s", got, len(want), out)
	}

	code, out, errOut = run(t, t.TempDir(), append(args, "--json")...)
	if code != 0 {
		t.Fatalf("import-native --json exit %d: %s", code, errOut)
	}
	var rep struct {
		Unreadable []struct{ Path, Reason string }
		Summary    map[string]int
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json: %v\n%s", err, out)
	}
	got := map[string]string{}
	for _, u := range rep.Unreadable {
		got[filepath.Base(u.Path)] = u.Reason
	}
	for name, reason := range want {
		if got[name] != reason {
			t.Errorf("--json: %s = %q, want %q", name, got[name], reason)
		}
	}
	if len(rep.Unreadable) != len(want) || rep.Summary["skipped"] != len(want) || rep.Summary["imported"] != wantImported {
		t.Errorf("--json: %d unreadable, summary %v; want %d skipped, %d imported", len(rep.Unreadable), rep.Summary, len(want), wantImported)
	}
}
