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
