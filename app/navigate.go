package app

import (
	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/views"
)

// navigateMenuItems are the Session menu's prompt navigation items (their
// shortcuts are the menu's, so they work wherever the keyboard is) and
// resuming the session in its agent's CLI (resume.go).
func (pw *projectWindow) navigateMenuItems() []*fyne.MenuItem {
	tr := pw.mv.Transcript()
	return []*fyne.MenuItem{
		{Label: "Next prompt", Action: func() { tr.Nav().NextPrompt() }, Shortcut: views.PromptShortcuts.Next},
		{Label: "Previous prompt", Action: func() { tr.Nav().PreviousPrompt() }, Shortcut: views.PromptShortcuts.Previous},
		{Label: "Prompts of this session…", Action: func() { tr.Nav().ShowOutline(pw.win) }, Shortcut: views.PromptOutlineShortcut},
		// On the menu, which runs its shortcuts before the widget with the
		// keyboard sees them: from a card's text (which keeps every key)
		// too.
		{Label: "Transcript tab", Action: func() { pw.mv.ShowFilesTab(false) }, Shortcut: views.Shortcut(views.KeyTranscriptTab)},
		{Label: "Files tab", Action: func() { pw.mv.ShowFilesTab(true) }, Shortcut: views.Shortcut(views.KeyFilesTab)},
		{Label: "Go to the start of the session", Action: func() { tr.Nav().ScrollKey(fyne.KeyHome) }, Shortcut: views.Shortcut(views.KeyTop)},
		{Label: "Go to the end of the session", Action: func() { tr.Nav().ScrollKey(fyne.KeyEnd) }, Shortcut: views.Shortcut(views.KeyBottom)},
		{Label: "Copy command to resume in its agent's CLI", Action: pw.shown.copyResumeCommand},
	}
}
