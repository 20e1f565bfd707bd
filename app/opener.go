package app

import (
	"fmt"
	"net/url"

	"fyne.io/fyne/v2/storage"

	"github.com/lazuli-app/lazuli/safelink"
)

// openWeb opens a web address (http, https or mailto: safelink.Opens)
// with the desktop's opener, and refuses anything else: a link in a
// transcript, a report or a ref chip never reaches xdg-open with another
// scheme.
func (ui *gui) openWeb(raw string) error {
	if !safelink.Opens(raw) {
		return fmt.Errorf("not a web address: %q", raw)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("open %s: %w", raw, err)
	}
	if err := ui.fa.OpenURL(u); err != nil {
		return fmt.Errorf("open %s: %w", raw, err)
	}
	return nil
}

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
