package views

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/export"
	"github.com/lazuli-app/lazuli/store"
)

// ExportRequest is an export the user confirmed in the export dialog: the
// session as it was scanned, what the scan found, and where it goes.
type ExportRequest struct {
	Source export.Source
	Report export.Report
	Format export.Format
	Redact bool   // replace the findings with [REDACTED:rule]
	Path   string // the folder and file name chosen in the dialog
	// Overwrite is set when Path existed and the user confirmed replacing
	// it. Without it the export must not replace a file that appeared
	// since (export.ErrExists).
	Overwrite bool
}

// ExportOptions are what the export dialog starts with.
type ExportOptions struct {
	Ref    SessionRef
	Format export.Format // the format selected first; "" means Markdown
	Folder string        // the folder the file goes to first; "" for the home folder
}

// Sizes of the export dialog.
const (
	exportDialogWidth  = 720
	exportDialogHeight = 600
)

// ExportDialog exports a session (Session › Export…): the user picks a
// format, a folder and a file name, reviews what the secret scan found,
// and chooses to redact or to export as is. It shows "Scanning…" until the
// app hands it the scan with SetScan, or an error with SetError.
//
// The dialog never opens the destination itself (Fyne's save dialog would
// create or empty it before anything is written): it asks before
// replacing an existing file and hands the path to the app, which writes
// a temporary file and renames it into place. It stays open, its controls
// disabled, until the app reports with Hide or ExportFailed. Its methods
// must run on the Fyne goroutine.
type ExportDialog struct {
	actions ExportActions
	opts    ExportOptions
	src     export.Source
	rep     export.Report
	scanned bool
	writing bool   // a request was sent and the app has not answered
	folder  string // where the file goes
	// autoName is the file name the dialog last proposed; a name the
	// user typed is kept when the scan arrives.
	autoName string

	// chooseFolder asks for a folder, starting in dir (Fyne's folder
	// dialog), and calls done with it unless cancelled; tests replace it.
	chooseFolder func(dir string, done func(path string))

	title      *widget.Label
	format     *widget.RadioGroup
	folderText *widget.Label
	browse     *widget.Button
	name       *widget.Entry
	status     *widget.Label
	progress   *widget.ProgressBarInfinite
	list       *widget.List
	reviewed   *widget.Check
	asIs       *widget.Button
	redact     *widget.Button
	plain      *widget.Button // "Export" when nothing was found
	cancel     *widget.Button
	dialog     *dialog.CustomDialog
	win        fyne.Window
}

