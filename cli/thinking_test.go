package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// TestShowThinking: show prints the agent's thinking before the event it
// led to, and show --json carries it beside that event.
func TestShowThinking(t *testing.T) {
	dir := t.TempDir()
	lines := `{"type":"user","message":{"role":"user","content":"why?"},"uuid":"u1","sessionId":"s"}
{"type":"assistant","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"weigh the zorp","signature":"x"},{"type":"text","text":"because"}]},"uuid":"a1","sessionId":"s"}
`
	path := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, dir, "import", "--format", "claude-transcript", path); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	code, out, errOut := run(t, dir, "show", "1")
	if code != 0 || !strings.Contains(out, "#2 Thinking\n    weigh the zorp\n\n#2 Assistant\n    because") {
		t.Errorf("show = %d %s\n%s", code, errOut, out)
	}
	code, out, _ = run(t, dir, "show", "--json", "1")
	var evs []eventJSON
	if err := json.Unmarshal([]byte(out), &evs); code != 0 || err != nil || len(evs) != 2 || len(evs[1].Thinking) != 1 || evs[1].Thinking[0] != "weigh the zorp" || evs[0].Thinking != nil {
		t.Errorf("show --json = %d %v\n%s", code, err, out)
	}
}

// TestShowRunFailure: show prints why a run failed after the event it
// ended with, and show --json carries it beside that event.
func TestShowRunFailure(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", "root", []codec.Event{codec.UserMessage("fix it"),
		codec.Complete(false, 900, 0), store.RunFailed("--dangerously-skip-permissions cannot be used with root")}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, errOut := run(t, dir, "show", "1")
	if code != 0 || !strings.Contains(out, "#2 Run failed\n    --dangerously-skip-permissions cannot be used with root\n") {
		t.Errorf("show = %d %s\n%s", code, errOut, out)
	}
	code, out, _ = run(t, dir, "show", "--json", "1")
	var evs []eventJSON
	if err := json.Unmarshal([]byte(out), &evs); code != 0 || err != nil || len(evs) != 2 || len(evs[1].RunFailures) != 1 || evs[0].RunFailures != nil {
		t.Errorf("show --json = %d %v\n%s", code, err, out)
	}
}

// TestShowInterruption: show prints Claude Code's interruption note as
// what it is, not as a prompt the user typed.
func TestShowInterruption(t *testing.T) {
	dir := t.TempDir()
	lines := `{"type":"user","message":{"role":"user","content":"go"},"uuid":"u1","sessionId":"s"}
{"type":"user","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]},"uuid":"u2","sessionId":"s"}
`
	path := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run(t, dir, "import", "--format", "claude-transcript", path); code != 0 {
		t.Fatalf("import: %s", errOut)
	}
	code, out, errOut := run(t, dir, "show", "1")
	if code != 0 || !strings.Contains(out, "#2 Interrupted by the user\n") || strings.Count(out, "User") != 1 {
		t.Errorf("show = %d %s\n%s", code, errOut, out)
	}
}
