package app

import (
	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/views"
)

// mainMenu is the window's menu bar; a read-only window's offers nothing
// that writes to its store.
func (pw *projectWindow) mainMenu() *fyne.MainMenu {
	if pw.readOnly {
		return pw.readOnlyMenu()
	}
	file := fyne.NewMenu("File",
		&fyne.MenuItem{Label: "Open session store…", Action: pw.imports.onOpen, Shortcut: views.Shortcut(views.KeyOpenStore)},
		&fyne.MenuItem{Label: "Import transcript…", Action: pw.imports.onImport, Shortcut: views.Shortcut(views.KeyImport)},
		&fyne.MenuItem{Label: "Import native history…", Action: pw.imports.onImportNative},
		&fyne.MenuItem{Label: "Export session as .azs…", Action: pw.exports.onExport, Shortcut: views.Shortcut(views.KeyExport)},
	)
	session := fyne.NewMenu("Session",
		&fyne.MenuItem{Label: "New session", Action: pw.list.onNewSession, Shortcut: views.Shortcut(views.KeyNewSession)},
		&fyne.MenuItem{Label: "Find in session", Action: pw.mv.Transcript().Find().Show, Shortcut: views.Shortcut(views.KeyFind)},
		&fyne.MenuItem{Label: "Search all sessions…", Action: pw.search.showSearch, Shortcut: views.Shortcut(views.KeySearch)},
		&fyne.MenuItem{Label: "Team sessions…", Action: pw.tools.showTeam},
		&fyne.MenuItem{Label: "Team database…", Action: func() { pw.team.showSettings() }},
		fyne.NewMenuItemSeparator(),
	)
	session.Items = append(session.Items, pw.navigateMenuItems()...)
	session.Items = append(session.Items,
		fyne.NewMenuItemSeparator(),
		&fyne.MenuItem{Label: "Stop agent", Action: pw.runner.onStop},
		&fyne.MenuItem{Label: "Compact session now", Action: pw.compact.onCompactNow},
		fyne.NewMenuItemSeparator(),
		&fyne.MenuItem{Label: "Export as Markdown, HTML or JSON…", Action: pw.exports.onExportDocument},
		fyne.NewMenuItemSeparator(),
	)
	session.Items = append(session.Items, pw.list.lifecycleMenuItems()...)
	agentsMenu := fyne.NewMenu("Agents", fyne.NewMenuItem("Agent settings…", pw.runner.showAgentSettings),
		fyne.NewMenuItem("Project permissions…", pw.perms.editProject),
		fyne.NewMenuItem("Save policy (this project)…", pw.runner.showSavePolicy), pw.fullTextMenuItem(), pw.imports.nativeSyncMenuItem())
	return fyne.NewMainMenu(file, session, pw.tools.insightMenu(), pw.tools.chronicleMenu(), agentsMenu, pw.helpMenu())
}

// readOnlyMenu is the menu bar of a read-only window: looking, searching,
// exporting documents, closing.
func (pw *projectWindow) readOnlyMenu() *fyne.MainMenu {
	file := fyne.NewMenu("File",
		&fyne.MenuItem{Label: "Open session store…", Action: pw.imports.onOpen, Shortcut: views.Shortcut(views.KeyOpenStore)},
		&fyne.MenuItem{Label: "Close window", Action: pw.closeWin, Shortcut: views.Shortcut(views.KeyCloseWindow)},
	)
	session := fyne.NewMenu("Session",
		&fyne.MenuItem{Label: "Find in session", Action: pw.mv.Transcript().Find().Show, Shortcut: views.Shortcut(views.KeyFind)},
		&fyne.MenuItem{Label: "Search all sessions…", Action: pw.search.showSearch, Shortcut: views.Shortcut(views.KeySearch)},
		fyne.NewMenuItemSeparator(),
	)
	session.Items = append(session.Items, pw.navigateMenuItems()...)
	session.Items = append(session.Items, fyne.NewMenuItemSeparator(),
		&fyne.MenuItem{Label: "Export as Markdown, HTML or JSON…", Action: pw.exports.onExportDocument})
	return fyne.NewMainMenu(file, session, pw.helpMenu())
}

// helpMenu lists the keyboard shortcuts and tells about Lazuli.
func (pw *projectWindow) helpMenu() *fyne.Menu {
	return fyne.NewMenu("Help",
		&fyne.MenuItem{Label: "Keyboard shortcuts", Action: pw.showShortcuts, Shortcut: views.Shortcut(views.KeyShortcuts)},
		fyne.NewMenuItem("About Lazuli", pw.onAbout))
}

func (pw *projectWindow) showShortcuts() { views.ShowShortcuts(pw.win) }

func (pw *projectWindow) onAbout() {
	meta := pw.ui.fa.Metadata()
	version := meta.Version
	if version == "" {
		version = "development build"
	}
	views.ShowMessage(pw.win, "About Lazuli",
		"Lazuli "+version+"\nThe home of coding-agent sessions.\nStores are AZUREAL v3 .azs files.")
}

// canvasKeys are the window's actions bound to its canvas too: the menu's
// shortcuts work through the menu wherever the keyboard is (the desktop
// driver runs them first), the canvas's where there is no menu (a test).
// Each key is the shortcut of its row in views' table.
func (pw *projectWindow) canvasKeys() map[views.KeyID]func() {
	return map[views.KeyID]func(){
		views.KeyNewSession:  pw.list.onNewSession,
		views.KeyOpenStore:   pw.imports.onOpen,
		views.KeyImport:      pw.imports.onImport,
		views.KeyExport:      pw.exports.onExport,
		views.KeySearch:      pw.search.showSearch,
		views.KeyInsights:    pw.tools.showInsights,
		views.KeySQLConsole:  pw.tools.showSQLConsole,
		views.KeyRecentEdits: pw.tools.showRecentEdits,
		views.KeyShortcuts:   pw.showShortcuts,
	}
}
