// Package testcache keeps a test binary's caches (the list counts that every
// Sessions().List saves, the search index) out of the user's cache folder, and
// its settings (the projects' default permissions) out of the user's
// configuration folder.
package testcache

import (
	"fmt"
	"os"
	"testing"

	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/store"
)

// Run points store.CacheDirEnv at a temporary folder unless the caller set
// it, and project.ConfigDirEnv at another unless the caller set it, runs
// the tests and removes the folders. Use it as
//
//	func TestMain(m *testing.M) { os.Exit(testcache.Run(m)) }
func Run(m *testing.M) int {
	for _, v := range []struct{ env, prefix string }{
		{project.ConfigDirEnv, "lazuli-test-config-"}, {store.CacheDirEnv, "lazuli-test-cache-"}} {
		if os.Getenv(v.env) != "" {
			continue
		}
		dir, err := os.MkdirTemp("", v.prefix)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testcache:", err)
			return 1
		}
		defer os.RemoveAll(dir) //nolint:errcheck // a temporary folder
		if err := os.Setenv(v.env, dir); err != nil {
			fmt.Fprintln(os.Stderr, "testcache:", err)
			return 1
		}
	}
	return m.Run()
}
