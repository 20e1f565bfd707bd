package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/teamsync"
	"github.com/lazuli-app/lazuli/views"
)

// errTeamReadOnly is what a change to a team session gets.
var errTeamReadOnly = errors.New("a team session is read-only: pull it into a store of yours (lazuli team pull) to change or continue it")

// teamSource is the sidebar's Team source: the sessions of the team
// database (the Team window's URL, kept in the preferences, or
// $LAZULI_PG), grouped by repository and worktree, read-only. Its
// sessions' refs have views.TeamStore as their store and their team
// number as id. One connection serves it, one request at a time, opened
// on first use.
type teamSource struct {
	pw  *projectWindow
	url string

	mu sync.Mutex // serializes database work
	db *teamsync.DB
}

// newTeamSource returns the window's Team source, and shows the sidebar's
// source switch when a team database is set.
func newTeamSource(pw *projectWindow) *teamSource {
	u := pw.ui.fa.Preferences().String(prefTeamURL)
	if u == "" {
		u = os.Getenv(teamsync.URLEnv)
	}
	ts := &teamSource{pw: pw, url: u}
	if u != "" {
		pw.mv.Sidebar().EnableTeam(ts)
	}
	return ts
}

// showSettings opens the Team database dialog (Session › Team database…).
func (ts *teamSource) showSettings() {
	views.ShowTeamSettings(ts.pw.win, withoutPassword(ts.url), ts.setURL)
}

// setURL sets the team database: kept in the preferences without its
// password (which belongs in ~/.pgpass; a password given is used until the
// window closes); "" turns the Team source off.
func (ts *teamSource) setURL(u string) {
	ts.pw.ui.fa.Preferences().SetString(prefTeamURL, withoutPassword(u))
	ts.mu.Lock()
	ts.url = u
	if ts.db != nil {
		ts.db.Close()
		ts.db = nil
	}
	ts.mu.Unlock()
	sb := ts.pw.mv.Sidebar()
	if u == "" {
		sb.DisableTeam()
		return
	}
	sb.EnableTeam(ts)
	if sb.TeamShown() {
		ts.ShowSource(true)
	}
}

// with runs fn with the connection, opening it first if need be. A
// connection that closed (a search cancelled by a newer one closes it, as
// does the server going away) is dropped, and the next call opens another.
func (ts *teamSource) with(ctx context.Context, fn func(db *teamsync.DB) error) error {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.db != nil && ts.db.Conn().IsClosed() {
		ts.db.Close()
		ts.db = nil
	}
	if ts.db == nil {
		db, err := teamsync.Connect(ctx, ts.url)
		if err != nil {
			return err
		}
		ts.db = db
	}
	return fn(ts.db)
}

