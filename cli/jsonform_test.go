package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONNumbersAsDumps: ls --json writes costs as AZUREAL's dumps do (a
// zero cost is 0.0, not 0), and dump prints AZUREAL's fixture dump byte for
// byte, keys sorted inside events too (issue 14 item 4).
func TestJSONNumbersAsDumps(t *testing.T) {
	needShared(t)
	dir := t.TempDir()
	src := filepath.Join(sharedDir, "azs", "i_basic")
	b, err := os.ReadFile(src + ".azs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".azureal"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".azureal", "sessions.azs"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := run(t, dir, "ls", "--json")
	if code != 0 {
		t.Fatalf("ls --json exit %d: %s", code, errOut)
	}
	for _, want := range []string{`"cost_usd": 0.0,`, `"cost_usd": 0.4213,`, `"cost_usd": null,`} {
		if !strings.Contains(out, want) {
			t.Errorf("ls --json lacks %s:\n%s", want, out)
		}
	}
	code, out, errOut = run(t, dir, "dump")
	if code != 0 {
		t.Fatalf("dump exit %d: %s", code, errOut)
	}
	want, err := os.ReadFile(src + ".dump.json")
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		g, w := strings.Split(out, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(g), len(w)) {
			if g[i] != w[i] {
				t.Fatalf("dump differs from i_basic.dump.json at line %d: got %q, want %q", i+1, g[i], w[i])
			}
		}
		t.Fatalf("dump has %d lines, i_basic.dump.json %d", len(g), len(w))
	}
}
