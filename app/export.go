package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/export"
	"github.com/lazuli-app/lazuli/views"
)

// Preference keys of the export dialog: the format and folder of the last
// export.
const (
	prefExportFormat = "export.format"
	prefExportFolder = "export.folder"
)

// exporter owns writing a session out: as a new .azs store (File ›
// Export) and as Markdown, HTML or JSON (Session › Export…, docExport).
type exporter struct {
	pw *projectWindow
}

// docExport is one use of the export dialog (Session › Export…): it loads
// and scans the session in the background, then writes the file the user
// chose. It implements views.ExportActions.
type docExport struct {
	pw  *projectWindow
	dlg *views.ExportDialog
	// render writes the file's content; nil means export.Render (tests
	// make it fail).
	render func(w io.Writer, src export.Source, f export.Format) error
	// open opens an exported file or its folder; nil means the desktop's
	// opener (tests record what is opened).
	open func(path string) error
}

// onExportDocument opens the export dialog on the session shown.
func (ex *exporter) onExportDocument() {
	ref := ex.pw.shown.ref()
	if ref.ID == 0 {
		views.ShowMessage(ex.pw.win, "Export session", "Select a session to export first.")
		return
	}
	ex.openExport(ref)
}

// openExport opens the export dialog on ref, with the format and folder
// of the last export, and starts the scan.
func (ex *exporter) openExport(ref views.SessionRef) *docExport {
	p := ex.pw.ui.fa.Preferences()
	format, err := export.ParseFormat(p.String(prefExportFormat))
	if err != nil {
		format = export.Markdown
	}
	x := &docExport{pw: ex.pw}
	opts := views.ExportOptions{Ref: ref, Format: format, Folder: ex.exportFolder(p.String(prefExportFolder))}
	x.dlg = views.ShowExport(ex.pw.win, x, opts)
	ex.pw.wg.Go(func() { x.scan(ref) })
	return x
}

// exportFolder is the folder an export goes to first: last, the folder of
// the previous export, while it exists; else the user's Documents folder (or
// home folder). Never the worktree by default: an export there shows as an
// untracked file, and one `git add -A` would commit the transcript.
func (ex *exporter) exportFolder(last string) string {
	if last != "" {
		if fi, err := os.Stat(last); err == nil && fi.IsDir() {
			return last
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return os.TempDir()
	}
	docs := filepath.Join(home, "Documents")
	if fi, err := os.Stat(docs); err == nil && fi.IsDir() {
		return docs
	}
	return home
}

// scan loads the session and scans it for secrets, then hands both to the
// dialog: the export writes exactly what the user reviewed, even if an
// agent adds events meanwhile.
func (x *docExport) scan(ref views.SessionRef) {
	pw := x.pw
	st, err := pw.store(ref.StorePath)
	var src export.Source
	if err == nil {
		src, err = export.Load(pw.ctx, st, ref.ID)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return // the window is closing
		}
		log.Printf("export: %v", err)
		onUI(func() { x.dlg.SetError("The session could not be read: " + userMessage(err).Error()) })
		return
	}
	rep := export.Scan(src)
	onUI(func() { x.dlg.SetScan(src, rep) })
}

// ExportSession writes the export in the background, then closes the
// dialog and gives the file's path, or reports the error in the dialog,
// which stays open. The file is written to a temporary file in its folder
// and renamed into place: an existing file (req.Overwrite: the user
// confirmed replacing it) stays as it was until the export is complete,
// and is not touched at all when it fails.
func (x *docExport) ExportSession(req views.ExportRequest) {
	pw := x.pw
	render := x.render
	if render == nil {
		render = export.Render
	}
	pw.wg.Go(func() {
		src := req.Source
		if req.Redact {
			src = export.Redact(src, req.Report)
		}
		err := export.WriteFile(req.Path, req.Overwrite, func(w io.Writer) error { return render(w, src, req.Format) })
		if err != nil {
			log.Printf("export: %v", err)
			if errors.Is(err, export.ErrExists) {
				err = fmt.Errorf("%s appeared in %s meanwhile and was left as it is; export again to replace it",
					filepath.Base(req.Path), filepath.Dir(req.Path))
			}
			onUI(func() { x.dlg.ExportFailed(fmt.Errorf("export: %w", userMessage(err))) })
			return
		}
		p := pw.ui.fa.Preferences()
		p.SetString(prefExportFormat, string(req.Format))
		p.SetString(prefExportFolder, filepath.Dir(req.Path))
		msg := fmt.Sprintf("Saved S%d as %s to\n%s", src.Session.ID, req.Format, req.Path)
		switch n := len(req.Report.Findings); {
		case src.Redactions > 0:
			msg += fmt.Sprintf("\n\nRedacted %s (%s).", display.Plural(n, "possible secret"), display.Plural(src.Redactions, "occurrence"))
		case n > 0:
			msg += fmt.Sprintf("\n\nExported %s as is.", display.Plural(n, "possible secret"))
		}
		onUI(func() {
			x.dlg.Hide()
			pw.exports.showSaved("Exported", msg, req.Path, x.open)
		})
	})
}

// onExport saves the shown session as a new .azs store.
func (ex *exporter) onExport() {
	ref := ex.pw.shown.ref()
	if ref.ID == 0 {
		views.ShowMessage(ex.pw.win, "Export session", "Select a session to export first.")
		return
	}
	// The store is written to a temporary file and renamed over the one
	// the picker created.
	views.AskSaveFile(ex.pw.win, "session.azs", []string{".azs"}, ex.pw.imports.pickerDir(), func(path string, err error) {
		if err != nil {
			ex.pw.showError("export", err)
			return
		}
		ex.exportSession(ref, path)
	})
}

// exportSession writes one session to a new .azs file.
func (ex *exporter) exportSession(ref views.SessionRef, path string) {
	ex.pw.wg.Go(func() {
		st, err := ex.pw.store(ref.StorePath)
		if err != nil {
			ex.pw.showError("export", err)
			return
		}
		if err := st.Transfer().Export(ex.pw.ctx, []int64{ref.ID}, path); err != nil {
			ex.pw.showError("export", err)
			return
		}
		onUI(func() { views.ShowMessage(ex.pw.win, "Exported", "Saved S"+fmt.Sprint(ref.ID)+" to "+path) })
	})
}

// showSaved tells that a file was written, with msg, and offers to open it
// or its folder through open (nil: the desktop's opener).
func (ex *exporter) showSaved(title, msg, path string, open func(string) error) {
	if open == nil {
		open = ex.pw.ui.openPath
	}
	views.ShowSaved(ex.pw.win, title, msg, path, open, func(err error) { ex.pw.showError("open", err) })
}
