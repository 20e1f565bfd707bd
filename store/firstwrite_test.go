package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestWithFirstWrite: the hook runs once, at the first write (which
// creates the file), never for opening or reading; a Store opened on the
// existing file runs it again at its own first write.
func TestWithFirstWrite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ".azureal", "sessions.azs")
	calls := 0
	s := mustOpenPath(t, path, WithFirstWrite(func() { calls++ }))
	if _, err := s.Sessions().List(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if calls != 0 || s.Exists() {
		t.Fatalf("after opening and reading: %d calls, file exists %v; want 0, false", calls, s.Exists())
	}
	mustCreateSession(t, s, "main", "a")
	mustCreateSession(t, s, "main", "b")
	if calls != 1 {
		t.Fatalf("after two writes: %d calls, want 1", calls)
	}
	s.Close()

	again := 0
	s = mustOpenPath(t, path, WithFirstWrite(func() { again++ }))
	if _, err := s.Sessions().List(ctx, ""); err != nil || again != 0 {
		t.Fatalf("reading an existing store: %d calls (%v), want 0", again, err)
	}
	mustCreateSession(t, s, "main", "c")
	if again != 1 {
		t.Errorf("first write to an existing store: %d calls, want 1", again)
	}
}
