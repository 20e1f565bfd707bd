package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/gittest"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// fakeClaude writes a claude stand-in that answers --version and one turn.
func fakeClaude(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "claude")
	script := `#!/bin/sh
if [ "$1" = "--version" ]; then echo "9.9.9 (Claude Code)"; exit 0; fi
echo '{"type":"system","subtype":"init","cwd":"/w","session_id":"s1","model":"claude-x"}'
echo '{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Done."}]},"session_id":"s1"}'
echo '{"type":"result","subtype":"success","session_id":"s1","is_error":false,"duration_ms":10,"total_cost_usd":0.01}'
`
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNewSessionStoredOnlyOnceTheAgentStarted: Ctrl+N shows a new session
// without storing one. A prompt whose CLI is missing keeps its text, says
// why under the box and leaves no session; once the CLI is there, the
// prompt creates the session, in the worktree asked for, named after the
// prompt, and the box lets go of the text.
func TestNewSessionStoredOnlyOnceTheAgentStarted(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	st.Close()
	pw := testWindow(t, fa, wt)
	defer pw.close()
	bg := context.Background()
	count := func() int {
		t.Helper()
		s, err := pw.store(wt.StorePath)
		if err != nil {
			t.Fatal(err)
		}
		list, err := s.Sessions().List(bg, "")
		if err != nil {
			t.Fatal(err)
		}
		return len(list)
	}
	box := pw.mv.PromptBox()

	pw.shown.NewSession(wt.StorePath, "feature")
	if n := count(); n != 0 {
		t.Fatalf("New session stored %d sessions before any prompt", n)
	}
	ref0 := views.SessionRef{StorePath: wt.StorePath}
	if got, ok := box.Session(); !ok || got != ref0 {
		t.Fatalf("prompt box sends to %v %v", got, ok)
	}

	t.Setenv("LAZULI_CLAUDE", filepath.Join(t.TempDir(), "no-claude-here"))
	box.SetDraft(ref0, "Fix the login bug")
	pw.runner.SendPrompt(views.PromptRequest{Ref: ref0, Prompt: "Fix the login bug"})
	pw.wg.Wait()
	if n := count(); n != 0 {
		t.Errorf("a prompt whose CLI is missing left %d sessions", n)
	}
	if box.Text() != "Fix the login bug" || !strings.Contains(box.SendError(), "not found") || box.Status() != "" {
		t.Errorf("after the failed send: text %q, in place %q, status line %q (want the reason once, in place)",
			box.Text(), box.SendError(), box.Status())
	}

	t.Setenv("LAZULI_CLAUDE", fakeClaude(t))
	pw.runner.SendPrompt(views.PromptRequest{Ref: ref0, Prompt: "Fix the login bug"})
	pw.wg.Wait()
	s, err := pw.store(wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	list, _ := s.Sessions().List(bg, "")
	if len(list) != 1 || list[0].Worktree != "feature" {
		t.Fatalf("sessions %+v, want one in feature", list)
	}
	pw.list.refresh()
	pw.wg.Wait()
	var names []string
	for _, g := range pw.mv.Sidebar().Groups() {
		for _, x := range g.Sessions {
			names = append(names, x.DisplayName())
		}
	}
	if len(names) != 1 || names[0] != "Fix the login bug" { // named after its prompt, as imports are
		t.Errorf("sidebar shows %q, want the session named after its prompt", names)
	}
	if want := (views.SessionRef{StorePath: wt.StorePath, ID: list[0].ID}); pw.shown.current != want {
		t.Errorf("shows %v, want the new session %v", pw.shown.current, want)
	}
	if box.Text() != "" || box.SendError() != "" {
		t.Errorf("after the agent started: text %q, in place %q", box.Text(), box.SendError())
	}
	events, _ := s.Events().All(bg, list[0].ID)
	if len(events) == 0 || events[0].Kind != codec.KindUserMessage || events[0].Event.Content != "Fix the login bug" {
		t.Errorf("stored %+v", events)
	}
}

// TestNewSessionInTheWindowsWorktree: Ctrl+N in a window opened on a
// linked worktree makes the session of that worktree, even when the
// window shows (and the sidebar selects) a session of another one. (The
// sidebar's New button uses the selected group: views.TestSidebarNewSession.)
func TestNewSessionInTheWindowsWorktree(t *testing.T) {
	fa := test.NewTempApp(t)
	main, linked, _ := gittest.RepoWithWorktree(t)
	wts, err := ResolveProject(linked)
	if err != nil || len(wts) != 2 {
		t.Fatalf("worktrees %+v, %v", wts, err)
	}
	mainStore := filepath.Join(main, StoreRelPath)
	seed, err := store.Open(context.Background(), mainStore)
	if err != nil {
		t.Fatal(err)
	}
	s, _, err := seed.Sessions().CreateWithEvents(context.Background(), "main", "on main", []codec.Event{codec.UserMessage("x")})
	if err != nil {
		t.Fatal(err)
	}
	seed.Close()
	pw := testWindow(t, fa, wts...)
	defer pw.close()
	pw.list.onNewSession()
	if pw.shown.current.StorePath != filepath.Join(linked, StoreRelPath) || pw.shown.newWorktree != "feature" {
		t.Errorf("Ctrl+N with nothing selected: %v in %q, want the feature worktree's store", pw.shown.current, pw.shown.newWorktree)
	}
	// The main session shown (e.g. remembered from the last run), but not
	// selected by the user in the sidebar: still the window's worktree.
	pw.list.refreshList()
	pw.shown.loadSession(views.SessionRef{StorePath: mainStore, ID: s.ID}, pw.shown.loadGen)
	pw.mv.Sidebar().Select(views.SessionRef{})
	pw.list.onNewSession()
	if pw.shown.newWorktree != "feature" {
		t.Errorf("Ctrl+N after showing a main session: %q, want feature", pw.shown.newWorktree)
	}
	pw.mv.Sidebar().Select(views.SessionRef{StorePath: mainStore, ID: s.ID})
	pw.list.onNewSession()
	if pw.shown.current.StorePath == mainStore || pw.shown.newWorktree != "feature" {
		t.Errorf("Ctrl+N with a main session selected: %v in %q, want feature", pw.shown.current, pw.shown.newWorktree)
	}
}

// TestStatusClearedWhenItsSessionIsLeft: a status about one session (a run
// that finished, a compaction) is gone once another session is shown, and
// stays while its own is.
func TestStatusClearedWhenItsSessionIsLeft(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	a, _, _ := st.Sessions().CreateWithEvents(bg, "main", "a", []codec.Event{codec.UserMessage("a")})
	b, _, _ := st.Sessions().CreateWithEvents(bg, "main", "b", []codec.Event{codec.UserMessage("b")})
	st.Close()
	pw := testWindow(t, fa, wt)
	defer pw.close()
	refA := views.SessionRef{StorePath: wt.StorePath, ID: a.ID}
	refB := views.SessionRef{StorePath: wt.StorePath, ID: b.ID}
	pw.shown.loadSession(refA, pw.shown.loadGen)
	pw.status.set(refA, "S1: finished in 12s.", false)
	pw.shown.loadSession(refA, pw.shown.loadGen) // reloaded: still about it
	if got := pw.mv.PromptBox().Status(); got != "S1: finished in 12s." {
		t.Errorf("status after reloading its session: %q", got)
	}
	pw.shown.loadSession(refB, pw.shown.loadGen)
	if got := pw.mv.PromptBox().Status(); got != "" {
		t.Errorf("status about S1 still shown on S2: %q", got)
	}
	pw.status.set(refB, "This session is already being compacted.", false)
	pw.shown.NewSession(wt.StorePath, "main")
	if got := pw.mv.PromptBox().Status(); got != "" {
		t.Errorf("status about S2 still shown on a new session: %q", got)
	}
}
