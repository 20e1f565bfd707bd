package app

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// projectWindow is one window over the stores of a project (or one store
// opened read-only). It is the wiring: it builds the owners below, each
// with one job and its own state and lock, connects them and the views,
// and stops them when the window closes. Intents arrive on the Fyne
// goroutine, the work runs on the window's goroutines (wg), and the results
// come back through fyne.Do.
type projectWindow struct {
	ui       *gui
	win      fyne.Window
	mv       *views.MainView
	wts      []Worktree
	readOnly bool
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup // the window's goroutines (wg.Go), waited for when it closes

	stores  *storeSet      // the open stores (stores.go)
	shown   *shownSession  // the session shown, its loading and navigation (actions.go)
	list    *sessionList   // the sidebar's list and the sessions' lifecycle (list.go)
	runner  *runner        // agent runs (runs.go)
	compact *compactions   // compactions and the banner (compaction.go)
	search  *searcher      // the search indexes and panel, Ctrl+K (search.go); nil in some tests
	imports *importer      // drops, imports and native history sync (drop.go)
	exports *exporter      // exports of a session (export.go)
	tools   *toolWindows   // the Insights, SQL console, Team and Chronicle windows (insight.go)
	status  *statusLine    // the prompt box's status and what it is about (status.go)
	first   *firstRunPanel // the first-run panel of a project without sessions (firstrun.go)
	team    *teamSource    // the sidebar's Team source (teamsource.go); nil in some tests
	perms   *permissions   // the header's mode, the permission dialogs, the root notice (permissions.go)

	closeWin func() // closes a read-only window (setupReadOnly)
}

// intents routes the main view's intents (views.Actions) to their owners.
type intents struct {
	*shownSession
	*sessionList
	*runner
	*permissions
}

// newWindowParts builds a window's owners and its main view, starting
// nothing: newProjectWindow starts the background work, tests start what
// they need.
func newWindowParts(ui *gui, wts []Worktree, readOnly bool) *projectWindow {
	ctx, cancel := context.WithCancel(ui.ctx)
	pw := &projectWindow{ui: ui, wts: wts, readOnly: readOnly, ctx: ctx, cancel: cancel}
	pw.stores = newStoreSet(pw)
	pw.shown = &shownSession{pw: pw}
	pw.list = &sessionList{pw: pw}
	pw.runner = newRunner(pw)
	pw.compact = newCompactions(pw)
	pw.imports = &importer{pw: pw}
	pw.exports = &exporter{pw: pw}
	pw.tools = &toolWindows{pw: pw}
	pw.status = &statusLine{pw: pw}
	pw.first = newFirstRunPanel(pw)
	pw.perms = newPermissions(pw)
	pw.mv = views.NewMainView(intents{pw.shown, pw.list, pw.runner, pw.perms})
	pw.mv.Transcript().Loader().SetDelay(loadingDelay)
	return pw
}

func newProjectWindow(ui *gui, title string, wts []Worktree, readOnly bool) *projectWindow {
	pw := newWindowParts(ui, wts, readOnly)
	pw.win = ui.fa.NewWindow(title)
	pw.mv.PromptBox().SetModels(modelChoices())
	if !readOnly {
		pw.compact.startCompactor()
		pw.runner.detectBackends()
	}
	pw.win.SetContent(pw.mv.Content())
	pw.mv.BindShortcuts(pw.win.Canvas())
	pw.search = newSearcher(pw)
	pw.wg.Go(func() { pw.search.run(pw.ctx) })
	pw.team = newTeamSource(pw)
	pw.win.SetOnDropped(func(_ fyne.Position, uris []fyne.URI) { pw.imports.onDropped(uris) })
	pw.win.SetOnClosed(pw.close)
	pw.wg.Go(pw.watch)
	pw.list.refresh()
	return pw
}

// newToolWindow makes a secondary window of the project window (Insights,
// SQL console, Recent edits, Chronicle): Esc and Ctrl+W close it.
func (pw *projectWindow) newToolWindow(title string) fyne.Window {
	w := pw.ui.fa.NewWindow(title)
	views.BindCloseKeys(w)
	return w
}

// close stops the window's goroutines and closes its stores.
func (pw *projectWindow) close() {
	pw.cancel()
	pw.wg.Wait()
	pw.team.close()
	pw.stores.closeAll()
}

// store returns the open store at path, opening it on first use.
func (pw *projectWindow) store(path string) (*store.Store, error) { return pw.stores.open(path) }

// showError reports err in a dialog with a short message; the full chain is
// logged.
func (pw *projectWindow) showError(what string, err error) {
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	log.Printf("%s: %v", what, err)
	onUI(func() { views.ShowError(pw.win, fmt.Errorf("%s: %w", what, userMessage(err))) })
}

// userMessage keeps the part of err a user can act on.
func userMessage(err error) error {
	var fe *store.FormatError
	if errors.As(err, &fe) {
		return fe
	}
	return err
}
