package pgtest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestMissingNotesSkip: where a missing server skips a test (not CI, not
// required), Missing writes one line naming the test and why to
// $LAZULI_PG_SKIPPED_FILE, which `make test` reads to say the PostgreSQL
// tests did not run.
func TestMissingNotesSkip(t *testing.T) {
	for _, env := range []string{"CI", RequiredEnv, "LAZULI_FIXTURES_REQUIRED"} {
		t.Setenv(env, "")
	}
	path := filepath.Join(t.TempDir(), "pg-skipped")
	t.Setenv(SkippedFileEnv, path)
	for _, name := range []string{"a", "b"} {
		t.Run(name, func(t *testing.T) {
			Missing(t, errors.New("no initdb\nhere"))
			t.Error("Missing returned without skipping")
		})
	}
	b, err := os.ReadFile(path)
	want := "TestMissingNotesSkip/a: no initdb here\nTestMissingNotesSkip/b: no initdb here\n"
	if err != nil || string(b) != want {
		t.Errorf("ReadFile(%s) = %q, %v, want %q", SkippedFileEnv, b, err, want)
	}
}