// close closes the connection; the window's goroutines are done. A window
// without a Team source (tests) has none to close.
func (ts *teamSource) close() {
	if ts == nil {
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.db != nil {
		ts.db.Close()
		ts.db = nil
	}
}

// ShowSource lists the team's sessions when the sidebar switches to them.
func (ts *teamSource) ShowSource(team bool) {
	if !team {
		return
	}
	ts.pw.wg.Go(func() {
		var list []teamsync.Session
		err := ts.with(ts.pw.ctx, func(db *teamsync.DB) error {
			var err error
			list, err = db.List(ts.pw.ctx, teamsync.Filter{})
			return err
		})
		if err != nil {
			ts.pw.showError("list the team's sessions", err)
			return
		}
		groups := teamGroups(list)
		onUI(func() { ts.pw.mv.Sidebar().ApplyTeam(groups) })
	})
}

// teamGroups groups sessions (in List's order: by repository and
// worktree) under a header per repository and worktree; each session's
// name says whose machine it comes from.
func teamGroups(list []teamsync.Session) []views.WorktreeGroup {
	var out []views.WorktreeGroup
	for _, s := range list {
		title := s.Repository + " · " + s.Worktree
		if len(out) == 0 || out[len(out)-1].Worktree != title {
			out = append(out, views.WorktreeGroup{Worktree: title, StorePath: views.TeamStore})
		}
		ss := s.Store()
		ss.Name = fmt.Sprintf("%s · %s@%s", s.DisplayName, s.User, s.Machine)
		g := &out[len(out)-1]
		g.Sessions = append(g.Sessions, ss)
	}
	return out
}

// show loads team session ref and shows it, read-only, as the window's
// session: the transcript with its diffs and compactions, the meter, and
// in the header the usage its pusher's insight index gave it.
func (ts *teamSource) show(ref views.SessionRef, gen int) {
	var (
		s      teamsync.Session
		events []store.StoredEvent
		comps  []store.Compaction
	)
	err := ts.with(ts.pw.ctx, func(db *teamsync.DB) error {
		var err error
		s, events, comps, err = db.Transcript(ts.pw.ctx, ref.ID)
		return err
	})
	if err != nil {
		ts.pw.showError("load the team session", err)
		return
	}
	pw, sh := ts.pw, ts.pw.shown
	onUI(func() {
		sh.mu.Lock()
		if gen != sh.loadGen {
			sh.mu.Unlock()
			return // the user moved on
		}
		sh.current, sh.lastSeq, sh.firstSeq, sh.compCount = ref, lastSeqOf(events), 0, len(comps)
		sh.currentChars = s.CharsSinceCompaction
		sh.mu.Unlock()
		sess := s.Store()
		sess.Name = s.DisplayName // its name in its own store: "S2", not the team number
		sess.Worktree = s.Repository + " · " + s.Worktree + " · " + s.User + "@" + s.Machine
		sh.expectPendingEvent(ref)
		pw.mv.ShowSession(ref, sess, events, comps, 0)
		sh.showPendingEvent(ref)
	})
	var u insight.Totals
	err = ts.with(ts.pw.ctx, func(db *teamsync.DB) error {
		var err error
		u, err = db.SessionUsage(ts.pw.ctx, ref.ID)
		return err
	})
	if err != nil {
		return // the transcript is shown; the header goes without its usage line
	}
	text := usageText(u.Tokens)
	onUI(func() { pw.mv.Header().SetUsage(ref, text) })
}

// search searches the team's sessions for the Ctrl+K panel.
func (ts *teamSource) search(ctx context.Context, query string) views.SearchResults {
	var res search.Result
	err := ts.with(ctx, func(db *teamsync.DB) error {
		var err error
		res, err = db.Search(ctx, query, search.Options{Limit: 100, Budget: teamsync.SearchBudget}) // as you type
		return err
	})
	if err != nil {
		return searchError(ctx, query, err)
	}
	out := searchResults(res)
	for i, h := range res.Hits { // a team hit's store is "team:MACHINE:PATH"
		machine, _, _ := strings.Cut(strings.TrimPrefix(h.StorePath, "team:"), ":")
		out.Hits[i].Ref = views.SessionRef{StorePath: views.TeamStore, ID: h.SessionID}
		out.Hits[i].Worktree = h.Worktree + " · " + machine
	}
	return out
}

// insights computes the Insights window's figures over the team's
// sessions of the last days (0: all time), from what their pushers'
// insight indexes sent: usage by day, model, backend and worktree. Tools,
// files and the activity heat map stay with each machine's own Insights.
func (ts *teamSource) insights(ctx context.Context, days int, now time.Time) (views.InsightData, error) {
	var d views.InsightData
	since := ""
	if days > 0 {
		since = now.UTC().AddDate(0, 0, 1-days).Format(time.DateOnly)
	}
	byDay := map[string]*views.InsightDay{}
	shareMaps := map[string]map[string]*views.InsightShare{"model": {}, "backend": {}, "worktree": {}}
	err := ts.with(ctx, func(db *teamsync.DB) error {
		for _, by := range []string{"day", "model", "backend", "worktree"} {
			rows, err := db.Stats(ctx, by, since)
			if err != nil {
				return err
			}
			for _, r := range rows {
				d.CostEstimated = d.CostEstimated || r.CostEstimated
				if by == "day" {
					dayEntry(byDay, r.Key).Add(views.InsightDay{Sessions: r.Sessions, Turns: r.Turns, Tokens: r.Tokens})
					continue
				}
				sh := shareEntry(shareMaps[by], r.Key)
				sh.Sessions += r.Sessions
				sh.Tokens += r.Total()
				sh.CostUSD += r.CostUSD
			}
		}
		return nil
	})
	if err != nil {
		return d, err
	}
	for _, day := range byDay {
		d.Total.Add(*day)
	}
	d.Days = fillDays(byDay, since, now)
	d.Models, d.Backends, d.Worktrees = shares(shareMaps["model"]), shares(shareMaps["backend"]), shares(shareMaps["worktree"])
	return d, nil
}
