package app

import (
	"os"
	"testing"

	"github.com/lazuli-app/lazuli/internal/testcache"
)

// asCLIEnv set to 1 makes the test binary run as the lazuli command line
// (as os/exec's tests run their helper process): the SQL console's child
// process is os.Executable, which in a test is this binary.
const asCLIEnv = "LAZULI_APP_TEST_AS_CLI"

// TestMain keeps the tests' caches out of the user's cache folder.
func TestMain(m *testing.M) {
	if os.Getenv(asCLIEnv) == "1" {
		os.Exit(Main(os.Args[1:]))
	}
	onUI, loadingDelay = serialUI, 0
	os.Exit(testcache.Run(m))
}
