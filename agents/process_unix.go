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

// procGroup is a started agent's process group: the agent and everything
// it starts.
type procGroup struct{ pgid int }

// startGroup starts cmd, prepared by setProcessGroup, as the leader of
// its own process group.
func startGroup(cmd *exec.Cmd) (*procGroup, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &procGroup{pgid: cmd.Process.Pid}, nil
}

// interrupt asks the group to end (SIGTERM); the agent CLIs end their
// tools on it.
func (g *procGroup) interrupt() { killGroup(g.pgid, syscall.SIGTERM) }

// kill ends the group at once (SIGKILL).
func (g *procGroup) kill() { killGroup(g.pgid, syscall.SIGKILL) }

// release kills what is left of the group once its leader exited:
// stragglers (codex leaves some).
func (g *procGroup) release() { g.kill() }

// killGroup sends sig to process group pgid; a group that is gone is not
// an error.
func killGroup(pgid int, sig syscall.Signal) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, sig)
	}
}
