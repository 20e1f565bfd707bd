package app

import (
	"errors"
	"log"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/views"
)

// A project without any session (a first run) gets a panel over the empty
// transcript offering what a new user needs: import this project's native
// history of every agent (with how many sessions it holds), import a
// transcript file, or start a session.

// firstRunPanel owns the first-run panel: when it shows, and the count of
// the project's native sessions it offers to import (counted once per
// window). It implements views.FirstRunActions.
type firstRunPanel struct {
	pw *projectWindow

	mu       sync.Mutex
	shown    views.FirstRun // what the panel shows; its Native is -1 until counted
	counting bool
}

func newFirstRunPanel(pw *projectWindow) *firstRunPanel {
	return &firstRunPanel{pw: pw, shown: views.FirstRun{Native: -1}}
}

// ImportNativeHistory opens the Import native history dialog.
func (fp *firstRunPanel) ImportNativeHistory() { fp.pw.imports.onImportNative() }

// ImportTranscriptFile asks for a transcript file to import.
func (fp *firstRunPanel) ImportTranscriptFile() { fp.pw.imports.onImport() }

// StartSession starts a new session in the window's worktree.
func (fp *firstRunPanel) StartSession() { fp.pw.list.onNewSession() }

// update shows the first-run panel when no store of the window
// has a session and no new session is being written, else hides it. The
// native sessions of the project are counted once, on the caller's
// goroutine (refreshList's), after the panel is shown without the count.
func (fp *firstRunPanel) update(groups []views.WorktreeGroup) {
	pw := fp.pw
	empty := !pw.readOnly && pw.shown.ref() == (views.SessionRef{})
	for _, g := range groups {
		empty = empty && len(g.Sessions) == 0
	}
	fp.mu.Lock()
	fr := fp.shown
	count := empty && !fp.counting && fr.Native < 0
	if count {
		fp.counting = true
	}
	fp.mu.Unlock()
	if !empty {
		onUI(func() { pw.mv.ShowFirstRun(nil, nil) })
		return
	}
	fr.Project = pw.projectName()
	onUI(func() { pw.mv.ShowFirstRun(&fr, fp) })
	if count {
		fp.countNative()
		fp.update(groups)
	}
}

// projectName is the name of the window's project: its first worktree's
// folder.
func (pw *projectWindow) projectName() string {
	if len(pw.wts) == 0 {
		return "this project"
	}
	if d := pw.wts[0].Dir; d != "" {
		return filepath.Base(d)
	}
	return filepath.Base(pw.wts[0].StorePath)
}

// countNative counts the native sessions that ran in the project's
// worktrees, for the panel.
func (fp *firstRunPanel) countNative() {
	pw := fp.pw
	fr := views.FirstRun{Native: 0}
	dirs, err := native.DefaultDirs()
	var scan native.ScanResult
	if err == nil {
		scan, err = native.Scan(pw.ctx, native.Options{Dirs: dirs, PreviewCache: native.DefaultPreviewCache()})
	}
	switch {
	case errors.Is(err, native.ErrNoHistory):
		fr.NativeNote = "No agent history on this machine (" + nativeFolders() + ")."
	case err != nil:
		log.Printf("count native history: %v", err)
		fr.NativeNote = "The agents' history could not be read."
	default:
		for _, n := range scan.Sessions {
			if _, in := pw.imports.nativeTarget(n); in {
				fr.Native++
			}
		}
		if fr.Native == 0 {
			fr.NativeNote = "No agent session ran in this project's folders."
		}
	}
	fp.mu.Lock()
	fp.shown = fr
	fp.mu.Unlock()
}

// nativeFolders lists the agents' default history folders, for the panel:
// "~/.claude/projects, ~/.codex/sessions, …".
func nativeFolders() string {
	var out []string
	for _, src := range native.Sources() {
		out = append(out, "~/"+src.HomeDir+"/"+src.HistoryDir)
	}
	return strings.Join(out, ", ")
}