// ShowExport opens the export dialog over w.
func ShowExport(w fyne.Window, a ExportActions, opts ExportOptions) *ExportDialog {
	d := &ExportDialog{actions: a, opts: opts, win: w, folder: startFolder(opts.Folder)}
	d.chooseFolder = d.folderDialog
	d.title = widget.NewLabel(fmt.Sprintf("S%d", opts.Ref.ID))
	d.title.TextStyle.Bold = true
	d.title.Truncation = fyne.TextTruncateEllipsis
	names := make([]string, len(export.Formats))
	for i, f := range export.Formats {
		names[i] = formatLabel(f)
	}
	d.format = widget.NewRadioGroup(names, nil)
	d.format.Horizontal = true
	d.format.Required = true
	first := opts.Format
	if first == "" {
		first = export.Markdown
	}
	d.format.SetSelected(formatLabel(first))
	d.format.OnChanged = func(string) { d.onFormat() }
	d.folderText = widget.NewLabel(d.folder)
	d.folderText.Truncation = fyne.TextTruncateEllipsis
	d.browse = widget.NewButtonWithIcon("Choose folder…", theme.FolderOpenIcon(), d.onChooseFolder)
	d.autoName = export.DefaultFileName(store.Session{ID: opts.Ref.ID}, first)
	d.name = widget.NewEntry()
	d.name.SetText(d.autoName)
	d.name.OnSubmitted = func(string) { d.onSubmit() }
	d.status = widget.NewLabel("Scanning the session for secrets…")
	d.status.Wrapping = fyne.TextWrapWord
	d.progress = widget.NewProgressBarInfinite()
	d.list = &widget.List{Length: d.length, CreateItem: d.createItem, UpdateItem: d.updateItem}
	d.list.ExtendBaseWidget(d.list)
	d.list.Hide()
	d.reviewed = widget.NewCheck("I reviewed these findings and want to export them as they are", func(bool) { d.update() })
	d.reviewed.Hide()
	d.asIs = widget.NewButtonWithIcon("Export as is", theme.WarningIcon(), func() { d.onExport(false) })
	d.asIs.Importance = widget.DangerImportance
	d.redact = widget.NewButtonWithIcon("Redact and export", theme.VisibilityOffIcon(), func() { d.onExport(true) })
	d.redact.Importance = widget.HighImportance
	d.plain = widget.NewButtonWithIcon("Export", theme.DocumentSaveIcon(), func() { d.onExport(false) })
	d.plain.Importance = widget.HighImportance
	d.cancel = widget.NewButton("Cancel", func() { d.dialog.Hide() })

	form := container.New(layout.NewFormLayout(),
		widget.NewLabel("Format:"), d.format,
		widget.NewLabel("Save to:"), container.NewBorder(nil, nil, nil, d.browse, d.folderText),
		widget.NewLabel("File name:"), d.name)
	top := container.NewVBox(d.title, form, widget.NewSeparator(), d.status, d.progress)
	content := container.NewBorder(top, d.reviewed, nil, nil, d.list)
	d.dialog = dialog.NewCustomWithoutButtons("Export session", content, w)
	d.dialog.SetButtons([]fyne.CanvasObject{d.cancel, d.asIs, d.redact, d.plain})
	d.dialog.Resize(fyne.NewSize(exportDialogWidth, exportDialogHeight))
	d.dialog.SetOnClosed(d.progress.Stop) // a dialog closed while scanning stops animating
	d.update()
	d.dialog.Show()
	return d
}

// startFolder is the folder the dialog starts in: folder, else the home
// folder, else the current one.
func startFolder(folder string) string {
	if folder != "" {
		return filepath.Clean(folder)
	}
	if home, err := os.UserHomeDir(); err == nil {
		return home
	}
	if wd, err := os.Getwd(); err == nil {
		return wd
	}
	return "."
}

// formatLabel names a format in the dialog.
func formatLabel(f export.Format) string {
	switch f {
	case export.Markdown:
		return "Markdown"
	case export.HTML:
		return "HTML (one file)"
	}
	return f.String()
}

// Format returns the format selected.
func (d *ExportDialog) Format() export.Format {
	for _, f := range export.Formats {
		if formatLabel(f) == d.format.Selected {
			return f
		}
	}
	return export.Markdown
}

// SetScan shows what the scan of src found: "No secrets found", or the
// findings to review.
func (d *ExportDialog) SetScan(src export.Source, rep export.Report) {
	d.src, d.rep, d.scanned = src, rep, true
	d.title.SetText(fmt.Sprintf("S%d · %s · %s", src.Session.ID, src.Session.DisplayName(), display.Plural(int64(len(src.Events)), "event")))
	if d.name.Text == d.autoName {
		d.autoName = export.DefaultFileName(src.Session, d.Format())
		d.name.SetText(d.autoName)
	}
	d.progress.Stop()
	d.progress.Hide()
	if n := len(rep.Findings); n == 0 {
		d.status.SetText("No secrets found. The export holds the session as the transcript shows it.")
		d.status.Importance = widget.SuccessImportance
	} else {
		d.status.SetText(fmt.Sprintf("Found %s (%s). Review them: redacting replaces each with [REDACTED:rule] in the file; the session itself is not changed.",
			display.Plural(int64(n), "possible secret"), display.Plural(int64(rep.Occurrences()), "occurrence")))
		d.status.Importance = widget.WarningImportance
		d.list.Show()
		d.reviewed.Show()
	}
	d.status.Refresh()
	d.list.Refresh()
	d.update()
}

