package app

import (
	"context"
	"fmt"
	"log"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// insightKeeper holds the insight index of each of the window's stores.
// The searcher's background pass updates them right after the search
// indexes; the Insights and SQL windows read them.
type insightKeeper struct {
	mu      sync.Mutex
	indexes map[string]*insight.Index // by store path
	failed  map[string]bool
	closed  bool
}

func newInsightKeeper() *insightKeeper {
	return &insightKeeper{indexes: map[string]*insight.Index{}, failed: map[string]bool{}}
}

// index returns the open index of st, opening it on first use; nil when
// it cannot be used.
func (k *insightKeeper) index(ctx context.Context, st *store.Store) *insight.Index {
	k.mu.Lock()
	defer k.mu.Unlock()
	path := st.Path()
	if x, ok := k.indexes[path]; ok || k.failed[path] || k.closed {
		return x
	}
	x, err := insight.Open(ctx, st)
	if err != nil {
		log.Printf("insight index: %v", err)
		k.failed[path] = true
		return nil
	}
	k.indexes[path] = x
	return x
}

// update brings st's index up to date; errors are logged.
func (k *insightKeeper) update(ctx context.Context, st *store.Store) *insight.Index {
	x := k.index(ctx, st)
	if x == nil {
		return nil
	}
	if _, err := x.Update(ctx); err != nil {
		if ctx.Err() == nil {
			log.Printf("insight index: %v", err)
		}
		return nil
	}
	return x
}

// closeAll closes the indexes.
func (k *insightKeeper) closeAll() {
	k.mu.Lock()
	defer k.mu.Unlock()
	for path, x := range k.indexes {
		if err := x.Close(); err != nil {
			log.Printf("close insight index of %s: %v", path, err)
		}
	}
	k.indexes, k.closed = map[string]*insight.Index{}, true
}

// insightIndexes returns the up-to-date indexes of the given stores (all
// of the window's when paths is empty).
func (s *searcher) insightIndexes(ctx context.Context, paths []string) []*insight.Index {
	if len(paths) == 0 {
		for _, wt := range s.pw.wts {
			paths = append(paths, wt.StorePath)
		}
	}
	var out []*insight.Index
	for _, p := range paths {
		st, err := s.pw.store(p)
		if err != nil || !st.Exists() {
			continue
		}
		if x := s.insight.update(ctx, st); x != nil {
			out = append(out, x)
		}
	}
	return out
}

// toolWindows opens the window's companion windows: Insights, the SQL
// console, Team sessions (team.go) and the Chronicle reports (chronicle.go).
type toolWindows struct {
	pw *projectWindow
}

// insightsWindow is an open Insights window; it implements
// views.InsightsActions.
type insightsWindow struct {
	pw   *projectWindow
	view *views.InsightsView
	mu   sync.Mutex
	gen  int // bumps on every load; older answers are dropped
}

// showInsights opens the Insights window (Ctrl+Shift+I).
func (tl *toolWindows) showInsights() {
	w := tl.pw.newToolWindow("Insights")
	iw := &insightsWindow{pw: tl.pw}
	scopes := []views.InsightScopeOption{{Label: "Project", Scope: views.InsightScope{}}}
	for _, wt := range tl.pw.wts {
		name := wt.Branch
		if name == "" {
			name = filepath.Base(wt.StorePath)
		}
		scopes = append(scopes, views.InsightScopeOption{Label: "Worktree " + name, Scope: views.InsightScope{Store: wt.StorePath}})
	}
	if pw := tl.pw; pw.team != nil && pw.team.url != "" {
		team := views.InsightScopeOption{Label: "Team", Scope: views.InsightScope{Store: views.TeamStore}}
		if pw.mv.Sidebar().TeamShown() { // the sidebar shows the team: so do the Insights first
			scopes = append([]views.InsightScopeOption{team}, scopes...)
		} else {
			scopes = append(scopes, team)
		}
	}
	cur := tl.pw.shown.ref()
	if cur.ID != 0 && !cur.IsTeam() {
		scopes = append(scopes, views.InsightScopeOption{Label: fmt.Sprintf("Session S%d", cur.ID),
			Scope: views.InsightScope{Store: cur.StorePath, Session: cur.ID}})
	}
	iw.view = views.NewInsightsView(iw, scopes)
	w.SetContent(iw.view.Content())
	w.Resize(fyne.NewSize(1100, 760))
	w.Show()
}

// LoadInsights computes the figures of scope over the last days (0: all
// time) in the background and shows them.
func (iw *insightsWindow) LoadInsights(scope views.InsightScope, days int) {
	iw.mu.Lock()
	iw.gen++
	gen := iw.gen
	iw.mu.Unlock()
	pw := iw.pw
	pw.wg.Go(func() {
		var data views.InsightData
		var err error
		if scope.Store == views.TeamStore {
			if days == views.InsightAutoRange {
				days = defaultInsightDays
			}
			data, err = pw.team.insights(pw.ctx, days, time.Now())
			data.Range = days
		} else {
			data, err = computeInsights(pw.ctx, pw, scope, days, time.Now())
		}
		if err != nil {
			log.Printf("insights: %v", err)
		}
		onUI(func() {
			iw.mu.Lock()
			current := gen == iw.gen
			iw.mu.Unlock()
			if current && iw.view != nil {
				iw.view.SetData(data)
			}
		})
	})
}

// insightFilesLimit is the files of each store the Insights window's
// Files tab lists at most (the newest); topFilesPerStore the most touched
// paths read of each store for its Top files (exact for one store; the
// sums of several stores' tops otherwise).
const (
	insightFilesLimit = 1000
	topFilesPerStore  = 200
)

// defaultInsightDays is the range of a scope without sessions.
const defaultInsightDays = 30

// rangeWithData chooses the range the Insights window opens on, from the
// sessions started on each day: the shortest of views.InsightRangeDays
// holding at least nine in ten of them, so that a project whose history
// was imported opens on that history, not on weeks that show nothing,
// while a few old sessions do not squeeze a busy month into a sliver of
// an all-time chart. With no session at all, defaultInsightDays.
func rangeWithData(perDay map[string]int64, now time.Time) int {
	var total int64
	for _, n := range perDay {
		total += n
	}
	if total == 0 {
		return defaultInsightDays
	}
	for _, days := range views.InsightRangeDays {
		if days <= 0 {
			continue
		}
		since := now.UTC().AddDate(0, 0, 1-days).Format(time.DateOnly)
		var in int64
		for day, n := range perDay {
			if day >= since {
				in += n
			}
		}
		if 10*in >= 9*total {
			return days
		}
	}
	return 0
}

// autoRange is the range the Insights window opens on for scope
// (rangeWithData over its stores' sessions).
func autoRange(ctx context.Context, indexes []*insight.Index, session int64, now time.Time) (int, error) {
	perDay := map[string]int64{}
	for _, x := range indexes {
		days, err := x.Sessions().Days(ctx, session)
		if err != nil {
			return 0, err
		}
		for day, n := range days {
			perDay[day] += n
		}
	}
	return rangeWithData(perDay, now), nil
}

// computeInsights gathers the window's figures from the indexes over the
// last days (0: all time; views.InsightAutoRange: the range autoRange
// chooses).
func computeInsights(ctx context.Context, pw *projectWindow, scope views.InsightScope, days int, now time.Time) (views.InsightData, error) {
	var d views.InsightData
	since := ""
	var paths []string
	if scope.Store != "" {
		paths = []string{scope.Store}
	}
	indexes := pw.search.insightIndexes(ctx, paths)
	if days == views.InsightAutoRange {
		var err error
		if days, err = autoRange(ctx, indexes, scope.Session, now); err != nil {
			return d, err
		}
	}
	d.Range = days
	if days > 0 {
		since = now.UTC().AddDate(0, 0, 1-days).Format(time.DateOnly)
	}
	byDay := map[string]*views.InsightDay{}
	models, backends, worktrees := map[string]*views.InsightShare{}, map[string]*views.InsightShare{}, map[string]*views.InsightShare{}
	tools := map[string]*views.InsightTool{}
	var toolOrder []string
	topFiles := map[string]int64{}
	var topOrder []string
	for _, x := range indexes {
		usage, sessions, err := x.Usage().Summary(ctx, since, scope.Session)
		if err != nil {
			return d, err
		}
		for _, u := range usage {
			dayEntry(byDay, u.Day).Add(views.InsightDay{Tokens: u.Tokens})
			d.CostEstimated = d.CostEstimated || u.CostEstimated
			tokens := u.Total()
			for _, sh := range []struct {
				m   map[string]*views.InsightShare
				key string
			}{{models, u.Model}, {backends, u.Backend}, {worktrees, u.Worktree}} {
				share := shareEntry(sh.m, sh.key)
				share.Tokens += tokens
				share.CostUSD += u.CostUSD
			}
		}
		for _, g := range sessions {
			dayEntry(byDay, g.Day).Add(views.InsightDay{Sessions: g.Sessions, Turns: g.Turns})
			shareEntry(worktrees, g.Worktree).Sessions += g.Sessions
		}
		heat, err := x.Sessions().Heat(ctx, since, scope.Session)
		if err != nil {
			return d, err
		}
		for i := range heat {
			for j := range heat[i] {
				d.Heat[i][j] += heat[i][j]
			}
		}
		ts, err := x.Tools().Calls(ctx, since, scope.Session)
		if err != nil {
			return d, err
		}
		for _, t := range ts {
			if tools[t.Name] == nil {
				tools[t.Name] = &views.InsightTool{Name: t.Name}
				toolOrder = append(toolOrder, t.Name)
			}
			tools[t.Name].Calls += t.Calls
			tools[t.Name].Errors += t.Errors
		}
		files, err := x.Files().Newest(ctx, scope.Session, insightFilesLimit)
		if err != nil {
			return d, err
		}
		d.Files = append(d.Files, insightFiles(x, files)...)
		d.FilesLimited = d.FilesLimited || len(files) == insightFilesLimit
		top, err := x.Files().Top(ctx, since, scope.Session, topFilesPerStore)
		if err != nil {
			return d, err
		}
		for _, f := range top {
			if topFiles[f.Path] == 0 {
				topOrder = append(topOrder, f.Path)
			}
			topFiles[f.Path] += f.Count
		}
	}
	for _, day := range byDay {
		d.Total.Add(*day)
	}
	d.Days = fillDays(byDay, since, now)
	d.Models, d.Backends, d.Worktrees = shares(models), shares(backends), shares(worktrees)
	for _, name := range toolOrder {
		d.Tools = append(d.Tools, *tools[name])
	}
	sortTools(d.Tools)
	if len(d.Tools) > 15 {
		d.Tools = d.Tools[:15]
	}
	for _, p := range topOrder {
		d.TopFiles = append(d.TopFiles, views.InsightFile{Path: p, Count: topFiles[p]})
	}
	sort.SliceStable(d.TopFiles, func(i, j int) bool { return d.TopFiles[i].Count > d.TopFiles[j].Count })
	d.TopFiles = d.TopFiles[:min(len(d.TopFiles), 15)]
	return d, nil
}

// dayEntry returns the figures of day in days, added when missing.
func dayEntry(days map[string]*views.InsightDay, day string) *views.InsightDay {
	if days[day] == nil {
		days[day] = &views.InsightDay{Day: day}
	}
	return days[day]
}

// shareEntry returns the share of key in m, added when missing.
func shareEntry(m map[string]*views.InsightShare, key string) *views.InsightShare {
	if m[key] == nil {
		m[key] = &views.InsightShare{Key: key}
	}
	return m[key]
}

// fillDays returns one entry per day from since (or the first day with
// data) to today, days without data at zero.
func fillDays(days map[string]*views.InsightDay, since string, now time.Time) []views.InsightDay {
	first := since
	for k := range days {
		if first == "" || k < first {
			first = k
		}
	}
	start, err := time.Parse(time.DateOnly, first)
	if err != nil {
		return nil
	}
	end := now.UTC().Format(time.DateOnly)
	var out []views.InsightDay
	for t := start; t.Format(time.DateOnly) <= end && len(out) < 3660; t = t.AddDate(0, 0, 1) {
		k := t.Format(time.DateOnly)
		day := views.InsightDay{Day: k}
		if r, ok := days[k]; ok {
			day = *r
		}
		out = append(out, day)
	}
	return out
}

// shares lists m, most cost first (then most tokens, then by key).
func shares(m map[string]*views.InsightShare) []views.InsightShare {
	out := make([]views.InsightShare, 0, len(m))
	for _, sh := range m {
		out = append(out, *sh)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.CostUSD != b.CostUSD {
			return a.CostUSD > b.CostUSD
		}
		if a.Tokens != b.Tokens {
			return a.Tokens > b.Tokens
		}
		return a.Key < b.Key
	})
	return out
}

