package app

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/safelink"
	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/teamsync"
	"github.com/lazuli-app/lazuli/views"
)

// prefTeamURL keeps the team database URL, without its password (which
// belongs in ~/.pgpass).
const prefTeamURL = "team.pg"

// teamWindow is the Team window: the team's sessions from its PostgreSQL
// database, read-only. Database work runs on a goroutine of its own, one
// request at a time (a pgx connection serves one caller).
type teamWindow struct {
	ui      *gui
	win     fyne.Window
	browser *views.TeamBrowser

	mu sync.Mutex // serializes database work
	db *teamsync.DB
	wg sync.WaitGroup // background work, for tests
}

// showTeam opens the Team window (menu Session › Team sessions…).
func (tl *toolWindows) showTeam() {
	u := tl.pw.ui.fa.Preferences().String(prefTeamURL)
	if u == "" {
		u = os.Getenv(teamsync.URLEnv)
	}
	tw := newTeamWindow(tl.pw.ui, tl.pw.ui.fa.NewWindow("Lazuli — Team"), u)
	tw.win.Resize(fyne.NewSize(1100, 720))
	tw.win.Show()
	if u != "" {
		tw.TeamConnect(u)
	} else {
		tw.browser.SetStatus("Give the team database URL and press Connect (see docs/team.md).")
	}
}

// newTeamWindow fills win with a Team browser on url.
func newTeamWindow(ui *gui, win fyne.Window, u string) *teamWindow {
	tw := &teamWindow{ui: ui, win: win}
	tw.browser = views.NewTeamBrowser(tw, u)
	win.SetContent(tw.browser.Root)
	views.BindCloseKeys(win)
	win.Canvas().AddShortcut(views.Shortcut(views.KeySearch), func(fyne.Shortcut) { tw.browser.FocusSearch(win.Canvas()) })
	win.SetOnClosed(tw.close)
	return tw
}

// close closes the connection once background work is done.
func (tw *teamWindow) close() {
	tw.wg.Go(func() {
		tw.mu.Lock()
		defer tw.mu.Unlock()
		if tw.db != nil {
			tw.db.Close()
			tw.db = nil
		}
	})
}

// withoutPassword drops the password from a URL before it is kept.
func withoutPassword(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

// do runs fn on the database goroutine and shows its error, if any.
func (tw *teamWindow) do(fn func(ctx context.Context, db *teamsync.DB) error) {
	tw.wg.Go(func() {
		tw.mu.Lock()
		defer tw.mu.Unlock()
		if tw.db == nil {
			onUI(func() { tw.browser.SetStatus("Not connected.") })
			return
		}
		if err := fn(context.Background(), tw.db); err != nil {
			msg := project.OneLine(err)
			onUI(func() { tw.browser.SetStatus(msg) })
		}
	})
}

// TeamConnect connects to the database at u and lists its sessions.
func (tw *teamWindow) TeamConnect(u string) {
	u = strings.TrimSpace(u)
	tw.browser.SetStatus("Connecting…")
	tw.wg.Go(func() {
		tw.mu.Lock()
		if tw.db != nil {
			tw.db.Close()
			tw.db = nil
		}
		db, err := teamsync.Connect(context.Background(), u)
		if err == nil {
			tw.db = db
			tw.ui.fa.Preferences().SetString(prefTeamURL, withoutPassword(u))
		}
		tw.mu.Unlock()
		if err != nil {
			msg := project.OneLine(err)
			onUI(func() { tw.browser.SetStatus(msg) })
			return
		}
		tw.do(func(ctx context.Context, db *teamsync.DB) error {
			list, err := db.List(ctx, teamsync.Filter{})
			if err != nil {
				return err
			}
			rows := make([]views.TeamSession, len(list))
			machines := map[string]bool{}
			for i, s := range list {
				rows[i] = views.TeamSession{ID: s.ID, Repository: s.Repository, Worktree: s.Worktree, Name: s.Name,
					Machine: s.Machine, User: s.User, Created: s.Created, Events: s.EventCount}
				machines[s.Machine] = true
			}
			onUI(func() {
				tw.browser.SetSessions(rows)
				tw.browser.SetStatus(teamStatus(len(rows), len(machines)))
			})
			return nil
		})
	})
}

func teamStatus(sessions, machines int) string {
	return display.Plural(sessions, "session") + " from " + display.Plural(machines, "machine")
}

// OpenLink opens a link of the team transcript shown: a web address in
// the browser. A lazuli:// link names a store of a project window, not the
// team's database, so it opens nothing here.
func (tw *teamWindow) OpenLink(raw string) {
	if safelink.Classify(raw) == safelink.Lazuli {
		views.ShowError(tw.win, fmt.Errorf("%q is a Lazuli link: open it from a project window", raw))
		return
	}
	if err := tw.ui.openWeb(raw); err != nil {
		views.ShowError(tw.win, err)
	}
}

// TeamSelect loads and shows team session id.
func (tw *teamWindow) TeamSelect(id int64) {
	tw.do(func(ctx context.Context, db *teamsync.DB) error {
		s, events, comps, err := db.Transcript(ctx, id)
		if err != nil {
			return err
		}
		onUI(func() { tw.browser.ShowSession(s.Store(), events, comps) })
		return nil
	})
}

// TeamSearch searches the team's events.
func (tw *teamWindow) TeamSearch(query string) {
	tw.do(func(ctx context.Context, db *teamsync.DB) error {
		res, err := db.Search(ctx, query, search.Options{Limit: 100}) // on Enter: the whole answer
		if err != nil {
			return err
		}
		hits := res.Hits
		rows := make([]views.TeamHit, len(hits))
		for i, h := range hits {
			rows[i] = views.TeamHit{SessionID: h.SessionID, Title: h.DisplayName + " · " + h.Worktree, Snippet: h.Snippet}
		}
		status := display.Plural(len(hits), "hit")
		if res.More || res.Partial {
			status += " (the newest)"
		}
		onUI(func() {
			tw.browser.SetHits(rows)
			tw.browser.SetStatus(status)
		})
		return nil
	})
}
