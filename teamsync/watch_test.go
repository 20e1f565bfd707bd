package teamsync

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWatchPushesOnChange: Watch pushes at once, again after the file
// changes, and returns nil when its context ends; an error ends it.
func TestWatchPushesOnChange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.azs")
	if err := os.WriteFile(path, []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pushes := 0
	err := Watch(ctx, []string{path}, time.Millisecond, func() error {
		pushes++
		switch pushes {
		case 1:
			return os.WriteFile(path, []byte("ab"), 0o644)
		case 2:
			cancel()
		}
		return nil
	})
	if err != nil || pushes != 2 {
		t.Fatalf("Watch = %v after %d pushes; want nil after 2", err, pushes)
	}
	boom := errors.New("boom")
	if err := Watch(context.Background(), []string{path}, time.Millisecond, func() error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("Watch = %v, want the push error", err)
	}
}
