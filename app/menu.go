package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/storage"

	"github.com/lazuli-app/lazuli/agents"
)

// mainMenu is the window's menu bar; a read-only window's offers nothing
// that writes to its store.
func (pw *projectWindow) mainMenu() *fyne.MainMenu {
	if pw.readOnly {
		return pw.readOnlyMenu()
	}
	file := fyne.NewMenu("File",
		&fyne.MenuItem{Label: "Open session store…", Action: pw.onOpen, Shortcut: shortcut(fyne.KeyO)},
		&fyne.MenuItem{Label: "Import transcript…", Action: pw.onImport, Shortcut: shortcut(fyne.KeyI)},
		&fyne.MenuItem{Label: "Import native history…", Action: pw.onImportNative},
		&fyne.MenuItem{Label: "Export session as .azs…", Action: pw.onExport, Shortcut: shortcut(fyne.KeyE)},
	)
	session := fyne.NewMenu("Session",
		&fyne.MenuItem{Label: "New session", Action: pw.onNewSession, Shortcut: shortcut(fyne.KeyN)},
		&fyne.MenuItem{Label: "Find in session", Action: pw.mv.Transcript().ShowFind, Shortcut: shortcut(fyne.KeyF)},
		&fyne.MenuItem{Label: "Search all sessions…", Action: pw.showSearch, Shortcut: shortcut(fyne.KeyK)},
		&fyne.MenuItem{Label: "Team sessions…", Action: pw.showTeam},
		fyne.NewMenuItemSeparator(),
	)
	session.Items = append(session.Items, pw.navigateMenuItems()...)
	session.Items = append(session.Items,
		fyne.NewMenuItemSeparator(),
		&fyne.MenuItem{Label: "Stop agent", Action: pw.onStop},
		&fyne.MenuItem{Label: "Compact session now", Action: pw.onCompactNow},
		fyne.NewMenuItemSeparator(),
		&fyne.MenuItem{Label: "Export as Markdown, HTML or JSON…", Action: pw.onExportDocument},
		fyne.NewMenuItemSeparator(),
	)
	session.Items = append(session.Items, pw.lifecycleMenuItems()...)
	agentsMenu := fyne.NewMenu("Agents", fyne.NewMenuItem("Agent settings…", pw.showAgentSettings), pw.fullTextMenuItem(), pw.nativeSyncMenuItem())
	help := fyne.NewMenu("Help", fyne.NewMenuItem("About Lazuli", pw.onAbout))
	return fyne.NewMainMenu(file, session, pw.insightMenu(), agentsMenu, help)
}

// readOnlyMenu is the menu bar of a read-only window: looking, searching,
// exporting documents, closing.
func (pw *projectWindow) readOnlyMenu() *fyne.MainMenu {
	file := fyne.NewMenu("File",
		&fyne.MenuItem{Label: "Open session store…", Action: pw.onOpen, Shortcut: shortcut(fyne.KeyO)},
		&fyne.MenuItem{Label: "Close window", Action: pw.win.Close, Shortcut: shortcut(fyne.KeyW)},
	)
	session := fyne.NewMenu("Session",
		&fyne.MenuItem{Label: "Find in session", Action: pw.mv.Transcript().ShowFind, Shortcut: shortcut(fyne.KeyF)},
		&fyne.MenuItem{Label: "Search all sessions…", Action: pw.showSearch, Shortcut: shortcut(fyne.KeyK)},
		fyne.NewMenuItemSeparator(),
	)
	session.Items = append(session.Items, pw.navigateMenuItems()...)
	session.Items = append(session.Items, fyne.NewMenuItemSeparator(),
		&fyne.MenuItem{Label: "Export as Markdown, HTML or JSON…", Action: pw.onExportDocument})
	help := fyne.NewMenu("Help", fyne.NewMenuItem("About Lazuli", pw.onAbout))
	return fyne.NewMainMenu(file, session, help)
}

func (pw *projectWindow) onAbout() {
	meta := pw.ui.fa.Metadata()
	version := meta.Version
	if version == "" {
		version = "development build"
	}
	dialog.ShowInformation("About Lazuli",
		"Lazuli "+version+"\nThe home of coding-agent sessions.\nStores are AZUREAL v3 .azs files.", pw.win)
}

// onOpen asks for an .azs file and previews it like a dropped one.
func (pw *projectWindow) onOpen() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			pw.showError("open", err)
			return
		}
		path := r.URI().Path()
		_ = r.Close() // only the path is needed
		pw.previewStore(path)
	}, pw.win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".azs"}))
	d.Show()
}

// onImport asks for a transcript and imports it as a new session.
func (pw *projectWindow) onImport() {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			pw.showError("import", err)
			return
		}
		path := r.URI().Path()
		_ = r.Close() // only the path is needed
		pw.importTranscripts([]string{path})
	}, pw.win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".jsonl", ".json"}))
	d.Show()
}

// onExport saves the shown session as a new .azs store.
func (pw *projectWindow) onExport() {
	pw.mu.Lock()
	ref := pw.current
	pw.mu.Unlock()
	if ref.ID == 0 {
		dialog.ShowInformation("Export session", "Select a session to export first.", pw.win)
		return
	}
	d := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			pw.showError("export", err)
			return
		}
		path := w.URI().Path()
		_ = w.Close() // the store is written to a temporary file and renamed over it
		pw.exportSession(ref, path)
	}, pw.win)
	d.SetFileName("session.azs")
	d.SetFilter(storage.NewExtensionFileFilter([]string{".azs"}))
	d.Show()
}

// shortcut is Ctrl+key (Cmd+key on macOS).
func shortcut(key fyne.KeyName) fyne.Shortcut {
	return &desktop.CustomShortcut{KeyName: key, Modifier: fyne.KeyModifierShortcutDefault}
}

// onStop stops the agent of the session shown.
func (pw *projectWindow) onStop() {
	pw.mu.Lock()
	ref := pw.current
	pw.mu.Unlock()
	pw.StopRun(ref)
}

// onCompactNow compacts the session shown, whatever its size.
func (pw *projectWindow) onCompactNow() {
	pw.mu.Lock()
	ref, chars := pw.current, pw.currentChars
	running := pw.runs[ref] != nil
	pw.mu.Unlock()
	switch {
	case ref.ID == 0:
		return
	case pw.readOnly:
		pw.showError("compact", errReadOnly)
		return
	case running:
		pw.setStatus(ref, "Wait for the agent to finish (or stop it) before compacting.", true)
		return
	}
	job := agents.CompactJob{StorePath: ref.StorePath, SessionID: ref.ID, Reason: "manual", Manual: true}
	if !pw.compactor.Request(job, chars) {
		pw.setStatus(ref, "This session is already being compacted.", false)
	}
}
