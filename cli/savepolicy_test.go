package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/fakeclaude"
	"github.com/lazuli-app/lazuli/store"
)

// runHelperEnv makes the test binary act as `lazuli` (runHelperMain): its
// value is the arguments, one a line.
const runHelperEnv = "LAZULI_CLI_TEST_RUN"

// runHelperMain runs the command line in $LAZULI_CLI_TEST_RUN as the
// lazuli binary would, in the current folder.
func runHelperMain() int {
	dir, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 100
	}
	args := strings.Split(os.Getenv(runHelperEnv), "\n")
	return Run(context.Background(), &Env{Stdout: os.Stdout, Stderr: os.Stderr, Dir: dir}, args)
}

// Claude stream-json lines of the killed turn: a complete step (a reply,
// then a tool call and its result), a step in flight (a tool call without
// its result), and last the CLI's init line, whose session id the run
// writes to last_claude_uuid as soon as it reads the line: once the store
// shows it, the run has read every line before it.
var killTurn = []string{
	`{"type":"assistant","message":{"id":"msg_1","content":[{"type":"text","text":"I will list the files."}]},"uuid":"u1"}`,
	`{"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"uuid":"u2"}`,
	`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.go"}]},"uuid":"u3"}`,
	`{"type":"assistant","message":{"id":"msg_2","content":[{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"go test"}}]},"uuid":"u4"}`,
	`{"type":"system","subtype":"init","session_id":"cli-killed","cwd":"/w","model":"claude-opus-5-5"}`,
}

// waitFor polls the store at path until cond holds; limit only turns a
// hang into a failure.
func waitFor(t *testing.T, path string, what string, cond func(*store.Store) bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, err := store.OpenReadOnly(context.Background(), path)
		if err == nil {
			ok := cond(st)
			st.Close()
			if ok {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the store never showed %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRunKilledMidTurnLosesWhatItsSavePolicySays: `lazuli run` (the test
// binary as lazuli) is killed with SIGKILL while its agent has printed a
// complete step and one in flight. chunk keeps everything its clock wrote
// (here all of it: the kill waits until the store shows the last line),
// step keeps the complete step, turn nothing of the turn, its prompt
// included; the store passes check every time and the session is whole.
func TestRunKilledMidTurnLosesWhatItsSavePolicySays(t *testing.T) {
	const step = "UserMessage AssistantText ToolCall ToolResult"
	for _, tc := range []struct {
		policy string
		wait   string // what the store shows before the kill
		want   string // the session's kinds after it
	}{
		{"chunk", "every line saved", step + " ToolCall Init"},
		{"step", "the init line read", step},
		{"turn", "the init line read", ""},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ".azureal", "sessions.azs")
			id := fakeclaude.StoreWithSession(t, path)
			claude := fakeclaude.Write(t, dir, fakeclaude.Turn{Lines: killTurn})
			cmd := exec.Command(os.Args[0])
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "LAZULI_CLAUDE="+claude, runHelperEnv+"="+strings.Join(
				[]string{"run", "--store", path, "--session", strconv.FormatInt(id, 10), "--save-on", tc.policy, "list the files"}, "\n"))
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			waitFor(t, path, tc.wait, func(st *store.Store) bool {
				if tc.policy == "chunk" {
					evs, err := st.Events().All(context.Background(), id)
					return err == nil && len(evs) > 0 && evs[len(evs)-1].Kind == codec.KindInit
				}
				got, err := st.Sessions().Get(context.Background(), id)
				return err == nil && got.LastClaudeUUID == "cli-killed"
			})
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait() // killed: its error says so
			st, err := store.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			rep, err := st.Check(context.Background())
			if err != nil || !rep.OK() {
				t.Fatalf("check after the kill: %+v, %v", rep, err)
			}
			if got := fakeclaude.Kinds(t, st, id); got != tc.want {
				t.Fatalf("after the kill the session holds %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRunSaveOnFlags: --save-on takes chunk, step or turn; the buffer
// flags tune chunk only; anything else is a usage error before any agent
// runs.
func TestRunSaveOnFlags(t *testing.T) {
	t.Setenv("LAZULI_CLAUDE", "/nonexistent/claude")
	dir := t.TempDir()
	for _, args := range [][]string{{"--save-on", "message"}, {"--save-on", "step", "--save-buffer-ms", "10"},
		{"--save-on", "turn", "--save-buffer-size", "5"}, {"--save-buffer-size", "-1"}} {
		code, _, errOut := run(t, dir, append(append([]string{"run"}, args...), "hi")...)
		if code != ExitUsage || strings.Contains(errOut, "/nonexistent/claude") {
			t.Errorf("run %q: exit %d, stderr %q; want a usage error", args, code, errOut)
		}
	}
	for _, args := range [][]string{{"--save-on", "step"}, {"--save-on", "turn"}, {"--save-buffer-ms", "10", "--save-buffer-size", "64"}} {
		code, _, errOut := run(t, dir, append(append([]string{"run"}, args...), "hi")...)
		if code != ExitError || !strings.Contains(errOut, "/nonexistent/claude") {
			t.Errorf("run %q: exit %d, stderr %q; want the flags accepted (and the missing CLI reported)", args, code, errOut)
		}
	}
}
