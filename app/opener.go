package app

import (
	"fmt"
	"net/url"

	"fyne.io/fyne/v2/storage"
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
