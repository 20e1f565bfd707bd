package clicapture

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Run is the outcome of one CLI run.
type Run struct {
	Args   []string
	Stdout []byte
	Stderr []byte
	Code   int
}

// RunCLI runs path with args in dir with exactly env, in its own process
// group, and kills what is left of the group when it exits. It fails only
// when the process could not be run or did not end within timeout.
func RunCLI(ctx context.Context, path string, args, env []string, dir string, timeout time.Duration) (Run, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env, cmd.Dir = env, dir
	cmd.Stdin = strings.NewReader("")
	inOwnGroup(cmd)
	cmd.WaitDelay = 10 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		killOwnGroup(cmd) // stragglers in its group; gone already is fine
	}
	r := Run{Args: args, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		return r, fmt.Errorf("run %s: %w", filepath.Base(path), err)
	}
	if ctx.Err() != nil {
		return r, fmt.Errorf("run %s: timed out after %v\nstderr: %s", filepath.Base(path), timeout, stderr.Bytes())
	}
	r.Code = cmd.ProcessState.ExitCode()
	return r, nil
}

// GitRepo makes dir a git repository with one commit, as a project is.
func GitRepo(dir string, env []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# demo\n\nA demo project.\n"), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "."},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w: %s", args[0], err, out)
		}
	}
	return nil
}
