package agents

import "syscall"

// parentDeathSignal asks the kernel to send the agent SIGTERM when Lazuli
// dies (prctl PR_SET_PDEATHSIG), however it dies: without it, an agent
// whose Lazuli was killed with SIGKILL runs on until its next write to the
// closed output pipe. SIGTERM rather than SIGKILL, because only the agent
// itself gets the signal, not its process group: codex's launcher forwards
// SIGTERM to the native codex it starts (a SIGKILL would orphan that one),
// and claude ends its tools on it. The signal is tied to the OS thread that
// started the agent; Go keeps that thread unless a goroutine locked to it
// exits, which the agents package never does.
func parentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }
