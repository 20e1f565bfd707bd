package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/internal/fakemodel"
)

// lazuliBin is the binary TestMain builds.
var lazuliBin string

// testTimeout bounds one test; a hang fails it instead of the whole run.
const testTimeout = 3 * time.Minute

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "lazuli-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	lazuliBin = filepath.Join(dir, "lazuli")
	goCmd := "go"
	if p := filepath.Join(os.Getenv("GOROOT"), "bin", "go"); os.Getenv("GOROOT") != "" {
		goCmd = p
	}
	build := exec.Command(goCmd, "build", "-buildvcs=false", "-o", lazuliBin, "github.com/lazuli-app/lazuli")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: build lazuli:", err)
		return 1
	}
	return m.Run()
}

// backend is one agent CLI under test.
type backend struct {
	name string // claude or codex
	path string
}

// forEachBackend runs f as a subtest per CLI found; a missing CLI skips
// its subtest.
func forEachBackend(t *testing.T, f func(t *testing.T, b backend)) {
	for _, name := range []string{"claude", "codex"} {
		t.Run(name, func(t *testing.T) {
			p := fakemodel.NeedCLI(t, name)
			f(t, backend{name, p})
		})
	}
}

// harness is one test's world: a fake model, a HOME, a worktree with its
// store, and the environment lazuli runs with.
type harness struct {
	t      *testing.T
	ctx    context.Context
	srv    *fakemodel.Server
	home   string
	work   string // the worktree: the agent's working dir, holds .azureal/
	store  string // work/.azureal/sessions.azs
	env    []string
	marker string // LAZULI_E2E_RUN=marker tags every process of this test
}

func newHarness(t *testing.T, script fakemodel.Script, routes ...fakemodel.Route) *harness {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	srv := fakemodel.New(script, routes...)
	t.Cleanup(srv.Close)
	root := t.TempDir()
	h := &harness{t: t, ctx: ctx, srv: srv, home: filepath.Join(root, "home"), work: filepath.Join(root, "work")}
	h.store = filepath.Join(h.work, ".azureal", "sessions.azs")
	if err := os.MkdirAll(h.work, 0o755); err != nil {
		t.Fatal(err)
	}
	env, err := srv.Home(h.home)
	if err != nil {
		t.Fatal(err)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	h.marker = hex.EncodeToString(b[:])
	h.env = append(env, "LAZULI_E2E_RUN="+h.marker)
	for _, name := range []string{"claude", "codex"} {
		if p := fakemodel.FindCLI(name); p != "" {
			h.env = append(h.env, "LAZULI_"+strings.ToUpper(name)+"="+p)
		}
	}
	t.Cleanup(h.reap)
	return h
}

// setEnv overrides a variable of lazuli's environment.
func (h *harness) setEnv(kv ...string) { h.env = append(h.env, kv...) }

// result is one lazuli run.
type result struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("lazuli %s\nexit %d\nstdout:\n%.4000s\nstderr:\n%.4000s", shortArgs(r.args), r.code, r.stdout, r.stderr)
}

func shortArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 80 {
			a = a[:80] + "…"
		}
		out[i] = strconv.Quote(a)
	}
	return strings.Join(out, " ")
}

// command returns lazuli with args, run in the worktree with h.env.
func (h *harness) command(stdin string, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	cmd := exec.CommandContext(h.ctx, lazuliBin, args...)
	cmd.Dir, cmd.Env = h.work, h.env
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 15 * time.Second
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// wait waits for a started lazuli and returns its result.
func (h *harness) wait(cmd *exec.Cmd, stdout, stderr *bytes.Buffer) result {
	h.t.Helper()
	err := cmd.Wait()
	r := result{args: cmd.Args[1:], stdout: stdout.String(), stderr: stderr.String(), code: -1}
	if cmd.ProcessState != nil {
		r.code = cmd.ProcessState.ExitCode()
	}
	if h.ctx.Err() != nil {
		h.t.Fatalf("timed out after %v:\n%s", testTimeout, r)
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) {
		h.t.Fatalf("%v\n%s", err, r)
	}
	return r
}

// lazuli runs lazuli to the end.
func (h *harness) lazuli(stdin string, args ...string) result {
	h.t.Helper()
	cmd, stdout, stderr := h.command(stdin, args...)
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	return h.wait(cmd, stdout, stderr)
}

// ok runs lazuli and fails the test unless it exits 0.
func (h *harness) ok(args ...string) result {
	h.t.Helper()
	r := h.lazuli("", args...)
	if r.code != 0 {
		h.t.Fatalf("want exit 0:\n%s", r)
	}
	return r
}

// runResult is the --json output of `lazuli run`.
type runResult struct {
	Store         string  `json:"store"`
	Session       int64   `json:"session"`
	Backend       string  `json:"backend"`
	Model         string  `json:"model"`
	EventsSaved   int     `json:"events_saved"`
	Completed     *bool   `json:"completed"`
	DurationMS    uint64  `json:"duration_ms"`
	CostUSD       float64 `json:"cost_usd"`
	ExitCode      int     `json:"exit_code"`
	Stopped       bool    `json:"stopped"`
	Compacted     bool    `json:"compacted"`
	AutoContinued bool    `json:"auto_continued"`
	Error         string  `json:"error"`
}

// decodeRun decodes the JSON object `lazuli run --json` prints last.
func decodeRun(t *testing.T, r result) runResult {
	t.Helper()
	out := strings.TrimSpace(r.stdout)
	if i := strings.LastIndex(out, "\n{"); i >= 0 {
		out = out[i+1:]
	}
	var rr runResult
	if err := json.Unmarshal([]byte(out), &rr); err != nil {
		t.Fatalf("no run JSON on stdout (%v):\n%s", err, r)
	}
	return rr
}

// run runs `lazuli run --json` with the store, backend and args given,
// and decodes its result.
func (h *harness) run(b backend, args ...string) (runResult, result) {
	h.t.Helper()
	r := h.lazuli("", append([]string{"run", "--json", "--store", h.store, "--backend", b.name}, args...)...)
	return decodeRun(h.t, r), r
}

// event is one element of `lazuli show --json`.
type event struct {
	Seq     int64                      `json:"seq"`
	Kind    string                     `json:"kind"`
	CharLen int64                      `json:"char_len"`
	Event   map[string]json.RawMessage `json:"event"`
}

// field returns a string field of the event's payload.
func (e event) field(name string) string {
	var payload map[string]any
	_ = json.Unmarshal(e.Event[e.Kind], &payload) // a unit event has no payload
	switch v := payload[name].(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		b, _ := json.Marshal(v)
		return string(b)
	}
}

func (e event) String() string {
	return fmt.Sprintf("#%d %s %.200s", e.Seq, e.Kind, string(e.Event[e.Kind]))
}

// show returns a session's events.
func (h *harness) show(session int64) []event {
	h.t.Helper()
	r := h.ok("show", "--json", "--store", h.store, strconv.FormatInt(session, 10))
	var evs []event
	if err := json.Unmarshal([]byte(r.stdout), &evs); err != nil {
		h.t.Fatalf("decode show: %v\n%s", err, r)
	}
	return evs
}

// kinds returns the events of the given kind.
func kinds(evs []event, kind string) []event {
	var out []event
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

func dumpEvents(evs []event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(e.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// session is one element of `lazuli ls --json`.
type session struct {
	ID                   int64    `json:"id"`
	Completed            *bool    `json:"completed"`
	LastClaudeUUID       string   `json:"last_claude_uuid"`
	EventCount           int64    `json:"event_count"`
	MessageCount         int64    `json:"message_count"`
	CharsSinceCompaction int64    `json:"chars_since_compaction"`
	CostUSD              *float64 `json:"cost_usd"`
}

func (h *harness) sessions() []session {
	h.t.Helper()
	r := h.ok("ls", "--json", "--store", h.store)
	var ss []session
	if err := json.Unmarshal([]byte(r.stdout), &ss); err != nil {
		h.t.Fatalf("decode ls: %v\n%s", err, r)
	}
	return ss
}

// check asserts that `lazuli check` finds the store healthy.
func (h *harness) check() {
	h.t.Helper()
	if r := h.lazuli("", "check", "--store", h.store); r.code != 0 {
		h.t.Errorf("lazuli check failed:\n%s", r)
	}
}

// contextPrompt returns what `lazuli context` renders for a prompt.
func (h *harness) contextPrompt(session int64, prompt string) string {
	h.t.Helper()
	return h.ok("context", "--store", h.store, strconv.FormatInt(session, 10), prompt).stdout
}

// processes returns the pids of live processes tagged with h.marker.
func (h *harness) processes() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	tag := []byte("LAZULI_E2E_RUN=" + h.marker + "\x00")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, tag) {
			continue
		}
		if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil &&
			bytes.Contains(stat, []byte(") Z ")) {
			continue // a zombie: already dead
		}
		pids = append(pids, pid)
	}
	return pids
}

// leftovers waits for this test's processes to end and returns those still
// alive after 30 seconds (they normally end at once; the margin is for a
// busy machine).
func (h *harness) leftovers() []int {
	deadline := time.Now().Add(30 * time.Second)
	for {
		pids := h.processes()
		if len(pids) == 0 || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// reap fails the test for processes the test's lazuli runs left behind,
// and kills them.
func (h *harness) reap() {
	pids := h.leftovers()
	for _, pid := range pids {
		cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		h.t.Errorf("process %d left running: %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
}

// checkContextSent asserts that the last request to the model was routed
// on the context prompt (route 0: its first user text holds what the
// route looks for) and holds want, the prompt lazuli context renders.
func (h *harness) checkContextSent(want, what string) {
	h.t.Helper()
	reqs := h.srv.Model()
	last := reqs[len(reqs)-1]
	if last.Route != 0 {
		h.t.Fatalf("%s: %q", what, fakemodel.FirstUserText(last))
	}
	if got := fakemodel.UserText(last); !strings.Contains(got, want) {
		h.t.Errorf("the agent did not get the context prompt lazuli context renders\n got: %q\nwant: %q", got, want)
	}
}