func sortTools(ts []views.InsightTool) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].Calls > ts[j-1].Calls; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

// LoadFileDiffs shows every diff of a file in its session, in order.
func (iw *insightsWindow) LoadFileDiffs(f views.InsightFile) {
	pw := iw.pw
	pw.wg.Go(func() {
		diffs, err := fileDiffs(pw.ctx, pw, f)
		if err != nil {
			pw.showError("file changes", err)
			return
		}
		onUI(func() { iw.view.ShowDiffs(f.Path, diffs) })
	})
}

// fileDiffs reads a session and keeps the changes of its tool calls to
// the file f.Path (a path as the files table holds it).
func fileDiffs(ctx context.Context, pw *projectWindow, f views.InsightFile) ([]views.FileDiff, error) {
	st, err := pw.store(f.Store)
	if err != nil {
		return nil, err
	}
	events, err := st.Events().All(ctx, f.SessionID)
	if err != nil {
		return nil, err
	}
	var out []views.FileDiff
	for _, c := range insight.FileChanges(events, f.Store, f.Path) {
		out = append(out, views.FileDiff{Seq: c.Seq, Tool: c.Tool, Files: c.Files})
	}
	return out, nil
}

// sqlWindow is an open SQL console; it implements views.SQLActions.
type sqlWindow struct {
	pw      *projectWindow
	console *views.SQLConsole
}

