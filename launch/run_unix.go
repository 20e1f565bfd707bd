//go:build unix

package launch

import (
	"os"
	"syscall"
)

// run replaces the process with path: the window keeps lazuli's process id,
// standard streams and signals, as if it had been started directly.
func run(path string, args []string) (int, error) {
	return 1, syscall.Exec(path, append([]string{path}, args...), os.Environ())
}
