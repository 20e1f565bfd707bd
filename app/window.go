package app

import (
	"context"
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"sort"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// projectWindow is one window over the stores of a project (or one store
// opened read-only). It implements views.Actions: intents arrive on the Fyne
// goroutine, the work runs on background goroutines, and the results come
// back through fyne.Do.
type projectWindow struct {
	ui       *gui
	win      fyne.Window
	mv       *views.MainView
	wts      []Worktree
	readOnly bool
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup // the window's goroutines (wg.Go), waited for when it closes

	mu        sync.Mutex
	stores    map[string]*store.Store // by path, opened lazily
	current   views.SessionRef        // the session shown
	lastSeq   int64                   // the last seq shown of current
	firstSeq  int64                   // the first seq shown of current (earlier ones load on request)
	compCount int                     // compactions shown of current
	loadGen   int                     // bumps on every session switch

	runs           map[views.SessionRef]*runState // agents running, by session
	backends       []views.BackendStatus          // the CLIs as last detected
	compactor      *agents.Compactor              // nil in read-only windows
	compactModels  map[views.SessionRef]string    // model of each queued compaction
	stopNativeSync context.CancelFunc             // stops keeping native history in sync; nil when off
	facets         facetCache                     // the sidebar filters' facets (facets.go)
	// compactWaiters are the run workflows waiting for a session's
	// compaction (compactForRun); created on first use.
	compactWaiters map[views.SessionRef][]chan agents.CompactNotice
	currentChars   int64            // context characters of current
	focusPrompt    views.SessionRef // a new session whose prompt box gets the focus
	showArchived   bool             // the sidebar lists archived sessions (lifecycle.go)
	banner         string           // the banner text shown
	statusRef      views.SessionRef // the session the prompt box's status is about (setStatus)
	// newWorktree is the worktree of the new session shown (current has id
	// 0, see NewSession): it is stored when its first prompt's agent starts.
	newWorktree string
	// firstRun is what the first-run panel shows (firstrun.go); its Native
	// is -1 until counted, once per window.
	firstRun         views.FirstRun
	firstRunCounting bool

	search    *searcher    // the search index and panel (Ctrl+K)
	showEvent *eventTarget // the event a search hit shows once its session is loaded
}

func newProjectWindow(ui *gui, title string, wts []Worktree, readOnly bool) *projectWindow {
	ctx, cancel := context.WithCancel(ui.ctx)
	pw := &projectWindow{ui: ui, wts: wts, readOnly: readOnly, ctx: ctx, cancel: cancel, stores: map[string]*store.Store{},
		runs: map[views.SessionRef]*runState{}, compactModels: map[views.SessionRef]string{}}
	pw.firstRun.Native = -1
	pw.win = ui.fa.NewWindow(title)
	pw.mv = views.NewMainView(pw)
	pw.mv.PromptBox().SetModels(modelChoices())
	if !readOnly {
		pw.compactor = agents.NewCompactor(pw.store, pw.compactOptions, pw.onCompactNotice)
		pw.wg.Go(func() { _ = pw.compactor.Run(pw.ctx) })
		pw.detectBackends()
	}
	pw.win.SetContent(pw.mv.Content())
	pw.mv.BindShortcuts(pw.win.Canvas())
	pw.search = newSearcher(pw)
	pw.wg.Go(func() { pw.search.run(pw.ctx) })
	pw.win.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) { pw.onDropped(uris) })
	pw.win.SetOnClosed(pw.close)
	pw.wg.Go(pw.watch)
	pw.refresh()
	return pw
}

// close stops the window's goroutines and closes its stores.
func (pw *projectWindow) close() {
	pw.cancel()
	pw.wg.Wait()
	pw.mu.Lock()
	defer pw.mu.Unlock()
	for _, st := range pw.stores {
		if err := st.Close(); err != nil {
			log.Printf("close store %s: %v", st.Path(), err)
		}
	}
	pw.stores = map[string]*store.Store{}
}

// store returns the open store at path, opening it on first use.
func (pw *projectWindow) store(path string) (*store.Store, error) {
	pw.mu.Lock()
	defer pw.mu.Unlock()
	if st, ok := pw.stores[path]; ok {
		return st, nil
	}
	open := store.Open
	if pw.readOnly {
		open = store.OpenReadOnly
	}
	st, err := open(pw.ctx, path)
	if err != nil {
		return nil, err
	}
	st.SetKeepFullText(pw.keepFullText())
	pw.stores[path] = st
	if !pw.readOnly {
		pw.wg.Go(func() { excludeStore(path) })
	}
	return st, nil
}

