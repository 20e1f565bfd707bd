package app

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sort"
	"strings"
	"sync"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// maxSkipNotes bounds the skipped files and sessions listed in the dialog.
const maxSkipNotes = 5

// nativeImport is one Import native history dialog and the work behind
// it: the scan, then the import of the sessions the user checked. Each
// session goes to the store of the worktree it ran in (the deepest one),
// else to the worktree shown. It implements views.NativeImportActions.
type nativeImport struct {
	pw         *projectWindow
	dlg        *views.NativeImportDialog
	claudeHome string

	mu       sync.Mutex
	sessions map[string]nativeTarget // by views.NativeRow.Key
	cancel   context.CancelFunc      // of the running import
}

// nativeTarget is a scanned session and the worktree it imports into.
type nativeTarget struct {
	session native.Session
	wt      Worktree
}

// onImportNative opens the dialog and scans the history in the background.
func (im *importer) onImportNative() {
	if im.pw.readOnly {
		im.pw.showError("import native history", errReadOnly)
		return
	}
	ni := &nativeImport{pw: im.pw, sessions: map[string]nativeTarget{}}
	ni.dlg = views.ShowNativeImport(im.pw.win, ni)
	im.pw.wg.Go(ni.scan)
}

// scan finds the native sessions and shows them with their state.
func (ni *nativeImport) scan() {
	dirs, err := native.DefaultDirs()
	var scan native.ScanResult
	if err == nil {
		ni.claudeHome = native.ClaudeHomeOf(dirs[native.Claude])
		scan, err = native.Scan(ni.pw.ctx, native.Options{Dirs: dirs, PreviewCache: native.DefaultPreviewCache()})
	}
	if err != nil {
		log.Printf("import native history: %v", err)
		onUI(func() { ni.dlg.SetScanError(project.OneLine(err)) })
		return
	}
	rows, err := ni.rows(scan)
	if err != nil {
		log.Printf("import native history: %v", err)
		onUI(func() { ni.dlg.SetScanError(project.OneLine(err)) })
		return
	}
	notes := scanNotes(scan)
	log.Printf("import native history: %d sessions found, %d files unreadable", len(rows), len(scan.Skipped))
	onUI(func() { ni.dlg.SetRows(rows, notes) })
}

// rows turns the scan into the dialog's rows, newest first, with each
// session's state in the store it would import into.
func (ni *nativeImport) rows(scan native.ScanResult) ([]views.NativeRow, error) {
	records := map[string]map[store.NativeKey]store.NativeImport{}
	rows := make([]views.NativeRow, 0, len(scan.Sessions))
	sessions := map[string]nativeTarget{}
	for _, n := range scan.Sessions {
		wt, in := ni.pw.imports.nativeTarget(n)
		recs, ok := records[wt.StorePath]
		if !ok {
			st, err := ni.pw.store(wt.StorePath)
			if err != nil {
				return nil, err
			}
			if recs, err = st.Native().Imports(ni.pw.ctx); err != nil {
				return nil, err
			}
			records[wt.StorePath] = recs
		}
		state := string(n.State(recs))
		if n.Own != "" && state == string(native.StateNew) {
			state = "own run"
		}
		key := n.Key().String()
		sessions[key] = nativeTarget{session: n, wt: wt}
		rows = append(rows, views.NativeRow{Key: key, Agent: n.Agent, Project: n.Cwd, Started: n.Started,
			Size: n.TotalSize(), FirstPrompt: n.Title(), Subagents: len(n.Subagents), State: state, InProject: in})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Started.After(rows[j].Started) })
	ni.mu.Lock()
	ni.sessions = sessions
	ni.mu.Unlock()
	return rows, nil
}

// scanNotes describes missing history folders and unreadable files.
func scanNotes(scan native.ScanResult) []string {
	var notes []string
	for _, r := range scan.Roots {
		if !r.Found {
			notes = append(notes, fmt.Sprintf("%s history %s: %s", r.Agent, r.Path, r.Note))
		}
	}
	for i, s := range scan.Skipped {
		if i == maxSkipNotes {
			notes = append(notes, "… and "+display.Plural(len(scan.Skipped)-i, "more unreadable file"))
			break
		}
		notes = append(notes, "Unreadable: "+s.Path+": "+s.Reason)
	}
	return notes
}

// nativeTarget returns the worktree a native session imports into: the
// deepest of the window's worktrees it ran in (in is true), else the
// worktree shown.
func (im *importer) nativeTarget(n native.Session) (wt Worktree, in bool) {
	best := -1
	for i, w := range im.pw.wts {
		if w.Dir != "" && n.RanIn(w.Dir) && (best < 0 || len(w.Dir) > len(im.pw.wts[best].Dir)) {
			best = i
		}
	}
	if best >= 0 {
		return im.pw.wts[best], true
	}
	return im.targetWorktree(), false
}

