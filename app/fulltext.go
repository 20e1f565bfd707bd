package app

import (
	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/project"
)

// prefFullTextOff, followed by a project's key, is set when the project
// keeps only what AZUREAL keeps: no full tool output or Write content
// beside the shortened events (store.FullTextTable).
const prefFullTextOff = "fulltext.off:"

// projectKey names the window's project in preferences: the smallest of
// its worktree folders (or store files), the same whichever worktree the
// project was opened from.
func (pw *projectWindow) projectKey() string { return project.Key(pw.wts) }

// keepFullText reports the project's setting: on unless turned off (and
// on for a window without preferences).
func (pw *projectWindow) keepFullText() bool {
	if pw.ui == nil || pw.ui.fa == nil {
		return true
	}
	return !pw.ui.fa.Preferences().Bool(prefFullTextOff + pw.projectKey())
}

// setKeepFullText changes the project's setting and applies it to the
// stores open in the window; later writes follow it.
func (pw *projectWindow) setKeepFullText(on bool) {
	pw.ui.fa.Preferences().SetBool(prefFullTextOff+pw.projectKey(), !on)
	for _, st := range pw.stores.all() {
		st.FullText().SetKeep(on)
	}
}

// fullTextMenuItem is the menu's check item for the setting.
func (pw *projectWindow) fullTextMenuItem() *fyne.MenuItem {
	item := &fyne.MenuItem{Label: "Keep full tool output for search (this project)", Checked: pw.keepFullText()}
	item.Action = func() {
		pw.setKeepFullText(!pw.keepFullText())
		item.Checked = pw.keepFullText()
		if m := pw.win.MainMenu(); m != nil {
			m.Refresh()
		}
	}
	return item
}
