package agents

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
)

// versionScript makes the fake agent answer Detect's --version (Detect runs
// it with this process's environment).
func versionScript(t *testing.T) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "version.txt")
	if err := os.WriteFile(p, []byte("fake-agent 1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LAZULI_FAKE_SCRIPT", p)
}

func TestRunWorkflowCreatesSessionAndReportsProgress(t *testing.T) {
	versionScript(t)
	ctx := context.Background()
	st, _ := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeInit, claudeText, claudeOK)
	var kindsSeen []RunEventKind
	res, err := RunWorkflow(ctx, st, 0, "hello", RunOptions{Worktree: "feature",
		Turn:    TurnOptions{Config: cfg, Env: env, Dir: t.TempDir()},
		OnEvent: func(ev RunEvent) { kindsSeen = append(kindsSeen, ev.Kind) }})
	if err != nil || res.SessionID == 0 || !res.Turn.Success() || res.Compacted {
		t.Fatalf("res %+v, err %v", res, err)
	}
	s, err := st.Sessions().Get(ctx, res.SessionID)
	if err != nil || s.Worktree != "feature" {
		t.Fatalf("new session %+v, %v", s, err)
	}
	if got := strings.Join(kinds(t, st, res.SessionID), " "); got != "UserMessage Init AssistantText Complete" {
		t.Fatalf("stored kinds: %s", got)
	}
	if len(kindsSeen) < 3 || kindsSeen[0] != RunStarting || kindsSeen[len(kindsSeen)-1] != RunTurnEnded {
		t.Fatalf("events %v", kindsSeen)
	}
}

func TestRunWorkflowMissingCLICreatesNothing(t *testing.T) {
	ctx := context.Background()
	st, id := newStore(t)
	cfg := Config{Paths: map[Backend]string{Claude: "/nonexistent/claude"}, Getenv: func(string) string { return "" }}
	if _, err := RunWorkflow(ctx, st, 0, "hi", RunOptions{Turn: TurnOptions{Config: cfg}}); err == nil {
		t.Fatal("want an error for a missing CLI")
	}
	if _, err := st.Events().Append(ctx, id, []codec.Event{codec.Init("/w", "claude-opus-5-5")}); err != nil {
		t.Fatal(err)
	}
	if _, err := RunWorkflow(ctx, st, id, "hi", RunOptions{Turn: TurnOptions{Config: cfg, Model: "sonnet"}}); err == nil {
		t.Fatal("want an error for a missing CLI")
	}
	ss, _ := st.Sessions().List(ctx, "")
	if got := strings.Join(kinds(t, st, id), " "); len(ss) != 1 || got != "Init" {
		t.Fatalf("a missing CLI wrote: %d sessions, kinds %s", len(ss), got)
	}
}

func TestRunWorkflowRecordsModelSwitchAndUsesSessionModel(t *testing.T) {
	versionScript(t)
	ctx := context.Background()
	st, id := newStore(t)
	if _, err := st.Events().Append(ctx, id, []codec.Event{codec.UserMessage("first"), codec.Init("/w", "claude-haiku-4-5")}); err != nil {
		t.Fatal(err)
	}
	cfg, env, rec := fakeCLI(t, claudeInit, claudeText, claudeOK)
	opts := RunOptions{Turn: TurnOptions{Config: cfg, Env: env, Dir: t.TempDir()}}
	res, err := RunWorkflow(ctx, st, id, "again", opts)
	if err != nil || res.Model != "haiku" {
		t.Fatalf("res %+v, err %v: want the session's model", res, err)
	}
	if args := strings.Join(readRecord(t, rec).Args, " "); !strings.Contains(args, "--model haiku") {
		t.Fatalf("argv %s", args)
	}
	opts.Turn.Model = "sonnet"
	if _, err := RunWorkflow(ctx, st, id, "third", opts); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(kinds(t, st, id), " ")
	want := "UserMessage Init UserMessage Init AssistantText Complete ModelSwitch UserMessage Init AssistantText Complete"
	if got != want {
		t.Fatalf("stored kinds\n got %s\nwant %s", got, want)
	}
	if m, _ := StoredSessionModel(ctx, st, id); m != "sonnet" {
		t.Fatalf("session model %q", m)
	}
}

