//go:build unix

package agents

import (
	"os"
	"syscall"
)

// tryLock takes an exclusive lock on f without waiting (flock); closing f,
// or the death of the process, releases it.
func tryLock(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
