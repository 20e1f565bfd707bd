package app

import (
	"errors"
	"log"
	"path/filepath"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/views"
)

// A project without any session (a first run) gets a panel over the empty
// transcript offering what a new user needs: import this project's native
// Claude Code / Codex history (with how many sessions it holds), import a
// transcript file, or start a session. It implements views.FirstRunActions.

// ImportNativeHistory opens the Import native history dialog.
func (pw *projectWindow) ImportNativeHistory() { pw.onImportNative() }

// ImportTranscriptFile asks for a transcript file to import.
func (pw *projectWindow) ImportTranscriptFile() { pw.onImport() }

// StartSession starts a new session in the window's worktree.
func (pw *projectWindow) StartSession() { pw.onNewSession() }

// updateFirstRun shows the first-run panel when no store of the window
// has a session and no new session is being written, else hides it. The
// native sessions of the project are counted once, in the background.
func (pw *projectWindow) updateFirstRun(groups []views.WorktreeGroup) {
	empty := !pw.readOnly
	for _, g := range groups {
		empty = empty && len(g.Sessions) == 0
	}
	pw.mu.Lock()
	empty = empty && pw.current == (views.SessionRef{})
	fr := pw.firstRun
	count := empty && !pw.firstRunCounting && fr.Native < 0
	if count {
		pw.firstRunCounting = true
	}
	pw.mu.Unlock()
	if !empty {
		fyne.Do(func() { pw.mv.ShowFirstRun(nil, nil) })
		return
	}
	fr.Project = pw.projectName()
	fyne.Do(func() { pw.mv.ShowFirstRun(&fr, pw) })
	if count {
		pw.wg.Go(pw.countNative)
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
// worktrees, then shows the panel again with the count.
func (pw *projectWindow) countNative() {
	fr := views.FirstRun{Native: 0}
	claude, codex, err := native.DefaultDirs()
	var scan native.ScanResult
	if err == nil {
		scan, err = native.Scan(pw.ctx, native.Options{ClaudeDir: claude, CodexDir: codex, PreviewCache: native.DefaultPreviewCache()})
	}
	switch {
	case errors.Is(err, native.ErrNoHistory):
		fr.NativeNote = "No Claude Code or Codex history on this machine (~/.claude/projects, ~/.codex/sessions)."
	case err != nil:
		log.Printf("count native history: %v", err)
		fr.NativeNote = "The Claude Code and Codex history could not be read."
	default:
		for _, n := range scan.Sessions {
			if _, in := pw.nativeTarget(n); in {
				fr.Native++
			}
		}
		if fr.Native == 0 {
			fr.NativeNote = "No Claude Code or Codex session ran in this project's folders."
		}
	}
	if pw.ctx.Err() != nil {
		return
	}
	pw.mu.Lock()
	pw.firstRun = fr
	pw.mu.Unlock()
	pw.refresh()
}