// showError reports err in a dialog with a short message; the full chain is
// logged.
func (pw *projectWindow) showError(what string, err error) {
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	log.Printf("%s: %v", what, err)
	fyne.Do(func() { dialog.ShowError(fmt.Errorf("%s: %w", what, userMessage(err)), pw.win) })
}

// userMessage keeps the part of err a user can act on.
func userMessage(err error) error {
	var fe *store.FormatError
	if errors.As(err, &fe) {
		return fe
	}
	return err
}

// refresh reloads the session list of every store in the background.
func (pw *projectWindow) refresh() { pw.wg.Go(pw.refreshList) }

// refreshList reloads the session list of every store, off the Fyne
// goroutine.
func (pw *projectWindow) refreshList() {
	groups, complete, errs := pw.listGroupsQuick()
	pw.markLifecycle(groups)
	if !complete {
		quick := groups
		fyne.Do(func() { pw.mv.Sidebar().Apply(quick) }) // the counts follow
		groups, errs = pw.listGroups()
		pw.markLifecycle(groups)
	}
	for _, err := range errs {
		pw.showError("read sessions", err)
	}
	fyne.Do(func() { pw.mv.Sidebar().Apply(groups) })
	pw.updateFirstRun(groups)
	pw.refreshFacets(groups)
}

// listGroups lists the sessions of every worktree, grouped by the branch
// recorded in each session (a store can hold sessions of other branches).
func (pw *projectWindow) listGroups() ([]views.WorktreeGroup, []error) {
	var groups []views.WorktreeGroup
	var errs []error
	running := pw.running()
	for _, wt := range pw.wts {
		st, err := pw.store(wt.StorePath)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sessions, err := st.ListSessions(pw.ctx, "")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, g := range groupByWorktree(wt, sessions) {
			g.Running = running[wt.StorePath]
			groups = append(groups, g)
		}
	}
	return groups, errs
}

// listGroupsQuick is listGroups for a store seen for the first time: its
// sessions in order without counting their messages (see
// store.ListSessionsQuick), which takes a moment on a big store. complete
// reports that every store had its counts cached: the groups are then
// listGroups' own.
func (pw *projectWindow) listGroupsQuick() (groups []views.WorktreeGroup, complete bool, errs []error) {
	running := pw.running()
	complete = true
	for _, wt := range pw.wts {
		st, err := pw.store(wt.StorePath)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sessions, counted, err := st.ListSessionsQuick(pw.ctx, "")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		complete = complete && counted
		for _, g := range groupByWorktree(wt, sessions) {
			g.Running = running[wt.StorePath]
			groups = append(groups, g)
		}
	}
	if !complete {
		errs = nil // listGroups follows, and reports them
	}
	return groups, complete, errs
}

// groupByWorktree splits a store's sessions by their worktree column, the
// worktree's own branch first, keeping AZUREAL's order inside each group.
// A bare store (a file opened directly, of no worktree) groups its
// sessions the same way; only those without a worktree go under the
// file's name, a group it shows only when it has some.
func groupByWorktree(wt Worktree, sessions []store.Session) []views.WorktreeGroup {
	branch := wt.Branch
	if branch == "" {
		branch = filepath.Base(wt.StorePath)
	}
	byBranch := map[string][]store.Session{branch: nil}
	order := []string{branch}
	for _, s := range sessions {
		b := s.Worktree
		if b == "" {
			b = branch
		}
		if _, ok := byBranch[b]; !ok {
			order = append(order, b)
		}
		byBranch[b] = append(byBranch[b], s)
	}
	sort.SliceStable(order[1:], func(i, j int) bool { return order[1+i] < order[1+j] })
	groups := make([]views.WorktreeGroup, 0, len(order))
	for _, b := range order {
		if b == branch && wt.Branch == "" && len(byBranch[b]) == 0 && len(order) > 1 {
			continue // a bare store whose sessions all name their worktree
		}
		groups = append(groups, views.WorktreeGroup{Worktree: b, StorePath: wt.StorePath, Sessions: byBranch[b]})
	}
	return groups
}
