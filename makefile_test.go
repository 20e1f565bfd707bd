package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// TestMakeRunUsesInstalledCLIs runs `make run`'s recipe (deps and build
// taken as done) in a copy of the repository's Makefile with a stand-in
// bin/lazuli: the demo must see the CLIs `make deps` wrote to out/clis.env,
// not only what is on PATH.
func TestMakeRunUsesInstalledCLIs(t *testing.T) {
	fixtures.NeedTool(t, "make")
	dir := t.TempDir()
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"Makefile":     string(mk),
		"out/clis.env": "export LAZULI_CLAUDE=/opt/clis/claude\nexport LAZULI_CODEX=/opt/clis/codex\n",
		"bin/lazuli":   "#!/bin/sh\necho \"args=$* claude=$LAZULI_CLAUDE codex=$LAZULI_CODEX\"\n",
		"FyneApp.toml": "[Details]\nVersion = \"0.0.0\"\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("make", "-s", "-o", "deps", "-o", "build", "run")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LAZULI_CLAUDE=", "LAZULI_CODEX=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make run: %v\n%s", err, out)
	}
	if want := "args=--demo claude=/opt/clis/claude codex=/opt/clis/codex"; !strings.Contains(string(out), want) {
		t.Errorf("make run printed %q, want the demo started with %q", out, want)
	}
}
