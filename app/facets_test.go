package app

import (
	"context"
	"fmt"
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
	shown := func() string {
		var out []string
		for _, s := range sb.Shown() {
			out = append(out, fmt.Sprintf("%d:%s", s.Ref.ID, s.Agent))
		}
		return fmt.Sprint(out)
	}
	if got, want := shown(), fmt.Sprint([]string{fmt.Sprintf("%d:Codex", codex.ID), fmt.Sprintf("%d:Claude", claude.ID), fmt.Sprintf("%d:", plain.ID)}); got != want {
		t.Errorf("sidebar shows %s, want %s", got, want)
	}
	sb.SetFilter(views.SidebarFilter{Failed: true})
	if got, want := shown(), fmt.Sprint([]string{fmt.Sprintf("%d:Claude", claude.ID)}); got != want {
		t.Errorf("failed turns only: %s, want %s", got, want)
	}
	sb.SetFilter(views.SidebarFilter{Model: "gpt-5-codex"})
	if got, want := shown(), fmt.Sprint([]string{fmt.Sprintf("%d:Codex", codex.ID)}); got != want {
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
	if got := shown(); got != fmt.Sprint([]string{fmt.Sprintf("%d:Codex", plain.ID), fmt.Sprintf("%d:Codex", codex.ID)}) {
		t.Errorf("after new events in the empty session: %s", got)
	}
}
