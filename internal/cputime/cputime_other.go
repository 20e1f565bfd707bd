//go:build !unix

// Package cputime measures the CPU time a benchmark's process used: on a
// busy machine it says what the work cost, where the wall time also counts
// the wait for a core. It imports none of Lazuli's packages, so store's
// tests use it too.
package cputime

import "time"

// Process is not measured on this platform: it returns 0.
func Process() time.Duration { return 0 }