// SetError says why the session could not be read or scanned.
func (d *ExportDialog) SetError(msg string) {
	d.progress.Stop()
	d.progress.Hide()
	d.status.SetText(msg)
	d.status.Importance = widget.DangerImportance
	d.status.Refresh()
	d.update()
}

// Hide closes the dialog; the app calls it once the file is written.
func (d *ExportDialog) Hide() {
	d.writing = false
	d.progress.Stop()
	d.dialog.Hide()
}

// ExportFailed shows why the export failed and lets the user try again,
// with another folder or name for instance. The file was not written;
// any file of that name is as it was.
func (d *ExportDialog) ExportFailed(err error) {
	d.writing = false
	d.progress.Stop()
	d.progress.Hide()
	d.update()
	dialog.ShowError(err, d.win)
}

// update shows the buttons that fit the scan: Export when it found
// nothing; Redact and export and Export as is (once reviewed) when it
// found secrets; none usable before it is done or while the file is
// written, when the other controls are disabled too.
func (d *ExportDialog) update() {
	found := d.scanned && len(d.rep.Findings) > 0
	ready := d.scanned && !d.writing
	for _, b := range []struct {
		btn           *widget.Button
		shown, usable bool
	}{
		{d.plain, !found, ready && !found},
		{d.redact, found, ready && found},
		{d.asIs, found, ready && found && d.reviewed.Checked},
	} {
		if b.shown {
			b.btn.Show()
		} else {
			b.btn.Hide()
		}
		setEnabled(b.btn, b.usable)
	}
	for _, w := range []fyne.Disableable{d.format, d.browse, d.name, d.reviewed, d.cancel} {
		setEnabled(w, !d.writing)
	}
}

// session is the session exported, as far as the dialog knows it.
func (d *ExportDialog) session() store.Session {
	if d.scanned {
		return d.src.Session
	}
	return store.Session{ID: d.opts.Ref.ID}
}

// onFormat gives the file name the extension of the format selected: the
// proposed name follows the format; a name the user typed keeps its stem
// and changes only an export extension (.md, .html, .json, …).
func (d *ExportDialog) onFormat() {
	f := d.Format()
	name := d.name.Text
	if name == d.autoName {
		d.autoName = export.DefaultFileName(d.session(), f)
		d.name.SetText(d.autoName)
		return
	}
	if old, ok := export.FormatOf(name); ok && old != f {
		d.name.SetText(strings.TrimSuffix(name, filepath.Ext(name)) + f.Ext())
	}
}

// onChooseFolder asks for the folder the file goes to.
func (d *ExportDialog) onChooseFolder() {
	d.chooseFolder(d.folder, func(path string) {
		d.folder = filepath.Clean(path)
		d.folderText.SetText(d.folder)
	})
}

// folderDialog asks for a folder with Fyne's folder dialog, which only
// lists folders: nothing is opened for writing.
func (d *ExportDialog) folderDialog(dir string, done func(path string)) {
	fd := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		switch {
		case err != nil:
			dialog.ShowError(err, d.win)
		case u == nil: // cancelled
		case u.Scheme() != "file":
			d.showProblem(fmt.Sprintf("%s is not a folder on this computer: choose a local folder.", u))
		default:
			done(u.Path())
		}
	}, d.win)
	fd.SetConfirmText("Choose")
	if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
		fd.SetLocation(l)
	}
	fd.Show()
}

// onSubmit exports with the highlighted button when Enter is pressed in
// the file name: Export, or Redact and export.
func (d *ExportDialog) onSubmit() {
	d.onExport(d.scanned && len(d.rep.Findings) > 0)
}

// onExport checks the folder and the file name, asks before replacing an
// existing file, then sends the export.
func (d *ExportDialog) onExport(redact bool) {
	if !d.scanned || d.writing || (!redact && len(d.rep.Findings) > 0 && !d.reviewed.Checked) {
		return
	}
	path, problem := d.target()
	if problem != "" {
		d.showProblem(problem)
		return
	}
	req := ExportRequest{Source: d.src, Report: d.rep, Format: d.Format(), Redact: redact, Path: path}
	name := filepath.Base(path)
	switch fi, err := os.Lstat(path); {
	case errors.Is(err, fs.ErrNotExist):
		d.send(req)
	case err != nil:
		dialog.ShowError(fmt.Errorf("check %s: %w", path, err), d.win)
	case fi.IsDir():
		d.showProblem(fmt.Sprintf("%s is a folder in %s: choose another file name.", name, filepath.Dir(path)))
	default:
		d.askReplace(req)
	}
}

