package agents

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
)

// TestRunInitHasTheRunsFolder: Gemini CLI's stream names no folder; the
// stored Init of a Gemini run is the run's worktree, not "". The fake
// plays the stdout the real CLI wrote (agents/gemini/testdata/capture).
func TestRunInitHasTheRunsFolder(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("gemini", "testdata", "capture", "multitool.stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, strings.Split(strings.TrimSpace(string(out)), "\n")...)
	cfg.Paths[Gemini] = cfg.Paths[Claude]
	env = append(env, "LAZULI_GEMINI=")
	dir := t.TempDir()
	if _, err := RunTurn(context.Background(), st, id, "Turn notes.txt into a report", TurnOptions{Config: cfg, Env: env, Backend: Gemini, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	evs, err := st.Events().All(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		if e.Event.Kind == codec.KindInit {
			if e.Event.CWD != dir || e.Event.Model != "gemini-2.5-pro" {
				t.Errorf("Init cwd %q model %q, want %q and the stream's model", e.Event.CWD, e.Event.Model, dir)
			}
			return
		}
	}
	t.Fatalf("no Init stored: %+v", evs)
}

// TestQwenRunSubagent: a Qwen Code run whose stream carries an agent
// tool's conversation stores it as a session of its own, linked to the
// Task call. The fake plays the stdout the real CLI wrote
// (agents/qwen/testdata/subagent).
func TestQwenRunSubagent(t *testing.T) {
	out, err := os.ReadFile(filepath.Join("qwen", "testdata", "subagent", "subagent.stdout.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, strings.Split(strings.TrimSpace(string(out)), "\n")...)
	cfg.Paths[Qwen] = cfg.Paths[Claude]
	env = append(env, "LAZULI_QWEN=")
	if _, err := RunTurn(ctx, st, id, "Ask a helper how long notes.txt is", TurnOptions{Config: cfg, Env: env, Backend: Qwen, Dir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	links, err := st.Subagents().Of(ctx, id)
	if err != nil || len(links) != 1 || links[0].ToolUseID != "call_fkm_0_0" {
		t.Fatalf("links %+v, %v; want one sub-agent of the Task call call_fkm_0_0", links, err)
	}
	evs, err := st.Events().All(ctx, links[0].SessionID)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, string(e.Event.Kind))
	}
	if got := strings.Join(kinds, " "); !strings.Contains(got, "UserMessage ToolCall ToolResult") {
		t.Errorf("sub-agent events %s", got)
	}
	for _, e := range evs {
		if e.Event.Kind == codec.KindToolCall && (e.Event.ToolName != "Bash" || !strings.Contains(string(e.Event.Input), "wc -l < notes.txt")) {
			t.Errorf("sub-agent call %+v", e.Event)
		}
	}
}
