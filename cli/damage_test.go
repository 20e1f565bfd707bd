package cli

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedSessionMarked reproduces issue 15 item 3 through the CLI: two
// char_len values of 2^63-1 in S2 and a TEXT seq in S3. ls, ls --json,
// dump and show of the sound session work and mark the others; check
// reports the damage and exits non-zero.
func TestDamagedSessionMarked(t *testing.T) {
	dir := damagedFixture(t,
		"UPDATE events SET char_len = 9223372036854775807 WHERE session_id = 2 AND seq IN (1, 2)",
		"UPDATE events SET seq = 'abc' WHERE session_id = 3 AND seq = 2")

	code, out, errOut := run(t, dir, "ls")
	if code != 0 || strings.Count(out, "⚠ damaged") != 2 || !strings.Contains(out, "Alpha: parser refactor") ||
		!strings.Contains(errOut, "S2 is damaged") || !strings.Contains(errOut, "S3 is damaged") {
		t.Errorf("ls = %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = run(t, dir, "ls", "--json")
	if code != 0 || strings.Count(out, `"damaged":`) != 2 {
		t.Errorf("ls --json = %d\n%s", code, out)
	}
	code, out, errOut = run(t, dir, "dump")
	if code != 0 || strings.Count(out, `"damaged":`) != 2 || !strings.Contains(errOut, "S3 is damaged") {
		t.Errorf("dump = %d, %d damaged marks\n%s", code, strings.Count(out, `"damaged":`), errOut)
	}
	for _, args := range [][]string{{"show", "S1"}, {"context", "S1"}, {"show", "S2"}} {
		if code, _, errOut := run(t, dir, args...); code != 0 {
			t.Errorf("%v = %d: %s", args, code, errOut)
		}
	}
	if code, _, errOut := run(t, dir, "show", "S3"); code == 0 || !strings.Contains(errOut, "damaged") {
		t.Errorf("show S3 = %d (%s), want a clear damage error", code, errOut)
	}
	code, out, _ = run(t, dir, "check")
	if code == 0 || !strings.Contains(out, "char_len_overflow") || !strings.Contains(out, "seq_not_integer") {
		t.Errorf("check = %d\n%s", code, out)
	}
}

// damagedFixture copies the fixture i_basic.azs into a new worktree, runs
// stmts on it with a plain connection, and returns the worktree.
func damagedFixture(t *testing.T, stmts ...string) string {
	t.Helper()
	needShared(t)
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(sharedDir, "azs", "i_basic.azs"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".azureal", "sessions.azs")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range stmts {
		if _, err := raw.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestImportRefusesForeignTrigger reproduces issue 15 item 4: a store with
// a trigger that deletes every event when a session is inserted. check
// reports it and exits non-zero; import fails with one line and writes
// nothing; ls still reads the store.
func TestImportRefusesForeignTrigger(t *testing.T) {
	dir := damagedFixture(t, "CREATE TRIGGER evil AFTER INSERT ON sessions BEGIN DELETE FROM events; END")
	path := filepath.Join(dir, ".azureal", "sessions.azs")
	before := fileHash(t, path)
	code, out, _ := run(t, dir, "check")
	if code == 0 || !strings.Contains(out, "foreign_trigger") {
		t.Errorf("check = %d\n%s", code, out)
	}
	transcript, err := filepath.Abs(filepath.Join(sharedDir, "real-cli", "claude-a-multitool", "stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run(t, dir, "import", transcript)
	if code == 0 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "trigger evil") {
		t.Errorf("import = %d, stderr %q; want one line naming the trigger", code, errOut)
	}
	if fileHash(t, path) != before {
		t.Error("the store changed")
	}
	if code, out, _ := run(t, dir, "ls"); code != 0 || !strings.Contains(out, "Alpha: parser refactor") {
		t.Errorf("ls = %d\n%s", code, out)
	}
}
