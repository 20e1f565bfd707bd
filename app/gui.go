package app

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/lazuli-app/lazuli/assets"
	"github.com/lazuli-app/lazuli/views"
)

// Preference keys (fyne.Preferences), in one place.
const (
	prefWindowWidth  = "window.width"
	prefWindowHeight = "window.height"
	prefSplitOffset  = "window.split" // the sidebar divider: container.Split's Offset
	prefLastSession  = "session.last" // "<store path>#<id>"
)

// gui is the running desktop app: the Fyne app and its windows.
type gui struct {
	ctx context.Context
	fa  fyne.App
}

// Run opens the window described by cfg and blocks until the app quits or
// ctx is cancelled.
func Run(ctx context.Context, cfg Config) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	wts, title, cleanup, err := projectFor(ctx, cfg)
	if err != nil {
		return err
	}
	defer cleanup()
	fyneapp.SetMetadata(appMetadata())
	ui := &gui{ctx: ctx, fa: fyneapp.NewWithID(AppID)}
	ui.fa.SetIcon(assets.Icon)
	ui.fa.Settings().SetTheme(views.Theme{})
	pw := newProjectWindow(ui, title, wts, false)
	ui.setupMainWindow(pw, !cfg.Demo && cfg.Link.Session == 0)
	if cfg.Demo {
		pw.shown.SelectSession(views.SessionRef{StorePath: wts[0].StorePath, ID: demoFeaturedID})
	}
	pw.shown.openLink(cfg.Link)
	go func() {
		<-ctx.Done()
		onUI(ui.fa.Quit)
	}()
	// Fitted twice: before the window exists, at scale 1 (GLFW is up once a
	// window has been made), so that it opens at its final size rather than
	// oversized and then shrunk; and once the driver runs, at the scale the
	// window then has (FYNE_SCALE, the monitor's DPI).
	fitToScreen(pw.win)
	ui.fa.Lifecycle().SetOnStarted(func() { fitToScreen(pw.win) })
	pw.win.ShowAndRun()
	return nil
}

// projectFor resolves the worktrees to show and the window title.
func projectFor(ctx context.Context, cfg Config) ([]Worktree, string, func(), error) {
	if cfg.Demo {
		dir, err := os.MkdirTemp("", "lazuli-demo-")
		if err != nil {
			return nil, "", nil, err
		}
		cleanup := func() { _ = os.RemoveAll(dir) } // a temporary demo: nothing to keep
		wts, err := BuildDemo(ctx, dir)
		if err != nil {
			cleanup()
			return nil, "", nil, err
		}
		return wts, "Lazuli — demo project", cleanup, nil
	}
	path := cfg.Path
	if path == "" {
		path = "."
	}
	wts, err := ResolveProject(path)
	if err != nil {
		return nil, "", nil, err
	}
	abs, _ := filepath.Abs(path)
	return wts, "Lazuli — " + filepath.Base(abs), func() {}, nil
}

// setupMainWindow adds the menus, shortcuts and remembered state of the
// project window.
func (ui *gui) setupMainWindow(pw *projectWindow, restore bool) {
	ui.restoreLayout(pw)
	pw.win.SetMaster()
	pw.win.SetCloseIntercept(func() {
		ui.saveLayout(pw)
		pw.win.Close()
	})
	pw.win.SetMainMenu(pw.mainMenu())
	pw.addShortcuts()
	pw.imports.startNativeSync()
	if ref, ok := ui.lastSession(); ok && restore && pw.hasStore(ref.StorePath) {
		pw.shown.SelectSession(ref)
	}
}

// restoreLayout gives the window the size and sidebar divider it had
// when it was last closed.
func (ui *gui) restoreLayout(pw *projectWindow) {
	p := ui.fa.Preferences()
	w := p.FloatWithFallback(prefWindowWidth, 1180)
	h := p.FloatWithFallback(prefWindowHeight, 760)
	pw.win.Resize(fyne.NewSize(float32(w), float32(h)))
	if off := p.FloatWithFallback(prefSplitOffset, -1); off >= 0 && off <= 1 {
		pw.mv.Split().SetOffset(off)
	}
}

// saveLayout remembers the window's size and sidebar divider, for
// restoreLayout next time.
func (ui *gui) saveLayout(pw *projectWindow) {
	p := ui.fa.Preferences()
	size := pw.win.Canvas().Size()
	p.SetFloat(prefWindowWidth, float64(size.Width))
	p.SetFloat(prefWindowHeight, float64(size.Height))
	p.SetFloat(prefSplitOffset, pw.mv.Split().Offset)
}

// rememberSession stores the session shown, to reopen it next time.
func (ui *gui) rememberSession(ref views.SessionRef) {
	ui.fa.Preferences().SetString(prefLastSession, ref.StorePath+"#"+strconv.FormatInt(ref.ID, 10))
}

// forgetSession forgets the session to reopen.
func (ui *gui) forgetSession() { ui.fa.Preferences().RemoveValue(prefLastSession) }

func (ui *gui) lastSession() (views.SessionRef, bool) {
	v := ui.fa.Preferences().String(prefLastSession)
	i := strings.LastIndexByte(v, '#')
	if i < 0 {
		return views.SessionRef{}, false
	}
	id, err := strconv.ParseInt(v[i+1:], 10, 64)
	if err != nil {
		return views.SessionRef{}, false
	}
	return views.SessionRef{StorePath: v[:i], ID: id}, true
}

// hasStore reports whether the window shows the store at path.
func (pw *projectWindow) hasStore(path string) bool {
	for _, wt := range pw.wts {
		if wt.StorePath == path {
			return true
		}
	}
	return false
}

// addShortcuts binds the main actions to their shortcuts (canvasKeys).
func (pw *projectWindow) addShortcuts() {
	for id, fn := range pw.canvasKeys() {
		pw.win.Canvas().AddShortcut(views.Shortcut(id), func(fyne.Shortcut) { fn() })
	}
}

// Version is Lazuli's version, as FyneApp.toml gives it; main sets it.
var Version string

// appMetadata is the app's metadata for Fyne. It declares the fyneDo
// migration, as `fyne build` does for an app whose FyneApp.toml says so:
// every widget call of Lazuli's is on the Fyne goroutine (background work
// hands its results over with fyne.Do), so Fyne's check of the calling
// goroutine on every Refresh — runtime.Stack parsed each time, 23% of the
// window's CPU time in a profile of switching sessions and typing in the
// filter — is left out.
func appMetadata() fyne.AppMetadata {
	return fyne.AppMetadata{ID: AppID, Name: "Lazuli", Version: Version, Build: 1, Icon: assets.Icon,
		Migrations: map[string]bool{"fyneDo": true}}
}
