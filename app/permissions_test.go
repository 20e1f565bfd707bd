package app

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// overlayOf returns the objects of type T in the window's top overlay.
func overlayOf[T fyne.CanvasObject](w fyne.Window) []T {
	var out []T
	fyne.DoAndWait(func() { out = widgetsOf[T](w.Canvas().Overlays().Top()) })
	return out
}

// tapOverlay taps the button labelled text in the window's top overlay.
func tapOverlay(t *testing.T, w fyne.Window, text string) {
	t.Helper()
	fyne.DoAndWait(func() { tapDialogButton(t, w, text) })
}

// TestPermissionsInWindow: the header shows the mode of the session shown
// (the project's when it has none); the settings dialog saves the mode to
// the session's store, and the header follows.
func TestPermissionsInWindow(t *testing.T) {
	t.Setenv(project.ConfigDirEnv, t.TempDir())
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	s, _ := st.Sessions().Create(bg, "main", "fix")
	st.Close()
	if err := project.SetDefaultPermissions(project.Key([]Worktree{wt}), store.Permissions{Mode: "plan"}); err != nil {
		t.Fatal(err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	ref := views.SessionRef{StorePath: wt.StorePath, ID: s.ID}
	pw.shown.loadSession(ref, pw.shown.loadGen)
	if got := pw.mv.Header().PermissionMode(); got != "Plan (read-only)" {
		t.Errorf("header mode %q, want the project's", got)
	}
	pw.perms.EditPermissions(ref)
	pw.wg.Wait()
	sel := overlayOf[*widget.Select](pw.win)
	if len(sel) < 2 || sel[0].Selected != "Project default (Plan (read-only))" {
		t.Fatalf("the dialog's selects %v", sel)
	}
	fyne.DoAndWait(func() { sel[0].SetSelected("Ask") })
	tapOverlay(t, pw.win, "Save")
	pw.wg.Wait()
	st2, _ := pw.store(wt.StorePath)
	if p, err := st2.Permissions().Of(bg, s.ID); err != nil || p.Mode != "ask" {
		t.Errorf("stored %+v, %v", p, err)
	}
	if got := pw.mv.Header().PermissionMode(); got != "Ask" {
		t.Errorf("header mode after save %q", got)
	}
}

// TestAskPermissionInWindow: an agent's permission prompt shows the
// dialog; each button's answer reaches the agent, and a prompt the agent
// stops waiting for is closed and denied.
func TestAskPermissionInWindow(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	s, _ := st.Sessions().Create(context.Background(), "main", "fix")
	st.Close()
	pw := testWindow(t, fa, wt)
	defer pw.close()
	ask := pw.perms.ask(wt.StorePath)
	req := agents.PermissionRequest{SessionID: s.ID, Tool: "Bash", Subject: "git push", Input: json.RawMessage(`{"command":"git push"}`)}
	run := func(ctx context.Context) chan agents.PermissionAnswer {
		got := make(chan agents.PermissionAnswer, 1)
		go func() { got <- ask(ctx, req) }()
		for len(pw.perms.openPrompts()) == 0 { // pm.mu orders the dialog's building before the test looks
			runtime.Gosched()
		}
		return got
	}
	for button, want := range map[string]agents.PermissionAnswer{"Allow": agents.AnswerAllow, "Deny": agents.AnswerDeny,
		"Always allow this": agents.AnswerAlways} {
		got := run(context.Background())
		labels := ""
		for _, l := range overlayOf[*widget.Label](pw.win) {
			fyne.DoAndWait(func() { labels += l.Text + "\n" })
		}
		if want == agents.AnswerAllow && !(strings.Contains(labels, "Bash: git push") && strings.Contains(labels, `"command": "git push"`)) {
			t.Errorf("the dialog says:\n%s", labels)
		}
		tapOverlay(t, pw.win, button)
		if a := <-got; a != want {
			t.Errorf("%s answered %v, want %v", button, a, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := run(ctx)
	cancel()
	if a := <-got; a != agents.AnswerDeny {
		t.Errorf("a prompt the agent gave up on answered %v", a)
	}
	open := true
	fyne.DoAndWait(func() { open = pw.win.Canvas().Overlays().Top() != nil })
	if open {
		t.Errorf("the dialog stayed open after the agent gave up")
	}
}
