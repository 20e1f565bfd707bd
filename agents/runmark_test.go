package agents

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"testing"

	"github.com/lazuli-app/lazuli/store"
)

// TestRunTurnClearsStaleCLISessionOfAKilledRun reproduces a `lazuli run`
// killed with SIGKILL: its last_claude_uuid stays set and its run mark
// stays, unlocked. The next run of the session clears it, even when that
// run's agent fails before reporting an id of its own. A value AZUREAL set
// (no mark) or a live run's (mark locked) is left alone.
func TestRunTurnClearsStaleCLISessionOfAKilledRun(t *testing.T) {
	ctx := context.Background()
	cfg, env, _ := fakeCLI(t, "#stderr boom", "#exit 1")
	run := func(st *store.Store, id int64) string {
		t.Helper()
		_, _ = RunTurn(ctx, st, id, "again", TurnOptions{Config: cfg, Env: env})
		s, err := st.Sessions().Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return s.LastClaudeUUID
	}

	t.Run("killed Lazuli run", func(t *testing.T) {
		st, id := newStore(t)
		if err := st.Sessions().SetLastClaudeUUID(ctx, id, "cli-killed"); err != nil {
			t.Fatal(err)
		}
		m := markRun(st.Path(), id, "cli-killed")
		if m == nil {
			t.Fatal("no run mark")
		}
		m.f.Close() // what SIGKILL leaves: the file, unlocked
		if got := run(st, id); got != "" {
			t.Fatalf("last_claude_uuid = %q after the next run, want it cleared", got)
		}
	})
	t.Run("AZUREAL's orphan", func(t *testing.T) {
		st, id := newStore(t)
		if err := st.Sessions().SetLastClaudeUUID(ctx, id, "cli-azureal"); err != nil {
			t.Fatal(err)
		}
		if got := run(st, id); got != "cli-azureal" {
			t.Fatalf("last_claude_uuid = %q; AZUREAL recovers its own orphans", got)
		}
	})
	t.Run("live run", func(t *testing.T) {
		st, id := newStore(t)
		if err := st.Sessions().SetLastClaudeUUID(ctx, id, "cli-live"); err != nil {
			t.Fatal(err)
		}
		m := markRun(st.Path(), id, "cli-live")
		defer m.end(true)
		if got := run(st, id); got != "cli-live" {
			t.Fatalf("last_claude_uuid = %q; a live run's id must stay", got)
		}
	})
}

// TestRunTurnRemovesItsRunMark: a run that ends normally clears the column
// and leaves no mark behind.
func TestRunTurnRemovesItsRunMark(t *testing.T) {
	st, id := newStore(t)
	cfg, env, _ := fakeCLI(t, claudeInit, claudeText, claudeOK)
	if _, err := RunTurn(context.Background(), st, id, "hi", TurnOptions{Config: cfg, Env: env}); err != nil {
		t.Fatal(err)
	}
	p, err := runMarkPath(st.Path(), id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the run left its mark: %v", err)
	}
}
