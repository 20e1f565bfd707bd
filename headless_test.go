package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// TestHeadlessBuild builds lazuli as make build does for bin/lazuli
// (-tags nowindow, CGO_ENABLED=0) and runs it: Fyne is not in it, the
// binary is static, the commands work, and the window is handed to a
// lazuli-window beside it with the same arguments, or refused in one line
// when there is none.
func TestHeadlessBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("checks an ELF binary and runs a shell script as the window")
	}
	list := exec.Command("go", "list", "-deps", "-tags", "nowindow", ".")
	list.Env = append(os.Environ(), "CGO_ENABLED=0")
	deps, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps -tags nowindow: %v\n%s", err, deps)
	}
	for _, p := range strings.Fields(string(deps)) {
		if strings.HasPrefix(p, "fyne.io/") || strings.Contains(p, "go-gl") || p == "runtime/cgo" {
			t.Errorf("the headless build imports %s", p)
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "lazuli")
	build := exec.Command("go", "build", "-tags", "nowindow", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags nowindow: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Errorf("%s has a dynamic loader (PT_INTERP): want a static binary", bin)
		}
	}
	f.Close()

	run := func(args ...string) (string, string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatalf("%s %q: %v", bin, args, err)
		}
		return stdout.String(), stderr.String(), code
	}
	if out, _, code := run("--version"); code != 0 || !strings.HasPrefix(out, "Lazuli ") {
		t.Errorf("lazuli --version = %q, exit %d, want the version", out, code)
	}
	// A command: import a real transcript, then search it.
	transcript := fixtures.Dir(t, "transcripts", "B_agent-sessions_claude-small.jsonl")
	store := filepath.Join(dir, "s.azs")
	if _, errOut, code := run("import", "--store", store, transcript); code != 0 {
		t.Fatalf("lazuli import: exit %d: %s", code, errOut)
	}
	if out, errOut, code := run("ls", "--store", store, "--json"); code != 0 || !strings.Contains(out, `"id"`) {
		t.Errorf("lazuli ls --json = %q (%s), exit %d, want the imported session", out, errOut, code)
	}
	// The window: none beside it, then a stand-in that prints its arguments.
	if _, errOut, code := run("--demo"); code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "no window") {
		t.Errorf("lazuli --demo without lazuli-window: exit %d, stderr %q, want 2 and one line", code, errOut)
	}
	window := "#!/bin/sh\necho \"window $*\"\nexit 7\n"
	if err := os.WriteFile(filepath.Join(dir, "lazuli-window"), []byte(window), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := run("--open", "some dir", "--session", "3"); code != 7 || out != "window --open some dir --session 3\n" {
		t.Errorf("lazuli --open … with lazuli-window = %q (%s), exit %d, want the window run with the same arguments and its exit code 7", out, errOut, code)
	}
}
