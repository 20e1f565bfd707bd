package app

import (
	"fmt"
	"net/url"
	"path/filepath"

	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/widget"
)

// openPath opens a file or folder with the desktop's opener (fyne's
// OpenURL on a file: URL, xdg-open on Linux).
func (ui *gui) openPath(path string) error {
	u, err := url.Parse(storage.NewFileURI(path).String())
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	if err := ui.fa.OpenURL(u); err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	return nil
}

// showSaved tells that a file was written, with msg, and offers to open it
// or its folder through open (nil: the desktop's opener).
func (pw *projectWindow) showSaved(title, msg, path string, open func(string) error) {
	if open == nil {
		open = pw.ui.openPath
	}
	var d dialog.Dialog
	try := func(target string) {
		if err := open(target); err != nil {
			pw.showError("open", err)
			return
		}
		d.Hide()
	}
	openBtn := widget.NewButton("Open", func() { try(path) })
	openBtn.Importance = widget.HighImportance
	folderBtn := widget.NewButton("Show in folder", func() { try(filepath.Dir(path)) })
	content := container.NewVBox(widget.NewLabel(msg), container.NewHBox(openBtn, folderBtn))
	d = dialog.NewCustom(title, "Close", content, pw.win)
	d.Show()
}
