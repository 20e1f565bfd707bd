//go:build unix

package cli

import (
	"os"
	"syscall"
)

// peakRSS is the peak resident set size of an ended process, as getrusage
// reports it (KiB on Linux).
func peakRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	return ru.Maxrss, true
}
