package app

import (
	"errors"
	"fmt"
	"net/url"
	"os/exec"

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

// noOpenerNote is what the status says when a web address was copied
// because the desktop has no opener.
const noOpenerNote = "No browser opener found; link copied"

// openWebOrCopy opens a web address as openWeb does (safelink's checks
// first: anything else is refused, not copied). When the desktop has no
// opener (xdg-open is not installed), the address is copied to the
// clipboard instead and the status line says so: a raw
// `exec: "xdg-open": executable file not found` tells the user nothing
// they can act on. what names the action in an error.
func (pw *projectWindow) openWebOrCopy(what, raw string) {
	err := pw.ui.openWeb(raw)
	if errors.Is(err, exec.ErrNotFound) {
		pw.ui.fa.Clipboard().SetContent(raw)
		pw.status.set(pw.shown.ref(), noOpenerNote+": "+raw, false)
		return
	}
	if err != nil {
		pw.showError(what, err)
	}
}
