package agents

import (
	"os/exec"
	"syscall"
	"testing"
)

// TestAgentGetsParentDeathSignal: every agent (and Detect's --version run)
// starts in its own process group with a parent-death signal, so a
// SIGKILLed Lazuli does not leave it running (e2e.TestKillRun drives it).
func TestAgentGetsParentDeathSignal(t *testing.T) {
	cmd := exec.Command("true")
	setProcessGroup(cmd)
	if a := cmd.SysProcAttr; a == nil || !a.Setpgid || a.Pdeathsig != syscall.SIGTERM {
		t.Fatalf("SysProcAttr = %+v", cmd.SysProcAttr)
	}
}
