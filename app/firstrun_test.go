package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/lazuli-app/lazuli/codec"
)

// TestFirstRunPanel: a project without sessions offers importing its
// native history with the number of its sessions found (one ran in the
// project's folder, one elsewhere), a transcript, or a new session; once a
// session exists the panel is gone.
func TestFirstRunPanel(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	st.Close()
	home := t.TempDir()
	t.Setenv("CLAUDE_CONFIG_DIR", home)
	t.Setenv("CODEX_HOME", t.TempDir())
	for i, cwd := range []string{wt.Dir, "/somewhere/else"} {
		dir := filepath.Join(home, "projects", strings.ReplaceAll(cwd, "/", "-"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		id := []string{"11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"}[i]
		line := `{"type":"user","message":{"role":"user","content":"Add a cart"},"sessionId":"` + id +
			`","uuid":"u1","timestamp":"2026-01-02T03:04:05Z","cwd":"` + cwd + `"}` + "\n"
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	pw.first.shown.Native = -1
	pw.list.refreshList() // counts the native sessions too
	if !pw.mv.FirstRunShown() {
		t.Fatal("no first-run panel for a project without sessions")
	}
	if pw.first.shown.Native != 1 {
		t.Errorf("native sessions of the project: %d, want 1", pw.first.shown.Native)
	}
	st2, err := pw.store(wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st2.Sessions().CreateWithEvents(context.Background(), "main", "first", []codec.Event{codec.UserMessage("hi")}); err != nil {
		t.Fatal(err)
	}
	pw.list.refreshList()
	if pw.mv.FirstRunShown() {
		t.Error("the first-run panel stays once the project has a session")
	}
}
