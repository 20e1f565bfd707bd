package app

import (
	"context"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"github.com/fsnotify/fsnotify"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/project"
)

// prefNativeSyncOff, followed by a project's key, is set when the project
// does not keep its native history in sync while its window is open.
const prefNativeSyncOff = "nativesync.off:"

// nativeSyncDebounce is how long the history folders stay quiet before an
// import: an agent appends to its transcript line by line.
const nativeSyncDebounce = 2 * time.Second

// nativeSync keeps a window's stores in sync with the agents' own
// history: it watches the history folders (fsnotify) and, once they
// have been quiet for debounce, imports what is new for the window's
// worktrees, as Import native history does (incremental: unchanged files
// are decided from their size, modification time and inode).
type nativeSync struct {
	pw               *projectWindow
	dirs             native.Dirs // the history folders watched, by agent
	debounce         time.Duration
	previewCache     string
	imported         func(summary string) // after each import that stored something
	idle             func()               // tests: after each sync, whatever it did
	watching         func()               // tests: once the folders are watched
	claudeHomeForRun string
}

// nativeSyncOn reports the project's setting: on unless turned off.
func (im *importer) nativeSyncOn() bool {
	return !im.pw.ui.fa.Preferences().Bool(prefNativeSyncOff + im.pw.projectKey())
}

// startNativeSync starts keeping native history in sync, when the setting
// is on and the window can write.
func (im *importer) startNativeSync() {
	if im.pw.readOnly || !im.nativeSyncOn() {
		return
	}
	dirs, err := native.DefaultDirs()
	if err != nil {
		log.Printf("native sync: %v", err)
		return
	}
	ctx, cancel := context.WithCancel(im.pw.ctx)
	im.mu.Lock()
	im.stopNativeSync = cancel
	im.mu.Unlock()
	s := &nativeSync{pw: im.pw, dirs: dirs, debounce: nativeSyncDebounce,
		previewCache: native.DefaultPreviewCache(), claudeHomeForRun: native.ClaudeHomeOf(dirs[native.Claude])}
	s.imported = func(summary string) {
		onUI(func() { im.pw.mv.PromptBox().SetStatus("Native history synced: "+summary, false) })
	}
	im.pw.wg.Go(func() { s.run(ctx) })
}

// nativeSyncMenuItem is the menu's check item for the setting.
func (im *importer) nativeSyncMenuItem() *fyne.MenuItem {
	item := &fyne.MenuItem{Label: "Keep native history in sync (this project)", Checked: im.nativeSyncOn()}
	item.Action = func() {
		on := !im.nativeSyncOn()
		im.pw.ui.fa.Preferences().SetBool(prefNativeSyncOff+im.pw.projectKey(), !on)
		im.mu.Lock()
		stop := im.stopNativeSync
		im.stopNativeSync = nil
		im.mu.Unlock()
		if stop != nil {
			stop()
		}
		if on {
			im.startNativeSync()
		}
		item.Checked = on
		if m := im.pw.win.MainMenu(); m != nil {
			m.Refresh()
		}
	}
	return item
}

// run watches until ctx ends. A folder created later (a new project, a
// new day of Codex sessions) is watched as it appears.
func (s *nativeSync) run(ctx context.Context) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		log.Printf("native sync: %v", err)
		return
	}
	defer w.Close()
	for _, src := range native.Sources() {
		if d := s.dirs[src.Agent]; d != "" {
			watchTree(w, d)
		}
	}
	if s.watching != nil {
		s.watching()
	}
	var quiet <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if ev.Has(fsnotify.Create) {
				if fi, err := os.Stat(ev.Name); err == nil && fi.IsDir() {
					watchTree(w, ev.Name)
				}
			}
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) {
				quiet = time.After(s.debounce)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			log.Printf("native sync: %v", err)
		case <-quiet:
			quiet = nil
			s.sync(ctx)
			if s.idle != nil {
				s.idle()
			}
		}
	}
}

// watchTree watches dir and every folder under it; a missing dir is
// skipped.
func watchTree(w *fsnotify.Watcher, dir string) {
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil // a file, or an unreadable folder: left out
		}
		if err := w.Add(path); err != nil {
			log.Printf("native sync: watch %s: %v", path, err)
		}
		return nil
	})
}

// sync imports what is new in the history for the window's worktrees:
// sessions that ran in one of them, not Lazuli's own runs, each into the
// store of the worktree it ran in.
func (s *nativeSync) sync(ctx context.Context) {
	pw := s.pw
	scan, err := native.Scan(ctx, native.Options{Dirs: s.dirs, PreviewCache: s.previewCache})
	if err != nil {
		log.Printf("native sync: %v", err)
		return
	}
	byStore := map[string][]native.Session{}
	wts := map[string]Worktree{}
	for _, n := range scan.Sessions {
		if n.Own != "" {
			continue // a run of Lazuli or AZUREAL: its events are in a store already
		}
		wt, in := pw.imports.nativeTarget(n)
		if !in {
			continue
		}
		byStore[wt.StorePath] = append(byStore[wt.StorePath], n)
		wts[wt.StorePath] = wt
	}
	var results []native.Result
	for path, sessions := range byStore {
		st, err := pw.store(path)
		if err != nil {
			log.Printf("native sync: %v", err)
			continue
		}
		branch := wts[path].Branch
		if branch == "" {
			branch = project.BranchOf(wts[path].Dir)
		}
		stored, indexed := pw.search.importFeed(ctx, st)
		rs, err := native.Import(ctx, st, sessions, native.ImportOptions{Worktree: branch, ClaudeHome: s.claudeHomeForRun, Stored: stored})
		indexed()
		results = append(results, rs...)
		if err != nil {
			log.Printf("native sync: %v", err)
		}
	}
	sum := native.Summarize(results, 0)
	if sum.Imported+sum.Appended == 0 {
		return
	}
	var said []string
	if sum.Imported > 0 {
		said = append(said, sum.NewSessions())
	}
	if sum.Appended > 0 {
		said = append(said, "new lines in "+display.Plural(sum.Appended, "session"))
	}
	msg := strings.Join(said, ", ")
	log.Printf("native sync: %s", msg)
	pw.list.refresh()
	if s.imported != nil {
		s.imported(msg)
	}
}
