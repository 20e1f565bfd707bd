package cli

import (
	"os"
	"testing"

	"github.com/lazuli-app/lazuli/internal/testcache"
)

// TestMain keeps the tests' caches out of the user's cache folder. It also
// runs the test binary as a helper process when a test asks for one (see
// killedWriterMain, launchMain, repeatMain).
func TestMain(m *testing.M) {
	if os.Getenv(killedWriterEnv) != "" {
		os.Exit(killedWriterMain())
	}
	if os.Getenv(launchEnv) != "" {
		os.Exit(launchMain())
	}
	if os.Getenv(repeatEnv) != "" {
		os.Exit(repeatMain())
	}
	code := testcache.Run(m)
	removeLazuliBinary()
	os.Exit(code)
}