// TestRunWorkflowCompactsAndAutoContinues crosses the threshold mid-turn:
// the workflow compacts the session, then runs the hidden auto-continue
// turn, which finishes.
func TestRunWorkflowCompactsAndAutoContinues(t *testing.T) {
	versionScript(t)
	ctx := context.Background()
	st, id := newStore(t)
	seed := []codec.Event{codec.UserMessage("first prompt"), codec.AssistantText(strings.Repeat("old words ", 400)),
		codec.UserMessage("second prompt"), codec.AssistantText("short")}
	if _, err := st.Events().Append(ctx, id, seed); err != nil {
		t.Fatal(err)
	}
	before, _ := st.Compactions().CharsSince(ctx, id)
	long := `{"type":"assistant","message":{"id":"msg_9","content":[{"type":"text","text":"` + strings.Repeat("new ", 60) + `"}]},"uuid":"u9"}`
	cfg, env, rec := fakeCLI(t, claudeInit, long, "#hang")
	script := filepath.Join(filepath.Dir(rec), "script.txt")
	var compacted []CompactRequest
	var kindsSeen []RunEventKind
	opts := RunOptions{
		Turn: TurnOptions{Config: cfg, Env: env, Dir: t.TempDir(), Threshold: before + 100, Grace: 200 * time.Millisecond},
		Compact: func(ctx context.Context, req CompactRequest) (CompactOutcome, error) {
			compacted = append(compacted, req)
			// The continued turn finishes.
			if err := os.WriteFile(script, []byte(claudeInit+"\n"+claudeText+"\n"+claudeOK+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return CompactSession(ctx, st, req.SessionID, CompactOptions{Agent: CompactBuiltin})
		},
		OnEvent: func(ev RunEvent) { kindsSeen = append(kindsSeen, ev.Kind) },
	}
	res, err := RunWorkflow(ctx, st, id, "third prompt", opts)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Compacted || !res.AutoContinued || !res.Turn.Success() || len(compacted) != 1 || !compacted[0].AutoContinue {
		t.Fatalf("res %+v, compactions %+v", res, compacted)
	}
	want := []RunEventKind{RunStarting, RunTurnEnded, RunCompacting, RunCompacted, RunContinuing, RunTurnEnded}
	if !inOrder(kindsSeen, want) {
		t.Fatalf("events %v, want %v in this order", kindsSeen, want)
	}
	if r := readRecord(t, rec); !strings.Contains(strings.Join(r.Args, " "), codec.AutoContinueOpenTag) {
		t.Fatalf("the last turn was not the auto-continue prompt: %q", r.Args)
	}
	users := 0
	for _, k := range kinds(t, st, id) {
		if k == string(codec.KindUserMessage) {
			users++
		}
	}
	if users != 3 {
		t.Fatalf("%d user messages stored; the hidden prompt must not be one", users)
	}
}

// inOrder reports whether want occurs in got in this order.
func inOrder(got, want []RunEventKind) bool {
	i := 0
	for _, k := range got {
		if i < len(want) && k == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestRunWorkflowStoresSubagentSession runs the prompt box's and lazuli
// run's workflow on a stream with a sub-agent: both sessions are stored,
// and the workflow reports the sub-agent's session.
func TestRunWorkflowStoresSubagentSession(t *testing.T) {
	versionScript(t)
	ctx := context.Background()
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeInit, claudeAgentCall, claudeSubPrompt, claudeSubCall, claudeSubResult, claudeAgentDone, claudeDone, claudeOK)
	var subs []SubagentSaved
	res, err := RunWorkflow(ctx, st, id, "take stock", RunOptions{Turn: TurnOptions{Config: cfg, Env: env, Dir: t.TempDir()},
		OnEvent: func(ev RunEvent) {
			if ev.Kind == RunSubagent {
				subs = append(subs, ev.Subagent)
			}
		}})
	if err != nil || !res.Turn.Success() {
		t.Fatalf("res %+v, err %v", res, err)
	}
	if len(subs) == 0 || !subs[0].Created {
		t.Fatalf("sub-agent reports %+v", subs)
	}
	child := subs[0].SessionID
	if got := strings.Join(kinds(t, st, id), " "); got != "UserMessage Init ToolCall ToolResult AssistantText Complete" {
		t.Fatalf("parent: %s", got)
	}
	if got := strings.Join(kinds(t, st, child), " "); got != "UserMessage ToolCall ToolResult" {
		t.Fatalf("sub-agent: %s", got)
	}
	list, _ := st.Sessions().List(ctx, "")
	if len(list) != 2 || list[0].ID != id || list[1].ID != child {
		t.Fatalf("want the parent listed above its sub-agent: %+v", list)
	}
}

// TestRunWorkflowAgentThatCannotStartLeavesNoSession: the CLI is found but
// its process cannot start (its worktree folder is gone): the session the
// workflow created for the prompt is deleted again, and RunStarted is
// never reported. A run that starts reports RunStarted once.
func TestRunWorkflowAgentThatCannotStartLeavesNoSession(t *testing.T) {
	versionScript(t)
	ctx := context.Background()
	st, _ := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeInit, claudeText, claudeOK)
	var seen []RunEventKind
	res, err := RunWorkflow(ctx, st, 0, "hello", RunOptions{Worktree: "feature",
		Turn:    TurnOptions{Config: cfg, Env: env, Dir: filepath.Join(t.TempDir(), "gone")},
		OnEvent: func(ev RunEvent) { seen = append(seen, ev.Kind) }})
	if err == nil || res.SessionID != 0 {
		t.Fatalf("res %+v, err %v; want an error and no session", res, err)
	}
	if ss, _ := st.Sessions().List(ctx, "feature"); len(ss) != 0 {
		t.Fatalf("left %d sessions in feature", len(ss))
	}
	if slices.Contains(seen, RunStarted) {
		t.Errorf("events %v report a start", seen)
	}
	seen = nil
	res, err = RunWorkflow(ctx, st, 0, "hello", RunOptions{Worktree: "feature",
		Turn:    TurnOptions{Config: cfg, Env: env, Dir: t.TempDir()},
		OnEvent: func(ev RunEvent) { seen = append(seen, ev.Kind) }})
	if err != nil || res.SessionID == 0 {
		t.Fatalf("res %+v, err %v", res, err)
	}
	n := 0
	for _, k := range seen {
		if k == RunStarted {
			n++
		}
	}
	if n != 1 || seen[0] != RunStarting {
		t.Errorf("events %v, want RunStarting then one RunStarted", seen)
	}
}

// TestRunWorkflowNamesNewSession: a session the run creates is named after
// its prompt (PromptName, as imports name theirs) unless the caller names
// it; a session continued keeps its name.
func TestRunWorkflowNamesNewSession(t *testing.T) {
	versionScript(t)
	ctx := context.Background()
	st, _ := newStore(t)
	long := strings.Repeat("word ", 20)
	for _, c := range []struct{ prompt, name, want string }{
		{"  Fix the login form\nso that it keeps the email", "", "Fix the login form"},
		{long, "", strings.TrimSpace(long[:59]) + "…"},
		{"Fix the login form", "Login", "Login"},
	} {
		cfg, env, _ := fakeCLI(t, claudeInit, claudeText, claudeOK)
		opts := RunOptions{Worktree: "main", Name: c.name, Turn: TurnOptions{Config: cfg, Env: env, Dir: t.TempDir()}}
		res, err := RunWorkflow(ctx, st, 0, c.prompt, opts)
		if err != nil || res.SessionID == 0 {
			t.Fatalf("res %+v, err %v", res, err)
		}
		s, err := st.Sessions().Get(ctx, res.SessionID)
		if err != nil || s.Name != c.want {
			t.Errorf("prompt %q, name %q: session named %q (%v), want %q", c.prompt, c.name, s.Name, err, c.want)
		}
		if c.name != "" {
			continue
		}
		cfg, env, _ = fakeCLI(t, claudeInit, claudeText, claudeOK)
		opts.Turn = TurnOptions{Config: cfg, Env: env, Dir: t.TempDir()}
		if _, err := RunWorkflow(ctx, st, res.SessionID, "something else", opts); err != nil {
			t.Fatal(err)
		}
		if s, _ := st.Sessions().Get(ctx, res.SessionID); s.Name != c.want {
			t.Errorf("a continued session renamed to %q", s.Name)
		}
	}
}

// A CLI too slow to answer --version (a Node CLI on a busy machine) still
// runs: Detect says it was slow, and the workflow goes on. One that
// answers --version with a failure stops the run before a session is made.
func TestRunWorkflowRunsACLISlowToSayItsVersion(t *testing.T) {
	old := versionWait
	versionWait = 300 * time.Millisecond
	t.Cleanup(func() { versionWait = old })
	p := filepath.Join(t.TempDir(), "version.txt")
	if err := os.WriteFile(p, []byte("#sleep 20s\nfake-agent 1.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LAZULI_FAKE_SCRIPT", p)
	ctx := context.Background()
	st, _ := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeInit, claudeText, claudeOK)
	if info := Detect(ctx, cfg, Claude); !errors.Is(info.Err, ErrSlowVersion) {
		t.Fatalf("Detect of a CLI that sleeps: %+v", info)
	}
	res, err := RunWorkflow(ctx, st, 0, "hello", RunOptions{Turn: TurnOptions{Config: cfg, Env: env, Dir: t.TempDir()}})
	if err != nil || res.SessionID == 0 || !res.Turn.Success() {
		t.Fatalf("res %+v, err %v", res, err)
	}

	// The failing CLI gets the whole wait: on a busy machine, its start alone
	// may take longer than the short one above.
	versionWait = old
	if err := os.WriteFile(p, []byte("broken\n#exit 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := st.Sessions().List(ctx, "")
	if _, err := RunWorkflow(ctx, st, 0, "hello", RunOptions{Turn: TurnOptions{Config: cfg, Env: env, Dir: t.TempDir()}}); err == nil || !strings.Contains(err.Error(), "--version failed") {
		t.Fatalf("a CLI whose --version fails: %v", err)
	}
	if after, _ := st.Sessions().List(ctx, ""); len(after) != len(before) {
		t.Fatalf("sessions %d -> %d", len(before), len(after))
	}
}
