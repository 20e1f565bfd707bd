//go:build windows

package permprompt

import (
	"os"
	"os/exec"
	"testing"
)

// TestProcessAliveWindows: this process runs; one that exited does not,
// so the folder it left is stale (run under Wine by internal/winetest).
func TestProcessAliveWindows(t *testing.T) {
	if !processAlive(os.Getpid()) {
		t.Error("processAlive(this process) = false")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if processAlive(cmd.Process.Pid) {
		t.Errorf("processAlive(%d), a process that exited, = true", cmd.Process.Pid)
	}
}
