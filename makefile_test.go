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

// TestMakeTestSaysPostgresSkipped runs `make test`'s recipe (deps taken as
// done) in a copy of the Makefile with a stand-in go whose tests note
// skipped PostgreSQL tests as internal/pgtest does: when one skipped, a
// banner after the tests says so, and the tests' exit status is kept.
func TestMakeTestSaysPostgresSkipped(t *testing.T) {
	fixtures.NeedTool(t, "make")
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	const goStub = `#!/bin/sh
[ "$1" = test ] || exit 0
if [ "$STUB_SKIP" = 1 ]; then echo "TestPush: no initdb" >> "$LAZULI_PG_SKIPPED_FILE"; fi
exit "$STUB_RC"
`
	const banner = "1 PostgreSQL tests SKIPPED: team sync is NOT tested"
	for _, tt := range []struct {
		name       string
		skip, fail bool
	}{
		{"SkippedPass", true, false},
		{"SkippedFail", true, true},
		{"RanPass", false, false},
		{"RanFail", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range map[string]string{"Makefile": string(mk), "go": goStub} {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("make", "-s", "-o", "deps", "test", "GO="+filepath.Join(dir, "go"), "STATICCHECK=true")
			cmd.Dir = dir
			skip, rc := "0", "0"
			if tt.skip {
				skip = "1"
			}
			if tt.fail {
				rc = "1"
			}
			cmd.Env = append(os.Environ(), "STUB_SKIP="+skip, "STUB_RC="+rc)
			out, err := cmd.CombinedOutput()
			if failed := err != nil; failed != tt.fail {
				t.Errorf("make test: %v, want failed %v\n%s", err, tt.fail, out)
			}
			if said := strings.Contains(string(out), banner); said != tt.skip {
				t.Errorf("make test printed the banner %q: %v, want %v\n%s", banner, said, tt.skip, out)
			}
			if tt.skip && !strings.Contains(string(out), "  TestPush: no initdb") {
				t.Errorf("make test did not name the skipped test:\n%s", out)
			}
		})
	}
}
