package agents

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/codec"
)

// ScratchRun is one prompt run on an agent CLI that only writes text: a
// compaction summary, a chronicle report.
type ScratchRun struct {
	Config  Config
	Backend Backend
	Model   string // "" lets the CLI choose
	Prompt  string
	Env     []string      // the whole environment; nil means os.Environ()
	Timeout time.Duration // 0 means 10 minutes
	// Folder names the scratch folder: "lazuli-<Folder>-…" in the temporary
	// folder ("scratch" when empty).
	Folder string
}

// Installed reports whether b's executable can be found, without running
// it.
func (c Config) Installed(b Backend) bool {
	_, err := resolveExecutable(c.Executable(b), b)
	return err == nil
}

// RunScratch runs r's prompt in a new scratch folder, without the flags
// that let the agent act unasked (spec §7.4), and returns the text of its
// answer. It never writes to a store; the folder is removed afterwards.
func RunScratch(ctx context.Context, r ScratchRun) (string, error) {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	name := r.Folder
	if name == "" {
		name = "scratch"
	}
	dir, err := os.MkdirTemp("", "lazuli-"+name+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	inv := Invocation{Backend: r.Backend, Command: r.Config.Executable(r.Backend), Model: r.Model,
		Dir: dir, Prompt: r.Prompt, Env: r.Env, Sandboxed: true}
	parser := newStreamParser(r.Backend, r.Model)
	proc, err := startProcess(inv, DefaultGrace)
	if err != nil {
		return "", err
	}
	var texts []string
	var failed *codec.Event
	collect := func(events []codec.Event) {
		for _, e := range events {
			switch {
			case e.Kind == codec.KindAssistantText && !strings.HasPrefix(e.Text, "Error: "):
				texts = append(texts, e.Text)
			case e.Kind == codec.KindComplete && !e.Success:
				failed = &e
			}
		}
	}
	done := ctx.Done()
	for lines := proc.lines; lines != nil; {
		select {
		case l, ok := <-lines:
			if !ok {
				lines = nil
			} else if !l.stderr && !l.tooLong {
				collect(parser.Feed(l.data))
			}
		case <-done:
			done = nil
			proc.stop()
		}
	}
	collect(parser.Finish())
	code, waitErr := proc.result()
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("%s did not finish: %w", r.Backend, ctx.Err())
	case waitErr != nil:
		return "", waitErr
	case failed != nil:
		return "", fmt.Errorf("%w: %s reported an error%s", ErrAgentFailed, r.Backend, stderrSuffix(proc.stderrTail()))
	case code != 0 && len(texts) == 0:
		return "", fmt.Errorf("%w: %s exited with code %d%s", ErrAgentFailed, r.Backend, code, stderrSuffix(proc.stderrTail()))
	}
	return strings.TrimSpace(strings.Join(texts, "\n\n")), nil
}

// ScratchRunner runs prompts with RunScratch, the CLI's own model: the
// runner of the chronicle reports (chronicle.Runner).
type ScratchRunner struct {
	Config  Config
	Env     []string
	Timeout time.Duration
}

// Available reports whether the backend's CLI is installed.
func (r ScratchRunner) Available(backend string) bool {
	b, err := ParseBackend(backend)
	return err == nil && r.Config.Installed(b)
}

// Run runs prompt on the backend's CLI in a scratch folder.
func (r ScratchRunner) Run(ctx context.Context, backend, prompt string) (string, error) {
	b, err := ParseBackend(backend)
	if err != nil {
		return "", err
	}
	return RunScratch(ctx, ScratchRun{Config: r.Config, Backend: b, Prompt: prompt, Env: r.Env, Timeout: r.Timeout,
		Folder: "chronicle"})
}
