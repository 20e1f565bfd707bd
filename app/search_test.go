package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// searchWindow is a project window on wts with its searcher, closed when
// the test ends.
func searchWindow(t *testing.T, fa fyne.App, wts []Worktree) (*projectWindow, context.Context) {
	pw := testWindow(t, fa, wts...)
	pw.search = newSearcher(pw)
	t.Cleanup(func() {
		pw.close()
		pw.search.closeAll()
	})
	return pw, pw.ctx
}

// TestSearchDamagedIndexStatus: an index found damaged when the window
// opens it is rebuilt, and the search panel's status says so.
func TestSearchDamagedIndexStatus(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	fa := test.NewTempApp(t)
	dir := t.TempDir()
	wt := Worktree{Dir: dir, Branch: "main", StorePath: filepath.Join(dir, StoreRelPath)}
	st, err := store.Open(context.Background(), wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", "s", []codec.Event{codec.UserMessage("find the zorblex bug")}); err != nil {
		t.Fatal(err)
	}
	x, err := search.Open(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := x.Update(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	x.Close()
	st.Close()
	if err := os.WriteFile(x.Path(), []byte("not an index, long enough to look like a header to SQLite............................"), 0o600); err != nil {
		t.Fatal(err)
	}

	pw, ctx := searchWindow(t, fa, []Worktree{wt})
	pw.search.updateAll(ctx)
	pw.search.panel.SetResults(0, views.SearchResults{})
	if got := pw.search.panel.Status(); !strings.Contains(got, "was damaged; it was rebuilt") {
		t.Errorf("status = %q", got)
	}
	if res := pw.search.searchAll(ctx, "zorblex"); len(res.Hits) != 1 {
		t.Errorf("search after the rebuild = %+v", res)
	}
}

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
		events := []codec.Event{codec.UserMessage("find the zorblex bug"), codec.AssistantText("filler reply")}
		for range 30 {
			events = append(events, codec.AssistantText("more filler"))
		}
		events = append(events, codec.AssistantText("zorblex fixed in "+wt.Branch))
		if _, _, err := st.Sessions().CreateWithEvents(bg, wt.Branch, "work "+string(rune('A'+i)), events); err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	pw, ctx := searchWindow(t, fa, wts)

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
		if h.Kind == string(codec.KindUserMessage) && h.Worktree == "feat" {
			hit = h
		}
	}
	pw.shown.OpenSearchHit(hit)
	pw.wg.Wait() // the session loads in the background
	pw.shown.mu.Lock()
	current, pending := pw.shown.current, pw.shown.showEvent
	pw.shown.mu.Unlock()
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

// The panel sends every key typed; the search waits a moment off the Fyne
// goroutine before it reads the index, and a newer query cancels that
// wait: a word typed quickly reads the index once, for its last form, and
// its results reach the panel.
func TestSearchWaitsForTheNextKey(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	fa := test.NewTempApp(t)
	wt := zorblexWorktree(t)
	pw, ctx := searchWindow(t, fa, []Worktree{wt})
	pw.search.updateAll(ctx)
	var mu sync.Mutex
	var read []string
	pw.search.started = func(q string) {
		mu.Lock()
		read = append(read, q)
		mu.Unlock()
	}
	typed := make(chan time.Time) // the pause ends when the word is typed
	waiting := make(chan struct{})
	pw.search.pause = func() <-chan time.Time {
		waiting <- struct{}{}
		return typed
	}
	pw.search.panel.Show(pw.win.Canvas())
	entry := pw.win.Canvas().Focused()
	if entry == nil {
		t.Fatal("nothing has the focus in the search panel")
	}
	for _, r := range "zorblex" {
		test.Type(entry, string(r))
		select { // the key's query is in its pause before the next key comes
		case <-waiting:
		case <-time.After(10 * time.Second):
			t.Fatalf("the query of %q did not pause", r)
		}
	}
	close(typed)
	pw.wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(read) != 1 || read[0] != "zorblex" {
		t.Errorf("queries that read the index: %q, want only the last", read)
	}
	if hits := pw.search.panel.Hits(); len(hits) != 1 {
		t.Errorf("the panel shows %d hits", len(hits))
	}
}

// Opening a hit from the Ctrl+K panel keeps the window frozen under where
// the panel was until the hit's session is shown, then shows the window
// again at once.
func TestOpenHitThawsTheWindow(t *testing.T) {
	t.Setenv(store.CacheDirEnv, t.TempDir())
	fa := test.NewTempApp(t)
	wt := zorblexWorktree(t)
	pw, ctx := searchWindow(t, fa, []Worktree{wt})
	pw.win.Resize(fyne.NewSize(1000, 700))
	pw.search.updateAll(ctx)
	panel, b := pw.search.panel, pw.mv.Backdrop()
	serialUI(func() { panel.Show(pw.win.Canvas()) })
	if !b.Frozen() {
		t.Fatal("the window is not frozen under the panel")
	}
	res := pw.search.searchAll(ctx, "zorblex")
	serialUI(func() { panel.SetQuery("zorblex") })
	pw.wg.Wait()
	if len(panel.Hits()) != 1 {
		t.Fatalf("the panel shows %d hits", len(panel.Hits()))
	}
	serialUI(func() { pw.win.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn}) })
	pw.wg.Wait() // the session loads in the background
	if b.Frozen() {
		t.Error("the window is still frozen after the hit's session was shown")
	}
	if got := pw.mv.Transcript().Session().ID; got != res.Hits[0].Ref.ID {
		t.Errorf("the transcript shows session %d", got)
	}
}

// zorblexWorktree returns a worktree whose store holds one session with
// one prompt, "find the zorblex bug".
func zorblexWorktree(t *testing.T) Worktree {
	t.Helper()
	wt, st := openTestWorktree(t)
	defer st.Close()
	if _, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", "s", []codec.Event{codec.UserMessage("find the zorblex bug")}); err != nil {
		t.Fatal(err)
	}
	return wt
}
