package app

import (
	"os"
	"testing"

	"github.com/lazuli-app/lazuli/internal/testcache"
)

// TestMain keeps the tests' caches out of the user's cache folder.
func TestMain(m *testing.M) { os.Exit(testcache.Run(m)) }
