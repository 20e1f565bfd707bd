//go:build unix && !linux

package agents

import "syscall"

// parentDeathSignal does nothing: only Linux has a parent-death signal.
// Elsewhere an agent whose Lazuli was killed with SIGKILL ends at its next
// write to the closed output pipe.
func parentDeathSignal(*syscall.SysProcAttr) {}
