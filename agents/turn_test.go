package agents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// Claude stream-json lines for the fake agent.
const (
	claudeInit    = `{"type":"system","subtype":"init","session_id":"cli-sess-1","cwd":"/w","model":"claude-opus-5-5"}`
	claudeText    = `{"type":"assistant","message":{"id":"msg_1","content":[{"type":"text","text":"I will list the files."}]},"uuid":"u1"}`
	claudeTool    = `{"type":"assistant","message":{"id":"msg_1","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls"}}]},"uuid":"u2"}`
	claudeToolOut = `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"a.go\nb.go"}]},"uuid":"u3"}`
	claudeDone    = `{"type":"assistant","message":{"id":"msg_2","content":[{"type":"text","text":"There are two files."}]},"uuid":"u4"}`
	claudeOK      = `{"type":"result","subtype":"success","session_id":"cli-sess-1","is_error":false,"duration_ms":1234,"total_cost_usd":0.25}`
	claudeAPIErr  = `{"type":"result","subtype":"success","session_id":"cli-sess-1","is_error":true,"duration_ms":50,"total_cost_usd":0}`

	codexStart = `{"type":"thread.started","thread_id":"thread-9"}`
	codexMsg   = `{"type":"item.completed","item":{"id":"item_1","type":"agent_message","text":"Done."}}`
	codexDone  = `{"type":"turn.completed","usage":{"input_tokens":1000,"output_tokens":100}}`
)

// newStore returns a fresh store with one session.
func newStore(t *testing.T) (*store.Store, int64) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, err := st.Sessions().Create(ctx, "main", "")
	if err != nil {
		t.Fatal(err)
	}
	return st, s.ID
}

// kinds lists the kinds of a session's stored events.
func kinds(t *testing.T, st *store.Store, id int64) []string {
	t.Helper()
	evs, err := st.Events().All(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var ks []string
	for _, e := range evs {
		ks = append(ks, string(e.Kind))
	}
	return ks
}

// checkStore fails the test when the store does not pass Check.
func checkStore(t *testing.T, st *store.Store) {
	t.Helper()
	rep, err := st.Check(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("store check failed: %+v", rep)
	}
}

func TestRunTurnClaudeStoresTurnAndTracksCLISession(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	cfg, env, rec := fakeCLI(t, claudeInit, "#sleep 300ms", claudeText, claudeTool, claudeToolOut, claudeDone, claudeOK)
	var uuidWhileRunning string
	opts := TurnOptions{Config: cfg, Backend: Claude, Model: "opus", Dir: t.TempDir(), Env: env,
		OnSaved: func(saved []codec.Event) {
			for _, e := range saved {
				if e.Kind == codec.KindInit {
					s, _ := st.Sessions().Get(ctx, id)
					uuidWhileRunning = s.LastClaudeUUID
				}
			}
		}}
	res, err := RunTurn(ctx, st, id, "list the files", opts)
	if err != nil {
		t.Fatal(err)
	}
	want := "UserMessage Init AssistantText ToolCall ToolResult AssistantText Complete"
	if got := strings.Join(kinds(t, st, id), " "); got != want {
		t.Fatalf("stored kinds\n got %s\nwant %s", got, want)
	}
	if !res.Success() || res.DurationMS != 1234 || res.CostUSD != 0.25 || res.EventsSaved != 7 {
		t.Fatalf("result = %+v", res)
	}
	if uuidWhileRunning != "cli-sess-1" || res.CLISessionID != "cli-sess-1" {
		t.Fatalf("last_claude_uuid while running = %q, result id %q", uuidWhileRunning, res.CLISessionID)
	}
	s, _ := st.Sessions().Get(ctx, id)
	if s.LastClaudeUUID != "" || s.Completed == nil || !*s.Completed || s.DurationMS == nil || *s.DurationMS != 1234 {
		t.Fatalf("session after the turn = %+v", s)
	}
	r := readRecord(t, rec)
	wantArgs := "--model opus -p --verbose --output-format stream-json --dangerously-skip-permissions -- list the files"
	if got := strings.Join(r.Args, " "); got != wantArgs {
		t.Fatalf("argv\n got %s\nwant %s", got, wantArgs)
	}
	if r.Dir != opts.Dir {
		t.Fatalf("agent ran in %s, want %s", r.Dir, opts.Dir)
	}
	checkStore(t, st)
}

func TestRunTurnSecondPromptIsContextInjectedAndStoredClean(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeInit, claudeText, claudeOK)
	if _, err := RunTurn(ctx, st, id, "first question", TurnOptions{Config: cfg, Env: env}); err != nil {
		t.Fatal(err)
	}
	cfg, env, rec := fakeCLI(t, claudeInit, claudeDone, claudeOK)
	if _, err := RunTurn(ctx, st, id, "second question", TurnOptions{Config: cfg, Env: env}); err != nil {
		t.Fatal(err)
	}
	r := readRecord(t, rec)
	sent := r.Args[len(r.Args)-1] // -- <prompt>
	if !strings.HasPrefix(sent, codec.ContextOpenTag) || !strings.HasSuffix(sent, "second question") ||
		!strings.Contains(sent, "first question") || !strings.Contains(sent, "I will list the files.") {
		t.Fatalf("second prompt is not context-injected:\n%s", sent)
	}
	evs, _ := st.Events().All(ctx, id)
	var users []string
	for _, e := range evs {
		if e.Kind == codec.KindUserMessage {
			users = append(users, e.Event.Content)
		}
	}
	if strings.Join(users, "|") != "first question|second question" {
		t.Fatalf("stored prompts = %q", users)
	}
}

