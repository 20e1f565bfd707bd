//go:build windows

package agents

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// setProcessGroup starts cmd in a new console process group, so a
// CTRL_BREAK reaches the agent's group and not Lazuli. When Lazuli has no
// console (the window build), the agent gets a hidden one: without
// CREATE_NO_WINDOW each run would flash up a console window.
func setProcessGroup(cmd *exec.Cmd) {
	flags := uint32(windows.CREATE_NEW_PROCESS_GROUP)
	if !hasConsole() {
		flags |= windows.CREATE_NO_WINDOW
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: flags}
}

var procGetConsoleWindow = windows.NewLazySystemDLL("kernel32.dll").NewProc("GetConsoleWindow")

// hasConsole reports whether Lazuli is attached to a console.
func hasConsole() bool {
	h, _, _ := procGetConsoleWindow.Call()
	return h != 0
}

// procGroup is a started agent and everything it starts: a job object
// that kills its processes when its last handle closes, so a Lazuli that
// dies however it dies takes its agents with it (what the parent-death
// signal does on Linux). Windows has no SIGTERM: interrupt sends
// CTRL_BREAK, which ends a console program such as node, and kill
// terminates the job.
type procGroup struct {
	pid uint32
	mu  sync.Mutex
	job windows.Handle // 0 once released
}

// startGroup starts cmd, prepared by setProcessGroup, suspended; puts it
// in a new job object and only then lets it run, so nothing it starts can
// escape the job.
func startGroup(cmd *exec.Cmd) (*procGroup, error) {
	job, err := newKillOnCloseJob()
	if err != nil {
		return nil, err
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_SUSPENDED
	if err := cmd.Start(); err != nil {
		windows.CloseHandle(job)
		return nil, err
	}
	g := &procGroup{pid: uint32(cmd.Process.Pid), job: job}
	if err := g.assignAndResume(); err != nil {
		g.release()
		_ = cmd.Process.Kill() // not in the job: kill it alone
		_ = cmd.Wait()
		return nil, err
	}
	return g, nil
}

// newKillOnCloseJob creates a job object whose processes die when its
// last handle is closed. The handle is not inherited by the agent.
func newKillOnCloseJob() (windows.Handle, error) {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return 0, fmt.Errorf("create job object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{
			LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
		},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return 0, fmt.Errorf("set job object limits: %w", err)
	}
	return job, nil
}

// assignAndResume puts the suspended process in g's job and resumes its
// threads.
func (g *procGroup) assignAndResume() error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, g.pid)
	if err != nil {
		return fmt.Errorf("open process %d: %w", g.pid, err)
	}
	defer windows.CloseHandle(h)
	if err := windows.AssignProcessToJobObject(g.job, h); err != nil {
		return fmt.Errorf("assign process %d to its job: %w", g.pid, err)
	}
	return resumeThreads(g.pid)
}

// resumeThreads resumes every thread of process pid (a process started
// suspended has one).
func resumeThreads(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return fmt.Errorf("list threads: %w", err)
	}
	defer windows.CloseHandle(snap)
	te := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &te); err == nil; err = windows.Thread32Next(snap, &te) {
		if te.OwnerProcessID != pid {
			continue
		}
		th, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, te.ThreadID)
		if err != nil {
			return fmt.Errorf("open thread %d: %w", te.ThreadID, err)
		}
		_, err = windows.ResumeThread(th)
		windows.CloseHandle(th)
		if err != nil {
			return fmt.Errorf("resume thread %d: %w", te.ThreadID, err)
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return fmt.Errorf("list threads: %w", err)
	}
	if resumed == 0 {
		return fmt.Errorf("resume process %d: no thread found", pid)
	}
	return nil
}

// interrupt asks the agent to end with a CTRL_BREAK to its console
// process group; where that cannot be sent (Lazuli has no console to
// share with it), the job is terminated at once.
func (g *procGroup) interrupt() {
	if hasConsole() && windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, g.pid) == nil {
		return
	}
	g.kill()
}

// kill terminates every process of the job.
func (g *procGroup) kill() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		_ = windows.TerminateJobObject(g.job, 1) // a job already empty is not an error here
	}
}

// release kills what is left of the job once the agent exited and closes
// the job's handle.
func (g *procGroup) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.job != 0 {
		_ = windows.TerminateJobObject(g.job, 1)
		windows.CloseHandle(g.job)
		g.job = 0
	}
}