// showSQLConsole opens the SQL console (Ctrl+Shift+L).
func (tl *toolWindows) showSQLConsole() {
	w := tl.pw.newToolWindow("SQL console")
	sw := &sqlWindow{pw: tl.pw}
	docs := make([]views.SQLDoc, len(insight.Views))
	for i, v := range insight.Views {
		docs[i] = views.SQLDoc{Name: v.Name, Columns: v.Columns}
	}
	examples := make([]views.SQLExample, len(insight.Examples))
	for i, e := range insight.Examples {
		examples[i] = views.SQLExample{Title: e.Title, Query: e.Query}
	}
	sw.console = views.NewSQLConsole(sw, docs, examples)
	w.SetContent(sw.console.Content())
	w.Resize(fyne.NewSize(1000, 640))
	w.Show()
}

// sqlLimit is the rows the console shows at most.
const sqlLimit = 5000

// RunSQL runs the console's query in the background over every store of
// the window, in a child process (sqlchild.go).
func (sw *sqlWindow) RunSQL(query string) {
	pw := sw.pw
	pw.wg.Go(func() {
		var stores []string
		for _, x := range pw.search.insightIndexes(pw.ctx, nil) {
			stores = append(stores, x.Store().Path())
		}
		argv, err := sqlChild()
		var res insight.SQLResult
		if err == nil {
			res, err = runSQLChild(pw.ctx, argv, stores, query, sqlLimit)
		}
		onUI(func() {
			if err != nil {
				sw.console.SetError(err)
				return
			}
			sw.console.SetResult(sqlTable(res))
		})
	})
}

func sqlTable(r insight.SQLResult) views.SQLTable {
	return views.SQLTable{Columns: r.Columns, Rows: r.Cells(), Truncated: r.Truncated}
}

// The Insights window's and the SQL console's shortcuts: Ctrl+Shift+I and
// Ctrl+Shift+L (Cmd on macOS).
var (
	insightsShortcut = views.Shortcut(views.KeyInsights)
	sqlShortcut      = views.Shortcut(views.KeySQLConsole)
)

// insightMenu is the Insights menu.
func (tl *toolWindows) insightMenu() *fyne.Menu {
	return fyne.NewMenu("Insights",
		&fyne.MenuItem{Label: "Insights…", Action: tl.showInsights, Shortcut: insightsShortcut},
		&fyne.MenuItem{Label: "SQL console…", Action: tl.showSQLConsole, Shortcut: sqlShortcut},
		&fyne.MenuItem{Label: "Recent edits…", Action: tl.showRecentEdits, Shortcut: recentEditsShortcut},
	)
}
