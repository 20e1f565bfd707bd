package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/internal/fakeclaude"
	"github.com/lazuli-app/lazuli/views"
)

// TestSavePolicySettingIsTheProjects: the save policy is chunk by default,
// kept per project, and a value edited by hand into the preferences falls
// back to chunk instead of failing runs.
func TestSavePolicySettingIsTheProjects(t *testing.T) {
	fa := test.NewTempApp(t)
	a, b := t.TempDir(), t.TempDir()
	pw := testWindow(t, fa, Worktree{Dir: a, Branch: "main", StorePath: filepath.Join(a, StoreRelPath)})
	other := testWindow(t, fa, Worktree{Dir: b, Branch: "main", StorePath: filepath.Join(b, StoreRelPath)})
	if got := pw.runner.saveOptions(); got != (agents.SaveOptions{Policy: agents.SaveChunk}) {
		t.Fatalf("default save options %+v", got)
	}
	pw.runner.setSavePolicy(views.SavePolicySettings{Policy: "chunk", BufferMS: 100, BufferSize: 64})
	if got := pw.runner.saveOptions(); got != (agents.SaveOptions{Policy: agents.SaveChunk, Buffer: 100 * time.Millisecond, BufferSize: 64}) {
		t.Fatalf("save options %+v after setting chunk, 100 ms, 64 events", got)
	}
	if got := other.runner.saveOptions(); got != (agents.SaveOptions{Policy: agents.SaveChunk}) {
		t.Fatalf("another project's save options changed: %+v", got)
	}
	fa.Preferences().SetString(prefSavePolicy+pw.projectKey(), "sometimes")
	if got := pw.runner.saveOptions(); got != (agents.SaveOptions{}) {
		t.Fatalf("a bad stored policy gave %+v, want the default", got)
	}
}

// TestPromptBoxRunsUnderTheProjectsSavePolicy: a prompt run by the
// window's workflow (runWorkflow, what the prompt box's SendPrompt starts
// in the background) under the project's turn policy writes nothing while
// the agent works (the store shows last_claude_uuid, set when the run read
// the init line the fake prints after the rest), then the whole turn at
// its end. runWorkflow is called directly: the test driver runs fyne.Do
// on the calling goroutine, so startRun's own updates would race there.
func TestPromptBoxRunsUnderTheProjectsSavePolicy(t *testing.T) {
	fa := test.NewTempApp(t)
	dir := t.TempDir()
	path := filepath.Join(dir, StoreRelPath)
	id := fakeclaude.StoreWithSession(t, path)
	gate := filepath.Join(dir, "go")
	t.Setenv("LAZULI_CLAUDE", fakeclaude.Write(t, dir, fakeclaude.Turn{Lines: []string{
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Listing."}]}}`,
		`{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go"}]}}`,
		`{"type":"system","subtype":"init","session_id":"cli-app","cwd":"/w","model":"claude-opus-5-5"}`,
	}, Gate: gate, After: []string{
		`{"type":"result","subtype":"success","session_id":"cli-app","is_error":false,"duration_ms":10,"total_cost_usd":0}`,
	}}))
	pw := testWindow(t, fa, Worktree{Dir: dir, Branch: "main", StorePath: path})
	t.Cleanup(pw.close)
	pw.runner.setSavePolicy(views.SavePolicySettings{Policy: "turn"})
	ref := views.SessionRef{StorePath: path, ID: id}
	done := make(chan error, 1)
	go func() {
		done <- pw.runner.runWorkflow(pw.ctx, &runRef{ref: ref}, "list the files", "", "main", &runState{started: time.Now()})
	}()
	st, err := pw.store(path)
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the run read the init line", func() bool {
		got, err := st.Sessions().Get(context.Background(), id)
		return err == nil && got.LastClaudeUUID == "cli-app"
	})
	if got := fakeclaude.Kinds(t, st, id); got != "" {
		t.Fatalf("under turn, the store holds %q while the agent works", got)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	pw.wg.Wait()
	if got, want := fakeclaude.Kinds(t, st, id), "UserMessage AssistantText ToolCall ToolResult Init Complete"; got != want {
		t.Fatalf("after the turn the session holds %q, want %q", got, want)
	}
}

// waitUntil polls cond; the limit only turns a hang into a failure.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never saw %s", what)
		}
	}
}
