//go:build windows

package permprompt

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// stillActive is the exit code GetExitCodeProcess gives a running process.
const stillActive = 259

// processAlive reports whether process pid may still run: only a process
// Windows says does not exist, or has exited, is gone.
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		// No such process; any other error (access denied) may be a live one.
		return !errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true
	}
	return code == stillActive
}

// ownedByMe answers true: the temporary folder is the user's own on
// Windows (%LOCALAPPDATA%\Temp, which other users cannot list), and a
// folder another user could put there would not be removable by this one.
func ownedByMe(os.DirEntry) bool { return true }
