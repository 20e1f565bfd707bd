// Package testcache keeps a test binary's caches (the list counts that every
// ListSessions saves, the search index) out of the user's cache folder.
package testcache

import (
	"fmt"
	"os"
	"testing"

	"github.com/lazuli-app/lazuli/store"
)

// Run points store.CacheDirEnv at a temporary folder unless the caller set
// it, runs the tests and removes the folder. Use it as
//
//	func TestMain(m *testing.M) { os.Exit(testcache.Run(m)) }
func Run(m *testing.M) int {
	if os.Getenv(store.CacheDirEnv) != "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "lazuli-test-cache-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testcache:", err)
		return 1
	}
	defer os.RemoveAll(dir) //nolint:errcheck // a temporary folder
	if err := os.Setenv(store.CacheDirEnv, dir); err != nil {
		fmt.Fprintln(os.Stderr, "testcache:", err)
		return 1
	}
	return m.Run()
}