func TestRunTurnLargePromptGoesToStdin(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	cfg, env, rec := fakeCLI(t, claudeInit, claudeText, claudeOK)
	big := strings.Repeat("line with ünïcode and <tags>\n", 300_000/29+1)
	if _, err := RunTurn(ctx, st, id, big, TurnOptions{Config: cfg, Env: env}); err != nil {
		t.Fatal(err)
	}
	r := readRecord(t, rec)
	if r.Stdin != big {
		t.Fatalf("stdin got %d bytes, want the %d-byte prompt", len(r.Stdin), len(big))
	}
	if strings.Join(r.Args, " ") != "-p --verbose --output-format stream-json --dangerously-skip-permissions" {
		t.Fatalf("argv = %q", r.Args)
	}
}

func TestRunTurnCodexPromptOnStdinAndWallClockDuration(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	cfg, env, rec := fakeCLI(t, codexStart, "#sleep 150ms", codexMsg, codexDone)
	res, err := RunTurn(ctx, st, id, "fix it", TurnOptions{Config: cfg, Model: "gpt-5.5", Env: env, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	r := readRecord(t, rec)
	if r.Stdin != "fix it" {
		t.Fatalf("codex stdin = %q", r.Stdin)
	}
	want := "exec --json --model gpt-5.5 --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check -"
	if got := strings.Join(r.Args, " "); got != want {
		t.Fatalf("argv\n got %s\nwant %s", got, want)
	}
	if res.Backend != Codex || !res.Success() || res.DurationMS < 150 || res.CLISessionID != "thread-9" {
		t.Fatalf("result = %+v", res)
	}
	if got := strings.Join(kinds(t, st, id), " "); got != "UserMessage Init AssistantText Complete" {
		t.Fatalf("stored kinds: %s", got)
	}
}

func TestRunTurnAPIErrorIsAFailure(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeInit, claudeAPIErr, "#exit 1")
	res, err := RunTurn(ctx, st, id, "hi", TurnOptions{Config: cfg, Env: env})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := st.Sessions().Get(ctx, id)
	if res.Success() || res.Completed == nil || s.Completed == nil || *s.Completed || res.ExitCode != 1 {
		t.Fatalf("result %+v, session completed %v", res, s.Completed)
	}
}

func TestRunTurnSurvivesGarbageOutput(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeInit, "not json at all", "#raw 7b22747970653a20ff fe7d", "{\"type\":", "#bigline 3000000",
		"#stderr something went wrong on stderr", claudeText, "#exit 2")
	res, err := RunTurn(ctx, st, id, "hi", TurnOptions{Config: cfg, Env: env})
	if !errors.Is(err, ErrNoResult) || !strings.Contains(err.Error(), "something went wrong on stderr") {
		t.Fatalf("err = %v", err)
	}
	if got := strings.Join(kinds(t, st, id), " "); got != "UserMessage Init AssistantText Complete" {
		t.Fatalf("stored kinds: %s", got)
	}
	if res.Completed == nil || *res.Completed || res.ExitCode != 2 {
		t.Fatalf("result = %+v", res)
	}
	checkStore(t, st)
}

