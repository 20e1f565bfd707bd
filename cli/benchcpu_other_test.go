//go:build !unix

package cli

import "time"

// cpuTime is the CPU time the process has used; 0 where it is not known.
func cpuTime() time.Duration { return 0 }
