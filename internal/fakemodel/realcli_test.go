package fakemodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cliRun is the outcome of one CLI run.
type cliRun struct {
	stdout, stderr string
	code           int
	lines          []map[string]any // stdout's JSON lines
}

// setup starts a server and returns it, a working dir and the CLI
// environment (HOME in a temp dir, codex config written).
func setup(t *testing.T, script Script, routes ...Route) (*Server, string, []string) {
	t.Helper()
	s := New(script, routes...)
	t.Cleanup(s.Close)
	root := t.TempDir()
	dir := filepath.Join(root, "work")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	env, err := s.Home(filepath.Join(root, "home"))
	if err != nil {
		t.Fatal(err)
	}
	return s, dir, env
}

// runCLI runs a CLI in its own process group with an explicit
// environment, and kills whatever is left of the group afterwards.
func runCLI(t *testing.T, path string, args []string, env []string, dir string, stdin string) cliRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env, cmd.Dir = env, dir
	inOwnGroup(cmd)
	cmd.WaitDelay = 20 * time.Second
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		killOwnGroup(cmd) // stragglers (codex leaves some)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		t.Fatalf("run %s: %v\nstderr: %s", filepath.Base(path), err, stderr.String())
	}
	if ctx.Err() != nil {
		t.Fatalf("%s timed out\nstdout: %s\nstderr: %s", filepath.Base(path), stdout.String(), stderr.String())
	}
	r := cliRun{stdout: stdout.String(), stderr: stderr.String(), code: cmd.ProcessState.ExitCode()}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			r.lines = append(r.lines, m)
		}
	}
	return r
}

// find returns the stdout lines whose keys have the given values
// ("item.type" looks inside "item").
func (r cliRun) find(kv ...string) []map[string]any {
	var out []map[string]any
	for _, l := range r.lines {
		ok := true
		for i := 0; i+1 < len(kv); i += 2 {
			if lookup(l, kv[i]) != kv[i+1] {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// lookup returns the value at a dotted path as a string ("" if absent).
func lookup(m map[string]any, path string) string {
	var v any = m
	for _, k := range strings.Split(path, ".") {
		o, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = o[k]
	}
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

func (r cliRun) dump() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

func claudeArgs(prompt ...string) []string {
	args := []string{"-p"}
	args = append(args, prompt...)
	return append(args, "--verbose", "--output-format", "stream-json", "--dangerously-skip-permissions")
}

var codexArgs = []string{"exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "--skip-git-repo-check", "-"}

func checkNoOutsideTraffic(t *testing.T, s *Server) {
	t.Helper()
	if hosts := s.Connects(); len(hosts) > 0 {
		t.Errorf("the CLI tried to reach outside hosts: %v", hosts)
	}
}

func TestRealClaude(t *testing.T) {
	claude := NeedCLI(t, "claude")
	t.Run("Text", func(t *testing.T) {
		s, dir, env := setup(t, Script{Text("Hello from the fake model.")})
		r := runCLI(t, claude, claudeArgs("Say hello."), env, dir, "")
		if r.code != 0 || len(r.find("type", "result", "subtype", "success", "is_error", "false", "result", "Hello from the fake model.")) != 1 {
			t.Fatalf("no successful result line\n%s", r.dump())
		}
		if len(r.find("type", "assistant")) != 1 || len(r.find("type", "system", "subtype", "init")) != 1 {
			t.Errorf("want one init and one assistant line\n%s", r.dump())
		}
		reqs := s.Model()
		if len(reqs) != 1 || LastUserText(reqs[0]) != "Say hello." {
			t.Errorf("requests: %d, last user text %q", len(reqs), LastUserText(reqs[0]))
		}
		checkNoOutsideTraffic(t, s)
	})
	t.Run("Tool", func(t *testing.T) {
		s, dir, env := setup(t, Script{
			Tools("Writing the file.", Call("Write", map[string]any{"file_path": "{{CWD}}/hello.txt", "content": "hi there\n"})),
			Text("Wrote hello.txt."),
		})
		r := runCLI(t, claude, claudeArgs("Write hello.txt."), env, dir, "")
		if r.code != 0 || len(r.find("type", "result", "subtype", "success", "result", "Wrote hello.txt.")) != 1 {
			t.Fatalf("no successful result line\n%s", r.dump())
		}
		if !strings.Contains(r.stdout, `"name":"Write"`) || !strings.Contains(r.stdout, `"tool_use_id":"toolu_fkm_0_0"`) {
			t.Errorf("stdout lacks the Write call or its result\n%s", r.dump())
		}
		b, err := os.ReadFile(filepath.Join(dir, "hello.txt"))
		if err != nil || string(b) != "hi there\n" {
			t.Errorf("hello.txt = %q, %v", b, err)
		}
		if reqs := s.Model(); len(reqs) != 2 || reqs[1].Step != 1 {
			t.Errorf("want 2 model requests, the second at step 1; got %d", len(reqs))
		}
		checkNoOutsideTraffic(t, s)
	})
}

func TestRealCodex(t *testing.T) {
	codex := NeedCLI(t, "codex")
	t.Run("Text", func(t *testing.T) {
		s, dir, env := setup(t, Script{Text("Hello from the fake model.")})
		r := runCLI(t, codex, codexArgs, env, dir, "Say hello.")
		if r.code != 0 || len(r.find("type", "item.completed", "item.type", "agent_message", "item.text", "Hello from the fake model.")) != 1 ||
			len(r.find("type", "turn.completed")) != 1 {
			t.Fatalf("no agent_message / turn.completed\n%s", r.dump())
		}
		reqs := s.Model()
		if len(reqs) != 1 || LastUserText(reqs[0]) != "Say hello." {
			t.Errorf("requests: %d, last user text %q", len(reqs), LastUserText(reqs[0]))
		}
		checkNoOutsideTraffic(t, s)
	})
	t.Run("Tool", func(t *testing.T) {
		s, dir, env := setup(t, Script{Tools("", Exec("echo hi")), Text("It printed hi.")})
		r := runCLI(t, codex, codexArgs, env, dir, "Run echo hi.")
		cmds := r.find("type", "item.completed", "item.type", "command_execution")
		if r.code != 0 || len(cmds) != 1 || lookup(cmds[0], "item.aggregated_output") != "hi\n" ||
			lookup(cmds[0], "item.exit_code") != "0" {
			t.Fatalf("no completed echo command\n%s", r.dump())
		}
		if len(r.find("type", "item.completed", "item.type", "agent_message", "item.text", "It printed hi.")) != 1 ||
			len(r.find("type", "turn.completed")) != 1 {
			t.Errorf("no final agent_message / turn.completed\n%s", r.dump())
		}
		if reqs := s.Model(); len(reqs) != 2 || reqs[1].Step != 1 {
			t.Errorf("want 2 model requests, the second at step 1; got %d", len(reqs))
		}
		checkNoOutsideTraffic(t, s)
	})
}
