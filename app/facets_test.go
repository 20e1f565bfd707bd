package app

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/views"
)

// TestSidebarFacetsFromStore: the window reads each session's agent, model
// and failures from the store, so the sidebar's filters and agent badges
// work; a session with new events is read again.
func TestSidebarFacetsFromStore(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	claude, _, err := st.Sessions().CreateWithEvents(bg, "main", "c", []codec.Event{codec.Init("/w", "claude-sonnet-4-5"), codec.UserMessage("q"), codec.Complete(false, 1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	codex, _, err := st.Sessions().CreateWithEvents(bg, "main", "x", []codec.Event{codec.Init("/w", "gpt-5-codex"), codec.UserMessage("q")})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := st.Sessions().Create(bg, "main", "empty")
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	pw := testWindow(t, fa, wt)
	defer pw.close()
	pw.list.refresh()
	pw.wg.Wait()
	sb := pw.mv.Sidebar()
	shown := func() string { // by id: the sidebar's order follows the sessions' times, equal within a second
		var out []string
		for _, s := range sb.Shown() {
			out = append(out, fmt.Sprintf("%d:%s", s.Ref.ID, s.Agent))
		}
		return sorted(out...)
	}
	if got, want := shown(), sorted(fmt.Sprintf("%d:Codex", codex.ID), fmt.Sprintf("%d:Claude", claude.ID), fmt.Sprintf("%d:", plain.ID)); got != want {
		t.Errorf("sidebar shows %s, want %s", got, want)
	}
	sb.SetFilter(views.SidebarFilter{Failed: true})
	if got, want := shown(), sorted(fmt.Sprintf("%d:Claude", claude.ID)); got != want {
		t.Errorf("failed turns only: %s, want %s", got, want)
	}
	sb.SetFilter(views.SidebarFilter{Model: "gpt-5-codex"})
	if got, want := shown(), sorted(fmt.Sprintf("%d:Codex", codex.ID)); got != want {
		t.Errorf("model gpt-5-codex: %s, want %s", got, want)
	}
	// New events: the session is read again.
	st2, err := pw.store(wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st2.Events().Append(bg, plain.ID, []codec.Event{codec.Init("/w", "gpt-5-codex")}); err != nil {
		t.Fatal(err)
	}
	pw.list.refresh()
	pw.wg.Wait()
	if got := shown(); got != sorted(fmt.Sprintf("%d:Codex", plain.ID), fmt.Sprintf("%d:Codex", codex.ID)) {
		t.Errorf("after new events in the empty session: %s", got)
	}
}

// TestSidebarFacetsKeptBetweenRuns: a window saves the facets it read in
// the cache folder, and the next window on the store uses them for the
// sessions that did not change (it does not decode their events again); a
// cache file that cannot be read is read again from the store.
func TestSidebarFacetsKeptBetweenRuns(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	id, _, err := st.Sessions().CreateWithEvents(bg, "main", "c", []codec.Event{codec.Init("/w", "claude-sonnet-4-5"), codec.UserMessage("q")})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	agentIn := func() string {
		t.Helper()
		pw := testWindow(t, fa, wt)
		defer pw.close()
		pw.list.refresh()
		pw.wg.Wait()
		for _, s := range pw.mv.Sidebar().Shown() {
			if s.Ref.ID == id.ID {
				return s.Agent + " " + pw.list.facets.byID[s.Ref].facets.Model
			}
		}
		return "not shown"
	}
	if got := agentIn(); got != "Claude claude-sonnet-4-5" {
		t.Fatalf("first window: %q", got)
	}
	path := facetsFile(wt.StorePath)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("no facets saved: %v", err)
	}
	// Edited in the file: a second window that shows the edit read the file.
	edited := strings.ReplaceAll(strings.ReplaceAll(string(b), "claude-sonnet-4-5", "gpt-5-codex"), `"Claude"`, `"Codex"`)
	if err := os.WriteFile(path, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := agentIn(); got != "Codex gpt-5-codex" {
		t.Errorf("second window: %q, want the saved facets", got)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := agentIn(); got != "Claude claude-sonnet-4-5" {
		t.Errorf("after a damaged cache file: %q, want the store's facets", got)
	}
}

// sorted is v sorted, as text: the sidebar's order is not what these tests check.
func sorted(v ...string) string {
	slices.Sort(v)
	return fmt.Sprint(v)
}