// target is the path the export goes to, or what is wrong with the folder
// or the file name.
func (d *ExportDialog) target() (path, problem string) {
	name := strings.TrimSpace(d.name.Text)
	switch {
	case name == "":
		return "", "Enter a file name."
	case name == "." || name == ".." || strings.ContainsAny(name, `/`+string(filepath.Separator)+"\x00"):
		return "", fmt.Sprintf("%q is not a file name: a name cannot contain a slash. Choose the folder with Choose folder….", name)
	}
	switch fi, err := os.Stat(d.folder); {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Sprintf("The folder %s does not exist: choose another with Choose folder….", d.folder)
	case err != nil:
		return "", fmt.Sprintf("The folder %s cannot be used: %v", d.folder, err)
	case !fi.IsDir():
		return "", fmt.Sprintf("%s is not a folder: choose one with Choose folder….", d.folder)
	}
	return filepath.Join(d.folder, name), ""
}

// askReplace asks before req replaces its existing file, then sends it
// with Overwrite. The old file stays as it is until the new one is
// complete.
func (d *ExportDialog) askReplace(req ExportRequest) {
	name := filepath.Base(req.Path)
	msg := fmt.Sprintf("%s already exists in %s.\nThe new file replaces it only once it is completely written; if the export fails, the old file stays as it is.",
		name, filepath.Dir(req.Path))
	c := dialog.NewConfirm("Replace "+name+"?", msg, func(ok bool) {
		if ok {
			req.Overwrite = true
			d.send(req)
		}
	}, d.win)
	c.SetConfirmText("Replace")
	c.SetDismissText("Cancel")
	c.SetConfirmImportance(widget.DangerImportance)
	c.Show()
}

// send hands req to the app and waits, controls disabled, for Hide or
// ExportFailed.
func (d *ExportDialog) send(req ExportRequest) {
	d.writing = true
	d.progress.Show()
	d.progress.Start()
	d.update()
	d.actions.ExportSession(req)
}

// showProblem says what is wrong with the user's choice.
func (d *ExportDialog) showProblem(msg string) {
	dialog.ShowInformation("Cannot export", msg, d.win)
}

func (d *ExportDialog) length() int { return len(d.rep.Findings) }

// findingRow is a finding's row: what it is and its masked preview on
// the first line, where it is on the second.
type findingRow struct {
	widget.BaseWidget
	what, preview, where *widget.Label
	root                 *fyne.Container
}

func newFindingRow() *findingRow {
	r := &findingRow{what: widget.NewLabel(""), preview: widget.NewLabel(""), where: widget.NewLabel("")}
	r.what.TextStyle.Bold = true
	r.preview.TextStyle.Monospace = true
	r.where.Truncation = fyne.TextTruncateEllipsis
	r.root = container.NewVBox(container.NewBorder(nil, nil, r.what, r.preview), r.where)
	r.ExtendBaseWidget(r)
	return r
}

// CreateRenderer draws the row's labels.
func (r *findingRow) CreateRenderer() fyne.WidgetRenderer { return widget.NewSimpleRenderer(r.root) }

func (d *ExportDialog) createItem() fyne.CanvasObject { return newFindingRow() }

func (d *ExportDialog) updateItem(id widget.ListItemID, o fyne.CanvasObject) {
	if id < 0 || id >= len(d.rep.Findings) {
		return
	}
	f := d.rep.Findings[id]
	r := o.(*findingRow)
	r.what.SetText(f.Description)
	r.preview.SetText(f.Preview)
	where := fmt.Sprintf("S%d · %s", d.src.Session.ID, f.Locations[0])
	if f.Count > 1 {
		where += fmt.Sprintf(" · and %d more", f.Count-1)
	}
	r.where.SetText(where)
}
