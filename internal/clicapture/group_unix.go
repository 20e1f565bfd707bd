//go:build unix

package clicapture

import (
	"os/exec"
	"syscall"
)

// inOwnGroup starts cmd in a process group of its own, and makes its
// context's end a SIGTERM.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
}

// killOwnGroup kills what is left of cmd's process group.
func killOwnGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
