package store

import (
	"fmt"
	"os"
	"testing"
)

// TestMain keeps the tests' caches (the list counts every Sessions().List
// saves) out of the user's cache folder: they go to a temporary folder,
// removed at the end. It also runs the test binary as a helper process
// when a test asks for one (see helperMain).
func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(helperMain())
	}
	dir, err := os.MkdirTemp("", "lazuli-store-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.Setenv(CacheDirEnv, dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir) // best effort: it is a temporary folder
	os.Exit(code)
}
