//go:build unix

package permprompt

import (
	"errors"
	"os"
	"syscall"
)

// processAlive reports whether process pid may still run: only a process
// the kernel says does not exist (ESRCH) is gone.
func processAlive(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// ownedByMe reports whether e, a folder entry, belongs to this user.
func ownedByMe(e os.DirEntry) bool {
	fi, err := e.Info()
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
