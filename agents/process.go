package agents

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
)

// MaxArgPrompt is the longest prompt passed to claude as its -p argument.
// Linux limits one argv string to 128 KiB (MAX_ARG_STRLEN); longer prompts,
// such as a session with a 400,000-character injected context, go to
// claude on stdin, which `claude -p` reads when it gets no prompt argument.
const MaxArgPrompt = 100 << 10

// Invocation is one run of an agent CLI.
type Invocation struct {
	Backend Backend
	Command string // executable: a name looked up on PATH, or a path
	Model   string // --model; "" lets the CLI choose
	Dir     string // working directory: the worktree
	Prompt  string
	Env     []string // the whole environment; nil means os.Environ()
	// Sandboxed runs without the flags that let the agent act without
	// asking (used for compaction agents, which only write text).
	Sandboxed bool
	// Permissions are the mode and rules the agent runs with; the zero
	// value is bypass, AZUREAL's "Ignore".
	Permissions Policy
	// AsRoot runs claude where it refuses bypass: as root, outside a
	// sandbox the environment declares (see RootNotice).
	AsRoot bool
	// PromptTool, when set, answers claude's permission prompts.
	PromptTool *PromptTool
	// MCPServers are more MCP servers the agent gets (the project's
	// history); none for a sandboxed run.
	MCPServers []MCPServer
}

// Args returns the CLI arguments (after the executable) of inv's backend
// (its Descriptor's Args), and whether the prompt goes to stdin. The
// prompt never passes through a shell.
func (inv Invocation) Args() (args []string, promptOnStdin bool) {
	return inv.Backend.desc().Args(inv)
}

// policy is inv.Permissions with bypass for no mode.
func (inv Invocation) policy() Policy {
	p := inv.Permissions
	if p.Mode == "" {
		p.Mode = ModeBypass
	}
	return p
}

// insideGitWorkTree reports whether dir or one of its parents has a .git.
func insideGitWorkTree(dir string) bool {
	if dir == "" {
		dir = "."
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

// line is one line an agent printed.
type line struct {
	data    []byte
	stderr  bool
	tooLong bool
}

// process is a running agent CLI in its own process group (a job object
// on Windows).
type process struct {
	cmd   *exec.Cmd
	group *procGroup
	lines chan line // stdout and stderr lines; closed when both pipes end
	exit  chan struct{}
	grace time.Duration

	mu        sync.Mutex
	exited    bool
	waitErr   error
	stderrBuf tailBuffer
	stopOnce  sync.Once
}

// pipeDrainTimeout bounds how long the output pipes may stay open after
// the agent exited and its process group was killed (a grandchild that
// left the group can hold them).
const pipeDrainTimeout = 3 * time.Second

// startProcess starts inv. Output lines arrive on p.lines; the process's
// whole group is killed once it exits.
func startProcess(inv Invocation, grace time.Duration) (*process, error) {
	path, err := resolveExecutable(inv.Command, inv.Backend)
	if err != nil {
		return nil, err
	}
	args, stdinPrompt := inv.Args()
	cmd := exec.Command(path, args...)
	cmd.Dir = inv.Dir
	env, cleanup, err := inv.Environ()
	if err != nil {
		return nil, err
	}
	cmd.Env = env
	setProcessGroup(cmd)
	if stdinPrompt {
		cmd.Stdin = strings.NewReader(inv.Prompt)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		cleanup()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		cleanup()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	group, err := startGroup(cmd)
	if err != nil {
		for _, f := range []*os.File{outR, outW, errR, errW} {
			f.Close()
		}
		cleanup()
		return nil, fmt.Errorf("start %s: %w", inv.Command, err)
	}
	outW.Close()
	errW.Close()
	p := &process{cmd: cmd, group: group, lines: make(chan line, 256),
		exit: make(chan struct{}), grace: grace}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); p.read(outR, false) }()
	go func() { defer readers.Done(); p.read(errR, true) }()
	go func() {
		err := cmd.Wait()
		p.group.release() // stragglers (codex leaves some)
		cleanup()
		p.mu.Lock()
		p.exited, p.waitErr = true, err
		p.mu.Unlock()
		close(p.exit)
		done := make(chan struct{})
		go func() { readers.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(pipeDrainTimeout):
			outR.Close()
			errR.Close()
			<-done
		}
		close(p.lines)
	}()
	return p, nil
}

// read sends the lines of r to p.lines; stderr is also kept in a tail
// buffer for error messages.
func (p *process) read(r *os.File, stderr bool) {
	defer r.Close()
	br := bufio.NewReaderSize(r, 256<<10)
	_ = parse.EachLine(br, func(b []byte, tooLong bool) {
		if stderr {
			p.mu.Lock()
			p.stderrBuf.write(b)
			p.mu.Unlock()
		}
		if !tooLong && len(strings.TrimSpace(string(b))) == 0 {
			return
		}
		p.lines <- line{data: append([]byte(nil), b...), stderr: stderr, tooLong: tooLong}
	})
}

// stop asks the process group to end (SIGTERM; CTRL_BREAK on Windows)
// and kills it after the grace period.
func (p *process) stop() {
	p.stopOnce.Do(func() {
		p.group.interrupt()
		go func() {
			select {
			case <-p.exit:
			case <-time.After(p.grace):
				p.group.kill()
			}
		}()
	})
}

// result returns the exit code (-1 when killed by a signal) and the wait
// error; call it after p.exit is closed.
func (p *process) result() (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	code := -1
	if p.cmd.ProcessState != nil {
		code = p.cmd.ProcessState.ExitCode()
	}
	var exitErr *exec.ExitError
	if errors.As(p.waitErr, &exitErr) {
		return code, nil
	}
	return code, p.waitErr
}

// stderrTail returns the last lines the process wrote to stderr.
func (p *process) stderrTail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderrBuf.String()
}

// tailBuffer keeps the last lines written to it, at most 4 KiB.
type tailBuffer struct{ b []byte }

const tailMax = 4 << 10

func (t *tailBuffer) write(line []byte) {
	if len(line) > tailMax {
		line = line[len(line)-tailMax:]
	}
	t.b = append(t.b, line...)
	t.b = append(t.b, '\n')
	if len(t.b) > tailMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailMax:]...)
	}
}

func (t *tailBuffer) String() string {
	return strings.TrimSpace(strings.ToValidUTF8(string(t.b), "\uFFFD"))
}