func TestRunTurnStopKeepsPartialTurn(t *testing.T) {
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeInit, claudeText, claudeTool, "#ignore-term", "#hang")
	ctx, cancel := context.WithCancel(context.Background())
	opts := TurnOptions{Config: cfg, Env: env, Grace: 300 * time.Millisecond,
		OnSaved: func(saved []codec.Event) {
			for _, e := range saved {
				if e.Kind == codec.KindToolCall {
					cancel()
				}
			}
		}}
	start := time.Now()
	res, err := RunTurn(ctx, st, id, "long job", opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.Completed != nil {
		t.Fatalf("result = %+v", res)
	}
	// Only a hang fails this (the fake never exits by itself); how long the
	// stop takes on a busy machine does not.
	if d := time.Since(start); d > 2*time.Minute {
		t.Fatalf("stopping took %s", d)
	}
	if got := strings.Join(kinds(t, st, id), " "); got != "UserMessage Init AssistantText ToolCall" {
		t.Fatalf("stored kinds: %s", got)
	}
	s, _ := st.Sessions().Get(context.Background(), id)
	if s.LastClaudeUUID != "" {
		t.Fatalf("last_claude_uuid = %q after a stop", s.LastClaudeUUID)
	}
	checkStore(t, st)
}

// waitForFile waits for path to exist and reports whether it does; limit
// only turns a hang into a failure.
func waitForFile(path string, limit time.Duration) bool {
	deadline := time.Now().Add(limit)
	for {
		if _, err := os.Stat(path); err == nil {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// killFake SIGKILLs the fake agent that wrote its pid to pidFile (#on-term),
// so that a test that failed does not hang.
func killFake(t *testing.T, pidFile string) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Errorf("no pid: %v", err)
		return
	}
	if pid, err := strconv.Atoi(string(b)); err == nil {
		if p, err := os.FindProcess(pid); err == nil {
			_ = p.Kill()
		}
	}
}

// TestRunTurnStopSendsTermFirst: Stop sends SIGTERM and lets the agent end
// by itself within the grace period: the agent here is given an hour, ends
// (exit code 0) when the test allows it after seeing the SIGTERM, and is
// never killed. An immediate SIGKILL would end it with exit code -1.
func TestRunTurnStopSendsTermFirst(t *testing.T) {
	st, id := newStore(t)
	gate := filepath.Join(t.TempDir(), "go")
	// The handler comes first: the stop cannot arrive before it is in place.
	cfg, env, _ := fakeCLI(t, "#on-term "+gate, claudeInit, claudeText, "#hang")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	released := make(chan bool, 1)
	opts := TurnOptions{Config: cfg, Env: env, Grace: time.Hour,
		OnSaved: func(saved []codec.Event) {
			for _, e := range saved {
				if e.Kind == codec.KindAssistantText && ctx.Err() == nil {
					cancel()
					go func() {
						ok := waitForFile(gate+".term", 2*time.Minute)
						if !ok {
							killFake(t, gate+".pid")
						}
						released <- ok
						_ = os.WriteFile(gate, nil, 0o644)
					}()
				}
			}
		}}
	res, err := RunTurn(ctx, st, id, "long job", opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Stopped || res.ExitCode != 0 || !strings.Contains(res.Stderr, "exiting after SIGTERM") {
		t.Fatalf("the agent did not end by itself after SIGTERM: exit code %d (-1: killed), stopped %v, stderr %q",
			res.ExitCode, res.Stopped, res.Stderr)
	}
	if !<-released { // already sent: the agent exited only after the release
		t.Fatal("the agent got no SIGTERM within 2 minutes of the stop")
	}
	if got := strings.Join(kinds(t, st, id), " "); got != "UserMessage Init AssistantText" {
		t.Fatalf("stored kinds: %s", got)
	}
}

// TestRunTurnStopKillsAfterTheGrace: an agent that does not end after
// SIGTERM is killed, and not before the grace period has passed (measured
// from the stop, so a busy machine only makes it longer).
func TestRunTurnStopKillsAfterTheGrace(t *testing.T) {
	st, id := newStore(t)
	never := filepath.Join(t.TempDir(), "never") // never created: the agent waits after SIGTERM
	cfg, env, _ := fakeCLI(t, "#on-term "+never, claudeInit, claudeText, "#hang")
	const grace = 700 * time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stopAt time.Time
	opts := TurnOptions{Config: cfg, Env: env, Grace: grace,
		OnSaved: func(saved []codec.Event) {
			for _, e := range saved {
				if e.Kind == codec.KindAssistantText && stopAt.IsZero() {
					stopAt = time.Now()
					cancel()
				}
			}
		}}
	watchdog := time.AfterFunc(2*time.Minute, func() { killFake(t, never+".pid") })
	defer watchdog.Stop()
	res, err := RunTurn(ctx, st, id, "long job", opts)
	if err != nil {
		t.Fatal(err)
	}
	if !watchdog.Stop() {
		t.Fatal("the agent was not killed within 2 minutes of the stop")
	}
	if waited := time.Since(stopAt); waited < grace {
		t.Errorf("the agent was killed %v after the stop, before the %v grace period", waited, grace)
	}
	if !res.Stopped || res.ExitCode != -1 || strings.Contains(res.Stderr, "exiting after SIGTERM") {
		t.Fatalf("want a stopped turn whose agent was killed: exit code %d, stopped %v, stderr %q", res.ExitCode, res.Stopped, res.Stderr)
	}
}

func TestRunTurnReturnsWhenAGrandchildHoldsTheOutput(t *testing.T) {
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeInit, "#child", claudeText, claudeOK)
	start := time.Now()
	res, err := RunTurn(context.Background(), st, id, "hi", TurnOptions{Config: cfg, Env: env})
	if err != nil || !res.Success() {
		t.Fatalf("res %+v, err %v", res, err)
	}
	// The grandchild sleeps an hour: only waiting for it fails this, not a
	// busy machine.
	if d := time.Since(start); d > 2*time.Minute {
		t.Fatalf("the turn waited %s for the grandchild", d)
	}
}

func TestRunTurnIdleAgentIsStopped(t *testing.T) {
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeInit, claudeText, "#hang")
	res, err := RunTurn(context.Background(), st, id, "hi",
		TurnOptions{Config: cfg, Env: env, IdleTimeout: 300 * time.Millisecond, Grace: 200 * time.Millisecond})
	if !errors.Is(err, ErrAgentIdle) {
		t.Fatalf("err = %v", err)
	}
	if res.Completed == nil || *res.Completed {
		t.Fatalf("an idle agent must be recorded as failed: %+v", res)
	}
}

