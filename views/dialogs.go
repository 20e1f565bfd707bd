package views

// The window's small dialogs: messages, errors, the file pickers, the
// preview of a dropped store and the "saved" note of an export. The app
// decides when to show them and what they say; they call back with what
// the user chose.

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/store"
)

// ShowMessage shows text under title, with an OK button that has the
// keyboard: Enter or Esc closes it.
func ShowMessage(w fyne.Window, title, text string) {
	showNote(w, title, text, theme.InfoIcon())
}

// ShowError shows err, with an OK button that has the keyboard: Enter or
// Esc closes it.
func ShowError(w fyne.Window, err error) {
	showNote(w, "Error", capitalized(err.Error()), theme.ErrorIcon())
}

// showNote is dialog.ShowInformation and ShowError answering the
// keyboard (Fyne's own ignore Enter and Esc).
func showNote(w fyne.Window, title, text string, icon fyne.Resource) {
	l := &widget.Label{Text: text, Alignment: fyne.TextAlignCenter, Wrapping: fyne.TextWrapWord}
	d := dialog.NewCustomWithoutButtons(title, l, w)
	d.SetIcon(icon)
	ok := newDialogButton("OK", d.Hide, d.Hide)
	d.SetButtons([]fyne.CanvasObject{ok})
	// As wide as the text on one line, within 600 and 90% of the window
	// (Fyne's own text dialogs' width).
	oneLine := widget.NewLabel(text).MinSize().Width + 32 + 2*theme.Padding()
	width := min(oneLine, 600, w.Canvas().Size().Width*0.9)
	if width >= oneLine {
		// No line wraps: as tall as the text unwrapped (a wrapping label
		// not yet laid out asks for a line per word).
		l.Wrapping = fyne.TextWrapOff
		l.Refresh()
	}
	d.Resize(fyne.NewSize(width, d.MinSize().Height))
	showFocused(w, d, ok)
}

// showFocused shows d with the keyboard on focus (a dialogButton).
func showFocused(w fyne.Window, d dialog.Dialog, focus fyne.Focusable) {
	d.Show()
	w.Canvas().Focus(focus)
}

// capitalized is s with its first letter upper case, as Fyne's error
// dialog shows an error.
func capitalized(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// AskOpenFile asks for an existing file whose name ends in one of exts
// (".azs"), starting in the folder dir (the project's worktree; "" or a
// folder that cannot be listed: the picker's own choice), and calls chosen
// with its path, or with the picker's error. A cancelled picker calls
// nothing.
func AskOpenFile(w fyne.Window, exts []string, dir string, chosen func(path string, err error)) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) { picked(r, err, chosen) }, w)
	d.SetFilter(storage.NewExtensionFileFilter(exts))
	startIn(d, dir)
	d.Show()
}

// AskSaveFile asks where to save a file, suggesting name in the folder dir
// (as AskOpenFile), and calls chosen with the path, or with the picker's
// error. A cancelled picker calls nothing. The picker creates the file
// empty; the caller writes it.
func AskSaveFile(w fyne.Window, name string, exts []string, dir string, chosen func(path string, err error)) {
	d := dialog.NewFileSave(func(wc fyne.URIWriteCloser, err error) { picked(wc, err, chosen) }, w)
	d.SetFileName(name)
	d.SetFilter(storage.NewExtensionFileFilter(exts))
	startIn(d, dir)
	d.Show()
}

// startIn makes the picker d open in the folder dir, when it is one.
func startIn(d *dialog.FileDialog, dir string) {
	if dir == "" {
		return
	}
	if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
		d.SetLocation(l)
	}
}

// pickedFile is the file a picker hands back.
type pickedFile interface {
	URI() fyne.URI
	Close() error
}

// picked hands the path of the file a picker chose (closed: only the path
// is needed), or the picker's error, to chosen; nothing when cancelled.
func picked(f pickedFile, err error, chosen func(path string, err error)) {
	switch {
	case err != nil:
		chosen("", err)
	case f != nil:
		path := f.URI().Path()
		_ = f.Close()
		chosen(path, nil)
	}
}

// StorePreview is what the drop dialog shows about another store file.
type StorePreview struct {
	Path       string
	Size       int64 // bytes on disk
	Sessions   []store.Session
	Events     int64
	Duplicates map[int64]int64 // a dropped session's id -> its id in the target store
	Target     string          // the branch a merge writes into
	CanMerge   bool            // false in a read-only window or without a target
}

// ShowStorePreview shows the drop dialog of a store file: Cancel, Open
// read-only (openReadOnly) or Merge into the target (merge).
func ShowStorePreview(w fyne.Window, p StorePreview, openReadOnly, merge func()) {
	lines := make([]string, 0, len(p.Sessions))
	for _, s := range p.Sessions {
		line := fmt.Sprintf("%s  ·  %s  ·  %s", s.DisplayName(), s.Worktree, display.Plural(s.EventCount, "event"))
		if _, dup := p.Duplicates[s.ID]; dup {
			line += "  ·  already in this project"
		}
		lines = append(lines, line)
	}
	summary := widget.NewLabel(fmt.Sprintf("%s\n%s, %s, %s on disk; %s.", p.Path, display.Plural(len(p.Sessions), "session"),
		display.Plural(p.Events, "event"), display.Bytes(p.Size), duplicatesNote(len(p.Duplicates))))
	summary.Wrapping = fyne.TextWrapWord
	list := widget.NewLabel(strings.Join(lines, "\n"))
	scroll := container.NewVScroll(list)
	scroll.SetMinSize(fyne.NewSize(520, 180))
	var d *dialog.CustomDialog
	hide := func() { d.Hide() }
	openBtn := newDialogButton("Open read-only", func() { d.Hide(); openReadOnly() }, hide)
	mergeBtn := newDialogButton("Merge into "+p.Target, func() { d.Hide(); merge() }, hide)
	mergeBtn.Importance = widget.HighImportance
	first := mergeBtn // Enter merges, as the highlighted button says
	if !p.CanMerge {
		mergeBtn.Disable()
		first = openBtn
	}
	cancel := newDialogButton("Cancel", hide, hide)
	content := container.NewBorder(summary, nil, nil, nil, scroll)
	d = dialog.NewCustomWithoutButtons("Session store "+filepath.Base(p.Path), content, w)
	d.SetButtons([]fyne.CanvasObject{cancel, openBtn, mergeBtn})
	showFocused(w, d, first)
}

// duplicatesNote says how many sessions of a dropped store look like ones
// already in the project.
func duplicatesNote(n int) string {
	if n == 1 {
		return "1 looks like a duplicate of a session you already have"
	}
	return display.Count(n) + " look like duplicates of sessions you already have"
}

// ShowSaved tells that the file at path was written, with msg, and offers
// to open it or its folder through open. When open fails, failed gets the
// error and the dialog stays.
func ShowSaved(w fyne.Window, title, msg, path string, open func(target string) error, failed func(error)) {
	var d *dialog.CustomDialog
	try := func(target string) {
		if err := open(target); err != nil {
			failed(err)
			return
		}
		d.Hide()
	}
	hide := func() { d.Hide() }
	openBtn := newDialogButton("Open", func() { try(path) }, hide)
	openBtn.Importance = widget.HighImportance
	folderBtn := newDialogButton("Show in folder", func() { try(filepath.Dir(path)) }, hide)
	content := container.NewVBox(widget.NewLabel(msg), container.NewHBox(openBtn, folderBtn))
	d = dialog.NewCustomWithoutButtons(title, content, w)
	d.SetButtons([]fyne.CanvasObject{newDialogButton("Close", hide, hide)})
	showFocused(w, d, openBtn)
}
