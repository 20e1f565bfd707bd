package views

import (
	"errors"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/display"
)

// errNoWindow is logged when a dialog has no window to open in (the view is
// not shown yet).
var errNoWindow = errors.New("view is not in a window")

// windowOf returns the window that shows o, or nil.
func windowOf(o fyne.CanvasObject) fyne.Window {
	d := fyne.CurrentApp().Driver()
	c := d.CanvasForObject(o)
	if c == nil {
		return nil
	}
	for _, w := range d.AllWindows() {
		if w.Canvas() == c {
			return w
		}
	}
	return nil
}

// onRename asks for the selected session's new name; RenameSession is
// called only when the user confirms a non-empty, different name.
func (s *Sidebar) onRename() {
	r, ok := s.selectedRow()
	w := windowOf(s.root)
	if !ok || s.team {
		return
	}
	if w == nil {
		fyne.LogError("rename session", errNoWindow)
		return
	}
	sess := s.groups[r.group].Sessions[r.index]
	ref := r.ref
	entry := widget.NewEntry()
	entry.SetText(sess.DisplayName())
	items := []*widget.FormItem{widget.NewFormItem("Name", entry)}
	d := dialog.NewForm("Rename session", "Rename", "Cancel", items, func(confirmed bool) {
		name := strings.TrimSpace(entry.Text)
		if confirmed && name != "" && name != sess.DisplayName() {
			s.actions.RenameSession(ref, name)
		}
	}, w)
	entry.OnSubmitted = func(string) { d.Submit() }
	d.Resize(fyne.NewSize(360, d.MinSize().Height))
	d.Show()
	w.Canvas().Focus(entry)
	entry.TypedShortcut(&fyne.ShortcutSelectAll{}) // typing replaces the name
}

// onDelete asks the user to confirm deleting the selected session, naming
// it and its event count; DeleteSession is called only on confirmation.
func (s *Sidebar) onDelete() {
	r, ok := s.selectedRow()
	w := windowOf(s.root)
	if !ok || s.team {
		return
	}
	if w == nil {
		fyne.LogError("delete session", errNoWindow)
		return
	}
	sess := s.groups[r.group].Sessions[r.index]
	ref := r.ref
	msg := fmt.Sprintf("Delete session “%s” and its %s?\nThis cannot be undone.",
		sess.DisplayName(), display.Plural(sess.EventCount, "event"))
	if sess.EventCount < 0 { // not counted yet (store.ListSessionsQuick)
		msg = fmt.Sprintf("Delete session “%s” and its events?\nThis cannot be undone.", sess.DisplayName())
	}
	d := dialog.NewConfirm("Delete session", msg, func(confirmed bool) {
		if confirmed {
			s.actions.DeleteSession(ref)
		}
	}, w)
	d.SetConfirmText("Delete")
	d.SetDismissText("Cancel")
	d.SetConfirmImportance(widget.DangerImportance)
	d.Show()
}
