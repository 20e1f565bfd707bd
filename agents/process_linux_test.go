package agents

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestDetectLeavesNothingRunning: a CLI whose launcher starts a child (as
// an npm shim starts the CLI's own binary), cut off by Detect's context
// ending (Lazuli closing), leaves no process behind, the child included.
func TestDetectLeavesNothingRunning(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "child.pid")
	cli := filepath.Join(dir, "slowcli")
	script := "#!/bin/sh\nsleep 60 &\necho $! > " + pidFile + ".tmp && mv " + pidFile + ".tmp " + pidFile + "\nwait\n"
	if err := os.WriteFile(cli, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pid := make(chan int, 1)
	go func() { // cancel once the child runs, however long the start took
		for {
			if b, err := os.ReadFile(pidFile); err == nil {
				n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				pid <- n
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	cfg := Config{Paths: map[Backend]string{Claude: cli}, Getenv: func(string) string { return "" }}
	if info := Detect(ctx, cfg, Claude); info.Err == nil {
		t.Fatalf("Detect of a CLI cut off: %+v", info)
	}
	child := <-pid
	// The child is killed, then reaped by init: give it time to go.
	deadline := time.Now().Add(30 * time.Second)
	for child <= 0 || syscall.Kill(child, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the launcher's child %d still runs after Detect returned", child)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
