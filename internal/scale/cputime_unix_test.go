//go:build unix

package scale

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) the process has used: on a
// busy machine it says what a benchmark costs when its wall time says how
// long it waited for a core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
