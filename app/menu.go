package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"

	"github.com/lazuli-app/lazuli/views"
)

// mainMenu is the window's menu bar; a read-only window's offers nothing
// that writes to its store.
func (pw *projectWindow) mainMenu() *fyne.MainMenu {
	if pw.readOnly {
		return pw.readOnlyMenu()
	}
	file := fyne.NewMenu("File",
		&fyne.MenuItem{Label: "Open session store…", Action: pw.imports.onOpen, Shortcut: shortcut(fyne.KeyO)},
		&fyne.MenuItem{Label: "Import transcript…", Action: pw.imports.onImport, Shortcut: shortcut(fyne.KeyI)},
		&fyne.MenuItem{Label: "Import native history…", Action: pw.imports.onImportNative},
		&fyne.MenuItem{Label: "Export session as .azs…", Action: pw.exports.onExport, Shortcut: shortcut(fyne.KeyE)},
	)
	session := fyne.NewMenu("Session",
		&fyne.MenuItem{Label: "New session", Action: pw.list.onNewSession, Shortcut: shortcut(fyne.KeyN)},
		&fyne.MenuItem{Label: "Find in session", Action: pw.mv.Transcript().Find().Show, Shortcut: shortcut(fyne.KeyF)},
		&fyne.MenuItem{Label: "Search all sessions…", Action: pw.search.showSearch, Shortcut: shortcut(fyne.KeyK)},
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
	help := fyne.NewMenu("Help", fyne.NewMenuItem("About Lazuli", pw.onAbout))
	return fyne.NewMainMenu(file, session, pw.tools.insightMenu(), pw.tools.chronicleMenu(), agentsMenu, help)
}

// readOnlyMenu is the menu bar of a read-only window: looking, searching,
// exporting documents, closing.
func (pw *projectWindow) readOnlyMenu() *fyne.MainMenu {
	file := fyne.NewMenu("File",
		&fyne.MenuItem{Label: "Open session store…", Action: pw.imports.onOpen, Shortcut: shortcut(fyne.KeyO)},
		&fyne.MenuItem{Label: "Close window", Action: pw.closeWin, Shortcut: shortcut(fyne.KeyW)},
	)
	session := fyne.NewMenu("Session",
		&fyne.MenuItem{Label: "Find in session", Action: pw.mv.Transcript().Find().Show, Shortcut: shortcut(fyne.KeyF)},
		&fyne.MenuItem{Label: "Search all sessions…", Action: pw.search.showSearch, Shortcut: shortcut(fyne.KeyK)},
		fyne.NewMenuItemSeparator(),
	)
	session.Items = append(session.Items, pw.navigateMenuItems()...)
	session.Items = append(session.Items, fyne.NewMenuItemSeparator(),
		&fyne.MenuItem{Label: "Export as Markdown, HTML or JSON…", Action: pw.exports.onExportDocument})
	help := fyne.NewMenu("Help", fyne.NewMenuItem("About Lazuli", pw.onAbout))
	return fyne.NewMainMenu(file, session, help)
}

func (pw *projectWindow) onAbout() {
	meta := pw.ui.fa.Metadata()
	version := meta.Version
	if version == "" {
		version = "development build"
	}
	views.ShowMessage(pw.win, "About Lazuli",
		"Lazuli "+version+"\nThe home of coding-agent sessions.\nStores are AZUREAL v3 .azs files.")
}

// shortcut is Ctrl+key (Cmd+key on macOS).
func shortcut(key fyne.KeyName) fyne.Shortcut {
	return &desktop.CustomShortcut{KeyName: key, Modifier: fyne.KeyModifierShortcutDefault}
}
