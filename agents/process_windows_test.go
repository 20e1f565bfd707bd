//go:build windows

package agents

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"
)

// treeRoleEnv makes TestHelperProcessTree a member of a process tree:
// "child" starts a "grandchild" and both write their pid and wait.
const treeRoleEnv = "LAZULI_TEST_TREE_ROLE"

// TestHelperProcessTree is not a test: it is the agent (and the process
// the agent starts) of the job object tests, run as this test binary.
func TestHelperProcessTree(t *testing.T) {
	role, dir := os.Getenv(treeRoleEnv), os.Getenv("LAZULI_TEST_TREE_DIR")
	if role == "" {
		t.Skip("a helper process of TestStop…Windows")
	}
	if role == "child" {
		gc := exec.Command(os.Args[0], "-test.run=^TestHelperProcessTree$")
		gc.Env = append(os.Environ(), treeRoleEnv+"=grandchild")
		if err := gc.Start(); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, role), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Hour) // until the job ends it
}

// startTree starts the helper tree in its job (startGroup) and returns
// the group and the pids of the child and the grandchild.
func startTree(t *testing.T) (*procGroup, []uint32) {
	// Not t.TempDir: Wine 8 cannot run Go 1.26's os.RemoveAll ("Invalid
	// function"), which TempDir's cleanup calls.
	dir, err := os.MkdirTemp("", "lazuli-tree-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcessTree$")
	cmd.Env = append(os.Environ(), treeRoleEnv+"=child", "LAZULI_TEST_TREE_DIR="+dir)
	setProcessGroup(cmd)
	g, err := startGroup(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		g.release()
		_ = cmd.Process.Kill() // when the job failed to: a failed test must not hang in Wait
		_ = cmd.Wait()         // ended by the job: its exit status says so
		for _, f := range []string{"child", "grandchild", ""} {
			_ = os.Remove(filepath.Join(dir, f)) // a temp folder; nothing to report
		}
	})
	var pids []uint32
	for _, role := range []string{"child", "grandchild"} {
		for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) { // a hang guard
			b, err := os.ReadFile(filepath.Join(dir, role))
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil {
				pids = append(pids, uint32(pid))
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the %s never wrote its pid", role)
			}
		}
	}
	return g, pids
}

// waitGone waits until process pid has ended (a hang guard of two
// minutes, far beyond what ending takes).
func waitGone(t *testing.T, pid uint32, what string) {
	t.Helper()
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, pid)
	if err != nil {
		return // gone already
	}
	defer windows.CloseHandle(h)
	if ev, err := windows.WaitForSingleObject(h, 120_000); err != nil || ev != windows.WAIT_OBJECT_0 {
		t.Errorf("the %s (pid %d) still runs after the job was ended (%d, %v)", what, pid, ev, err)
	}
}

// TestStopEndsTreeWindows: Stop's kill terminates the agent's whole job:
// the agent and the process it started, which Windows would otherwise
// leave running (it has no process groups to signal).
func TestStopEndsTreeWindows(t *testing.T) {
	g, pids := startTree(t)
	g.interrupt()
	g.kill()
	waitGone(t, pids[0], "agent")
	waitGone(t, pids[1], "process the agent started")
}

// TestReleaseEndsTreeWindows: closing the job's last handle ends what is
// left in it (JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE): the same happens when
// Lazuli dies, however it dies.
func TestReleaseEndsTreeWindows(t *testing.T) {
	g, pids := startTree(t)
	g.release()
	waitGone(t, pids[0], "agent")
	waitGone(t, pids[1], "process the agent started")
}
