//go:build unix

package fakemodel

import (
	"os/exec"
	"syscall"
)

// inOwnGroup starts cmd in its own process group, ended by SIGTERM when
// its context is cancelled.
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
}

// killOwnGroup kills what is left of cmd's process group.
func killOwnGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