func TestRunTurnMissingCLIWritesNothing(t *testing.T) {
	st, id := newStore(t)
	cfg := Config{Paths: map[Backend]string{Claude: "/nonexistent/claude"}, Getenv: func(string) string { return "" }}
	_, err := RunTurn(context.Background(), st, id, "hi", TurnOptions{Config: cfg})
	if !errors.Is(err, ErrCLINotFound) || !strings.Contains(err.Error(), "/nonexistent/claude") {
		t.Fatalf("err = %v", err)
	}
	if ks := kinds(t, st, id); len(ks) != 0 {
		t.Fatalf("stored %v for a missing CLI", ks)
	}
}

func TestRunTurnStopsForCompactionMidTurn(t *testing.T) {
	st, id := newStore(t)
	long := `{"type":"assistant","message":{"id":"msg_9","content":[{"type":"text","text":"` + strings.Repeat("word ", 400) + `"}]},"uuid":"u9"}`
	cfg, env, _ := fakeCLI(t, claudeInit, long, "#hang")
	res, err := RunTurn(context.Background(), st, id, "hi",
		TurnOptions{Config: cfg, Env: env, Threshold: 1000, Grace: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.StoppedForCompaction || !res.NeedsCompaction || res.Stopped || res.ContextChars < 1000 {
		t.Fatalf("result = %+v", res)
	}
	if got := strings.Join(kinds(t, st, id), " "); got != "UserMessage Init AssistantText" {
		t.Fatalf("stored kinds: %s", got)
	}
}

func TestRunTurnHiddenPromptIsNotStored(t *testing.T) {
	st, id := newStore(t)
	cfg, env, rec := fakeCLI(t, claudeInit, claudeText, claudeOK)
	if _, err := RunTurn(context.Background(), st, id, AutoContinuePrompt(),
		TurnOptions{Config: cfg, Env: env, Hidden: true}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(kinds(t, st, id), " "); got != "Init AssistantText Complete" {
		t.Fatalf("stored kinds: %s", got)
	}
	if r := readRecord(t, rec); !strings.Contains(strings.Join(r.Args, " "), codec.AutoContinueOpenTag) {
		t.Fatalf("the auto-continue prompt was not sent: %q", r.Args)
	}
}

func TestRunTurnRefusesReadOnlyStore(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	path := st.Path()
	st.Close()
	ro, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	before, _ := os.ReadFile(path)
	if _, err := RunTurn(ctx, ro, id, "hi", TurnOptions{}); !errors.Is(err, ErrStoreReadOnly) {
		t.Fatalf("err = %v", err)
	}
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("a read-only store was modified")
	}
}

func TestClaudeArgsKeepDashPromptsOutOfOptions(t *testing.T) {
	args, stdin := Invocation{Backend: Claude, Prompt: "-v is broken"}.Args()
	if stdin || strings.Join(args, "|") != "-p|--verbose|--output-format|stream-json|--dangerously-skip-permissions|--|-v is broken" {
		t.Fatalf("args %q, stdin %v", args, stdin)
	}
	args, _ = Invocation{Backend: Claude, Prompt: "summarize", Sandboxed: true}.Args()
	if strings.Contains(strings.Join(args, " "), "dangerously") {
		t.Fatalf("a sandboxed run got a permission bypass: %q", args)
	}
}
