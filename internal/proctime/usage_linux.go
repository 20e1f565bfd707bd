package proctime

import (
	"os"
	"syscall"
	"time"
)

// usage returns the CPU time (user + system) and peak RSS of an exited
// child, from its rusage.
func usage(ps *os.ProcessState) (time.Duration, int64) {
	var rss int64
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss // KiB on Linux
	}
	return ps.UserTime() + ps.SystemTime(), rss
}
