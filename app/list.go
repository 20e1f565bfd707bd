package app

import (
	"path/filepath"
	"sort"
	"sync"

	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// sessionList owns the sidebar's list: the sessions of every store grouped
// by worktree, with their lifecycle marks (lifecycle.go) and filter facets
// (facets.go), and the intents that create, rename and delete sessions.
type sessionList struct {
	pw *projectWindow
	// refreshing lets one refresh run at a time: two at once could show
	// the older list last, and they would update the sidebar in turns.
	refreshing sync.Mutex

	mu           sync.Mutex
	showArchived bool       // the sidebar lists archived sessions (lifecycle.go)
	facets       facetCache // the sidebar filters' facets (facets.go)
}

// refresh reloads the session list of every store in the background.
func (sl *sessionList) refresh() { sl.pw.wg.Go(sl.refreshList) }

// refreshList reloads the session list of every store, off the Fyne
// goroutine.
func (sl *sessionList) refreshList() {
	sl.refreshing.Lock()
	defer sl.refreshing.Unlock()
	groups, complete, errs := sl.listGroupsQuick()
	sl.markLifecycle(groups)
	if !complete {
		quick := groups
		onUI(func() { sl.pw.mv.Sidebar().Apply(quick) }) // the counts follow
		groups, errs = sl.listGroups()
		sl.markLifecycle(groups)
	}
	for _, err := range errs {
		sl.pw.showError("read sessions", err)
	}
	onUI(func() { sl.pw.mv.Sidebar().Apply(groups) })
	sl.pw.first.update(groups)
	sl.refreshFacets(groups)
}

// listGroups lists the sessions of every worktree, grouped by the branch
// recorded in each session (a store can hold sessions of other branches).
func (sl *sessionList) listGroups() ([]views.WorktreeGroup, []error) {
	var groups []views.WorktreeGroup
	var errs []error
	running := sl.pw.runner.running()
	for _, wt := range sl.pw.wts {
		st, err := sl.pw.store(wt.StorePath)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sessions, err := st.Sessions().List(sl.pw.ctx, "")
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
func (sl *sessionList) listGroupsQuick() (groups []views.WorktreeGroup, complete bool, errs []error) {
	running := sl.pw.runner.running()
	complete = true
	for _, wt := range sl.pw.wts {
		st, err := sl.pw.store(wt.StorePath)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		sessions, counted, err := st.Sessions().ListQuick(sl.pw.ctx, "")
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

// onNewSession (Ctrl+N, Session › New session) starts a new session in the
// worktree the window was opened on, whatever session it shows (one
// remembered from another worktree, say). The sidebar's New button starts
// one in the group of the selected session.
func (sl *sessionList) onNewSession() {
	if len(sl.pw.wts) == 0 {
		return
	}
	wt := sl.pw.wts[0]
	branch := wt.Branch
	if branch == "" { // a bare store: the sidebar's first group
		if g := sl.pw.mv.Sidebar().Groups(); len(g) > 0 && g[0].StorePath == wt.StorePath {
			branch = g[0].Worktree
		}
	}
	sl.pw.shown.NewSession(wt.StorePath, branch)
}

// RenameSession renames ref.
func (sl *sessionList) RenameSession(ref views.SessionRef, name string) {
	sl.write("rename session", func(st *store.Store) error {
		return st.Sessions().Rename(sl.pw.ctx, ref.ID, name)
	}, ref)
}

// DeleteSession deletes ref with its events and compactions.
func (sl *sessionList) DeleteSession(ref views.SessionRef) {
	sl.write("delete session", func(st *store.Store) error {
		if err := st.Sessions().Delete(sl.pw.ctx, ref.ID); err != nil {
			return err
		}
		if sl.pw.shown.forget(ref) {
			onUI(sl.pw.mv.ClearSession)
		}
		return nil
	}, ref)
}

// write runs a write against ref's store in the background, then refreshes.
func (sl *sessionList) write(what string, fn func(*store.Store) error, ref views.SessionRef) {
	if sl.pw.readOnly {
		sl.pw.showError(what, errReadOnly)
		return
	}
	sl.pw.wg.Go(func() {
		st, err := sl.pw.store(ref.StorePath)
		if err == nil {
			err = fn(st)
		}
		if err != nil {
			sl.pw.showError(what, err)
			return
		}
		sl.refresh()
		sl.pw.shown.reloadCurrentHeader(ref)
	})
}
