package launch

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestWindowPath(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the window build is lazuli-window.exe there; the cases below use Unix modes")
	}
	dir := t.TempDir()
	self := filepath.Join(dir, "lazuli")
	write := func(name string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("lazuli", 0o755)
	if got, err := WindowPath(self); err == nil || !strings.Contains(err.Error(), "no lazuli-window beside") {
		t.Errorf("WindowPath(%q) without a window build = %q, %v, want a 'no lazuli-window beside' error", self, got, err)
	}
	write(WindowBinary, 0o644)
	if got, err := WindowPath(self); err == nil || !strings.Contains(err.Error(), "not an executable") {
		t.Errorf("WindowPath(%q) with a non-executable window build = %q, %v, want a 'not an executable' error", self, got, err)
	}
	if err := os.Chmod(filepath.Join(dir, WindowBinary), 0o755); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, WindowBinary)
	if got, err := WindowPath(self); err != nil || got != want {
		t.Errorf("WindowPath(%q) = %q, %v, want %q", self, got, err, want)
	}
	// A lazuli on PATH that links to the installed one finds the window
	// installed with it, not one beside the link.
	bin := t.TempDir()
	link := filepath.Join(bin, "lazuli")
	if err := os.Symlink(self, link); err != nil {
		t.Fatal(err)
	}
	if got, err := WindowPath(link); err != nil || got != want {
		t.Errorf("WindowPath(%q) = %q, %v, want %q (through the link)", link, got, err, want)
	}
}

// Without a window build, asking for the window is one line and the usage
// exit code, never a crash or a hang.
func TestWindowWithoutWindowBuild(t *testing.T) {
	self := filepath.Join(t.TempDir(), "lazuli")
	var stderr bytes.Buffer
	if code := Window(self, []string{"--demo"}, &stderr); code != ExitNoWindow {
		t.Errorf("Window(%q) = %d, want %d", self, code, ExitNoWindow)
	}
	if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "this build has no window") {
		t.Errorf("Window printed %q, want one line saying this build has no window", got)
	}
}
