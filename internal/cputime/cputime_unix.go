//go:build unix

// Package cputime measures the CPU time a benchmark's process used: on a
// busy machine it says what the work cost, where the wall time also counts
// the wait for a core. It imports none of Lazuli's packages, so store's
// tests use it too.
package cputime

import (
	"syscall"
	"time"
)

// Process returns the CPU time (user + system) this process has used.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
