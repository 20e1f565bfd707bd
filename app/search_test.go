package app

import (
	"context"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// TestSearchAcrossWorktrees indexes the stores of two worktrees, searches
// them together and opens a hit.
func TestSearchAcrossWorktrees(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	fa := test.NewTempApp(t)
	dir := t.TempDir()
	wts := []Worktree{
		{Dir: filepath.Join(dir, "main"), Branch: "main", StorePath: filepath.Join(dir, "main", StoreRelPath)},
		{Dir: filepath.Join(dir, "feat"), Branch: "feat", StorePath: filepath.Join(dir, "feat", StoreRelPath)},
		{Dir: filepath.Join(dir, "empty"), Branch: "empty", StorePath: filepath.Join(dir, "empty", StoreRelPath)},
	}
	bg := context.Background()
	for i, wt := range wts[:2] {
		st, err := store.Open(bg, wt.StorePath)
		if err != nil {
			t.Fatal(err)
		}
		events := []store.Event{store.UserMessage("find the zorblex bug"), store.AssistantText("filler reply")}
		for range 30 {
			events = append(events, store.AssistantText("more filler"))
		}
		events = append(events, store.AssistantText("zorblex fixed in "+wt.Branch))
		if _, _, err := st.CreateSessionWithEvents(bg, wt.Branch, "work "+string(rune('A'+i)), events); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	ctx, cancel := context.WithCancel(bg)
	pw := &projectWindow{ui: &gui{ctx: bg, fa: fa}, wts: wts, ctx: ctx, cancel: cancel, stores: map[string]*store.Store{},
		runs: map[views.SessionRef]*runState{}, compactModels: map[views.SessionRef]string{}}
	pw.mv = views.NewMainView(pw)
	pw.win = test.NewTempWindow(t, pw.mv.Content())
	pw.search = newSearcher(pw)
	defer func() {
		pw.close()
		pw.search.closeAll()
	}()

	pw.search.updateAll(ctx)
	res := pw.search.searchAll(ctx, "ZORBLEX")
	if res.Err != "" || len(res.Hits) != 4 {
		t.Fatalf("search = %+v", res)
	}
	branches := map[string]int{}
	for _, h := range res.Hits {
		branches[h.Worktree]++
	}
	if branches["main"] != 2 || branches["feat"] != 2 {
		t.Errorf("hits per worktree = %v", branches)
	}
	if res := pw.search.searchAll(ctx, "z"); res.Err != "Query too short: type at least 2 characters." {
		t.Errorf("one-letter search = %+v", res)
	}

	// Opening the first user prompt shows its session, scrolled to it.
	var hit views.SearchHit
	for _, h := range res.Hits {
		if h.Kind == string(store.KindUserMessage) && h.Worktree == "feat" {
			hit = h
		}
	}
	pw.OpenSearchHit(hit)
	pw.wg.Wait() // the session loads in the background
	pw.mu.Lock()
	current, pending := pw.current, pw.showEvent
	pw.mu.Unlock()
	if current != hit.Ref || pending != nil {
		t.Errorf("after opening %v: current %v, pending %v", hit.Ref, current, pending)
	}
	if got := pw.mv.Transcript().Session().ID; got != hit.Ref.ID {
		t.Errorf("transcript shows session %d", got)
	}

	// Progress reaches the panel's status line.
	pw.search.setProgress(wts[0].StorePath, 45, 100)
	pw.search.panel.SetResults(0, views.SearchResults{})
	if got := pw.search.panel.Status(); got != "Indexing… 45%" {
		t.Errorf("status = %q", got)
	}
	pw.search.setProgress(wts[0].StorePath, 100, 100)
	if got := pw.search.panel.Status(); got != "" {
		t.Errorf("status after indexing = %q", got)
	}
}
