// Package launch hands the window over to the desktop build: the headless
// build of lazuli (go build -tags nowindow, no Fyne, no cgo) runs every
// command itself and, when asked for the window, runs lazuli-window, the
// full build installed beside it, with the same arguments.
package launch

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// WindowBinary is the file name of the build with the window, installed in
// the same folder as the headless lazuli (with .exe on Windows).
const WindowBinary = "lazuli-window"

// ExitNoWindow is the exit code when there is no window to hand over to
// (cli.ExitUsage: the command line asked for what this build cannot do).
const ExitNoWindow = 2

// Window runs the window build beside self (the running executable's path)
// with args, as the window's own command line, and returns its exit code;
// on Unix the process becomes the window build (exec), so this returns only
// on failure. Without a window build beside self it prints one line to
// stderr and returns ExitNoWindow.
func Window(self string, args []string, stderr io.Writer) int {
	path, err := WindowPath(self)
	if err != nil {
		fmt.Fprintf(stderr, "lazuli: this build has no window (%v); the commands of `lazuli help` all work\n", err)
		return ExitNoWindow
	}
	code, err := run(path, args)
	if err != nil {
		fmt.Fprintf(stderr, "lazuli: could not start the window: %v\n", err)
		return 1
	}
	return code
}

// WindowPath returns the window build beside self, following symbolic links
// to self first (a `lazuli` on PATH that links to an installed one finds
// the window installed with it).
func WindowPath(self string) (string, error) {
	if real, err := filepath.EvalSymlinks(self); err == nil {
		self = real
	}
	name := WindowBinary
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	path := filepath.Join(filepath.Dir(self), name)
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("no %s beside %s", name, self)
	case err != nil:
		return "", err
	case fi.IsDir() || (runtime.GOOS != "windows" && fi.Mode()&0o111 == 0):
		return "", fmt.Errorf("%s is not an executable file", path)
	}
	return path, nil
}