// ImportNative imports the sessions of keys, store by store, reporting
// progress to the dialog, then refreshes the sidebar.
func (ni *nativeImport) ImportNative(keys []string) {
	ctx, cancel := context.WithCancel(ni.pw.ctx)
	ni.mu.Lock()
	ni.cancel = cancel
	groups := ni.groups(keys)
	ni.mu.Unlock()
	ni.pw.wg.Go(func() {
		defer cancel()
		summary := ni.run(ctx, groups)
		ni.pw.list.refresh()
		states := ni.states(groups)
		onUI(func() {
			ni.dlg.SetStates(states)
			ni.dlg.Finish(summary)
		})
	})
}

// CancelNativeImport stops the import after the session being stored.
func (ni *nativeImport) CancelNativeImport() {
	ni.mu.Lock()
	defer ni.mu.Unlock()
	if ni.cancel != nil {
		ni.cancel()
	}
}

// states returns the state of the groups' sessions in their stores now,
// by row key; sessions whose store cannot be read are left out.
func (ni *nativeImport) states(groups []nativeGroup) map[string]string {
	out := map[string]string{}
	for _, g := range groups {
		st, err := ni.pw.store(g.wt.StorePath)
		if err != nil {
			continue
		}
		recs, err := st.Native().Imports(ni.pw.ctx)
		if err != nil {
			continue
		}
		for _, n := range g.sessions {
			out[n.Key().String()] = string(n.State(recs))
		}
	}
	return out
}

// nativeGroup is the sessions that import into one store.
type nativeGroup struct {
	wt       Worktree
	sessions []native.Session
}

// groups splits keys by target store, in the order of the window's
// worktrees. ni.mu must be held.
func (ni *nativeImport) groups(keys []string) []nativeGroup {
	var out []nativeGroup
	index := map[string]int{}
	for _, k := range keys {
		t, ok := ni.sessions[k]
		if !ok {
			continue
		}
		i, ok := index[t.wt.StorePath]
		if !ok {
			i = len(out)
			index[t.wt.StorePath] = i
			out = append(out, nativeGroup{wt: t.wt})
		}
		out[i].sessions = append(out[i].sessions, t.session)
	}
	return out
}

// run imports the groups and returns the summary for the dialog.
func (ni *nativeImport) run(ctx context.Context, groups []nativeGroup) string {
	var totalFiles int
	var totalBytes int64
	for _, g := range groups {
		for _, n := range g.sessions {
			totalFiles += 1 + len(n.Subagents)
			totalBytes += n.TotalSize()
		}
	}
	var (
		results   []native.Result
		doneFiles int
		doneBytes int64
		err       error
	)
	for _, g := range groups {
		var st *store.Store
		if st, err = ni.pw.store(g.wt.StorePath); err != nil {
			break
		}
		branch := g.wt.Branch
		if branch == "" {
			branch = project.BranchOf(g.wt.Dir)
		}
		files, bytes := doneFiles, doneBytes
		stored, indexed := ni.pw.search.importFeed(ctx, st)
		var rs []native.Result
		rs, err = native.Import(ctx, st, g.sessions, native.ImportOptions{
			Stored: stored,
			// Changed files are never checked by default: one the user
			// checked is imported again as a new session.
			// Sessions are recorded under the branch of the worktree whose
			// store they go to: the branch the agent recorded may be no
			// worktree of this project (a branch since deleted, or checked
			// out in the main worktree then), a phantom sidebar group.
			Worktree: branch, ClaudeHome: ni.claudeHome, Reimport: true,
			Progress: func(p native.Progress) {
				onUI(func() { ni.dlg.SetProgress(files+p.Files, totalFiles, bytes+p.Bytes, totalBytes) })
			},
		})
		indexed()
		results = append(results, rs...)
		for _, n := range g.sessions {
			doneFiles += 1 + len(n.Subagents)
			doneBytes += n.TotalSize()
		}
		if err != nil {
			break
		}
	}
	return nativeSummary(results, err)
}

// nativeSummary is the dialog's closing text: the counts, why sessions
// were skipped, and how the import ended.
func nativeSummary(results []native.Result, err error) string {
	lines := []string{native.Summarize(results, 0).String()}
	skipped := 0
	for _, r := range results {
		if r.Outcome != native.Skipped {
			continue
		}
		if skipped++; skipped <= maxSkipNotes {
			lines = append(lines, "Skipped "+r.Agent+" "+r.ID+": "+r.Reason)
		}
	}
	if skipped > maxSkipNotes {
		lines = append(lines, fmt.Sprintf("… and %d more skipped", skipped-maxSkipNotes))
	}
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled):
		lines = append(lines, "Cancelled: every session listed as imported is complete; import again to do the rest.")
	default:
		log.Printf("import native history: %v", err)
		lines = append(lines, "Stopped: "+project.OneLine(userMessage(err)))
	}
	log.Printf("import native history: %s", lines[0])
	return strings.Join(lines, "\n")
}
