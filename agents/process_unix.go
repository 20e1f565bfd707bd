//go:build unix

package agents

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes cmd the leader of a new process group, so the
// agent and everything it starts can be signalled together. On Linux the
// agent also gets a parent-death signal (see parentDeathSignal), so a
// Lazuli killed with SIGKILL does not leave it running.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	parentDeathSignal(cmd.SysProcAttr)
}

// killGroup sends sig to process group pgid; a group that is gone is not
// an error.
func killGroup(pgid int, sig syscall.Signal) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, sig)
	}
}
