//go:build !linux

package proctime

import (
	"os"
	"time"
)

// usage returns the CPU time (user + system) of an exited child; its peak
// RSS is not read on this platform (0).
func usage(ps *os.ProcessState) (time.Duration, int64) {
	return ps.UserTime() + ps.SystemTime(), 0
}
