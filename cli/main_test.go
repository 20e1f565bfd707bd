package cli

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/internal/testcache"
)

// TestMain keeps the tests' caches out of the user's cache folder. It also
// runs the test binary as a helper process when a test asks for one (see
// killedWriterMain, launchMain, repeatMain, cliArgsEnv, runHelperMain).
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
	if args := os.Getenv(cliArgsEnv); args != "" {
		os.Exit(Run(context.Background(), &Env{Stdout: os.Stdout, Stderr: os.Stderr, Dir: "."}, strings.Split(args, "\n")))
	}
	if os.Getenv(runHelperEnv) != "" {
		os.Exit(runHelperMain())
	}
	code := testcache.Run(m)
	removeLazuliBinary()
	os.Exit(code)
}
