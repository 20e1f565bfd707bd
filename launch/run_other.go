//go:build !unix

package launch

import (
	"errors"
	"os"
	"os/exec"
)

// run starts path with the process's standard streams and waits for it
// (Windows has no exec): its exit code is lazuli's.
func run(path string, args []string) (int, error) {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}
