//go:build !unix

package fakemodel

import "os/exec"

// inOwnGroup leaves cmd as it is: the real CLIs are driven on Unix only
// (their fake-model harness is a Unix one).
func inOwnGroup(*exec.Cmd) {}

// killOwnGroup kills cmd's process, if it still runs.
func killOwnGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
