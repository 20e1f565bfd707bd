package winetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/cli"
	"github.com/lazuli-app/lazuli/internal/fixtures"
)

// TestHeadlessUnderWine runs lazuli.exe under Wine on the shared fixtures
// with Windows paths: absolute ones on drive Z: with backslashes, and
// relative ones with backslashes from the working folder. It imports a
// Claude and a Codex run, lists, searches and exports them, and checks
// that stores cross between the systems: the store lazuli.exe wrote reads
// the same on Linux, and AZUREAL's store written on Linux dumps under
// Wine exactly as its reference dump says.
func TestHeadlessUnderWine(t *testing.T) {
	e := setup(t)
	exe := e.binary(t, false)
	claude := fixtures.Dir(t, "real-cli", "claude-a-multitool", "stdout.jsonl")
	codex := fixtures.Dir(t, "real-cli", "codex-a-multitool", "stdout.jsonl")
	basic := fixtures.Dir(t, "azs", "i_basic.azs")
	basicDump := fixtures.Dir(t, "azs", "i_basic.dump.json")

	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, codex, filepath.Join(dir, "in", "codex.jsonl"))
	ctx := context.Background()
	run := func(args ...string) string {
		t.Helper()
		out, errOut, code, err := e.wine.Run(ctx, dir, exe, args...)
		if err != nil || code != 0 {
			t.Fatalf("wine lazuli.exe %q: exit %d, %v\nstdout: %s\nstderr: %s", args, code, err, out, errOut)
		}
		return out
	}

	if out := run("--version"); !strings.HasPrefix(out, "Lazuli ") || !strings.Contains(out, "windows/amd64") {
		t.Errorf("--version = %q, want Lazuli … windows/amd64", out)
	}
	store := filepath.Join(dir, "s.azs")
	run("import", "--store", WinPath(store), "--name", "claude run", WinPath(claude))
	run("import", "--store", "s.azs", `in\codex.jsonl`)

	var sessions []struct {
		ID     int64  `json:"id"`
		Name   string `json:"name"`
		Events int    `json:"event_count"`
	}
	if err := json.Unmarshal([]byte(run("ls", "--store", WinPath(store), "--json")), &sessions); err != nil {
		t.Fatalf("ls --json: %v", err)
	}
	if len(sessions) != 2 {
		t.Fatalf("ls --json: %d sessions, want 2: %+v", len(sessions), sessions)
	}
	if out := run("search", "--store", WinPath(store), "greet"); !strings.Contains(out, "S1") {
		t.Errorf("search greet: no hit in S1:\n%s", out)
	}
	md := filepath.Join(dir, "out", "claude.md")
	if err := os.Mkdir(filepath.Dir(md), 0o755); err != nil {
		t.Fatal(err)
	}
	run("export", "--store", WinPath(store), "S1", "--format", "md", "-o", WinPath(md))
	if b, err := os.ReadFile(md); err != nil || !bytes.HasPrefix(b, []byte("# claude run\n")) {
		t.Errorf("export -o %s: %v, file starts %q", WinPath(md), err, head(b))
	}
	if out := run("check", "--store", WinPath(store)); !strings.Contains(out, "ok") {
		t.Errorf("check = %q, want ok", out)
	}

	// The store written on Windows reads the same on Linux.
	if got, want := run("dump", "--store", WinPath(store)), linux(t, dir, "dump", "--store", store); got != want {
		t.Errorf("dump under Wine and on Linux differ:\n%s", firstDiff(got, want))
	}
	// AZUREAL's store written on Linux dumps under Wine as its reference.
	copyFile(t, basic, filepath.Join(dir, "basic.azs"))
	want, err := os.ReadFile(basicDump)
	if err != nil {
		t.Fatal(err)
	}
	if got := run("dump", "--store", WinPath(filepath.Join(dir, "basic.azs"))); got != string(want) {
		t.Errorf("dump of i_basic.azs under Wine differs from i_basic.dump.json:\n%s", firstDiff(got, string(want)))
	}
}

// linux runs a command of the Linux build in this process.
func linux(t *testing.T, dir string, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := cli.Run(context.Background(), &cli.Env{Stdout: &out, Stderr: &errOut, Dir: dir}, args); code != 0 {
		t.Fatalf("lazuli %q on Linux: exit %d: %s", args, code, errOut.String())
	}
	return out.String()
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func head(b []byte) string { return string(b[:min(len(b), 80)]) }

// firstDiff names the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: got  %s\n         want %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("got %d lines, want %d", len(g), len(w))
}
