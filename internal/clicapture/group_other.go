//go:build !unix

package clicapture

import "os/exec"

// inOwnGroup leaves cmd as it is: the captures are made on Unix only.
func inOwnGroup(*exec.Cmd) {}

// killOwnGroup kills cmd's process, if it still runs.
func killOwnGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
