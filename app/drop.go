package app

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// importer owns bringing sessions in: files dropped on the window or
// picked in File › Open and Import (a store to preview, open read-only or
// merge; transcripts to import), Import native history (importnative.go)
// and keeping native history in sync (nativesync.go).
type importer struct {
	pw *projectWindow

	mu             sync.Mutex
	stopNativeSync context.CancelFunc // stops keeping native history in sync; nil when off
}

// onDropped handles files dropped on the window: an .azs store is
// previewed (open read-only or merge), transcripts are imported, anything
// else is explained.
func (im *importer) onDropped(uris []fyne.URI) {
	var transcripts, other []string
	for _, u := range uris {
		path := u.Path()
		switch strings.ToLower(filepath.Ext(path)) {
		case ".azs":
			im.previewStore(path)
		case ".jsonl", ".json":
			transcripts = append(transcripts, path)
		default:
			other = append(other, filepath.Base(path))
		}
	}
	if len(transcripts) > 0 {
		im.importTranscripts(transcripts)
	}
	if len(other) > 0 {
		views.ShowMessage(im.pw.win, "Cannot open "+strings.Join(other, ", "),
			"Lazuli opens .azs session stores and imports .jsonl agent transcripts\n(Claude Code, Codex, Gemini CLI, Qwen Code, Pi or Copilot CLI). Nothing was changed.")
	}
}

// storePreview is a dropped store as the drop dialog shows it, and the
// worktree a merge writes into.
type storePreview struct {
	views.StorePreview
	target Worktree
}

// previewStore reads a dropped store read-only and offers to open or merge it.
func (im *importer) previewStore(path string) {
	im.pw.wg.Go(func() {
		p, err := im.readPreview(path)
		if err != nil {
			im.pw.showError("open "+filepath.Base(path), err)
			return
		}
		log.Printf("drop: previewing %s: %d sessions, %d events, %d duplicates", path, len(p.Sessions), p.Events, len(p.Duplicates))
		onUI(func() { im.showPreview(p) })
	})
}

func (im *importer) readPreview(path string) (*storePreview, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	src, err := store.OpenReadOnly(im.pw.ctx, path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if !src.Exists() {
		return nil, fmt.Errorf("%s is empty: it holds no session store", filepath.Base(path))
	}
	sessions, err := src.Sessions().List(im.pw.ctx, "")
	if err != nil {
		return nil, err
	}
	target := im.targetWorktree()
	p := &storePreview{StorePreview: views.StorePreview{Path: path, Size: fi.Size(), Sessions: sessions, Target: target.Branch,
		CanMerge: !im.pw.readOnly && target.StorePath != ""}, target: target}
	for _, s := range sessions {
		p.Events += s.EventCount
	}
	if !im.pw.readOnly && p.target.StorePath != "" {
		if dst, err := im.pw.store(p.target.StorePath); err == nil {
			p.Duplicates, err = dst.Transfer().Duplicates(im.pw.ctx, src)
			if err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// targetWorktree is the worktree a merge or import writes into: the one of
// the shown session, else the first.
func (im *importer) targetWorktree() Worktree {
	cur := im.pw.shown.ref()
	if len(im.pw.wts) == 0 {
		return Worktree{}
	}
	for _, w := range im.pw.wts {
		if w.StorePath == cur.StorePath {
			return w
		}
	}
	return im.pw.wts[0]
}

// showPreview shows the drop dialog; it runs on the Fyne goroutine.
func (im *importer) showPreview(p *storePreview) {
	views.ShowStorePreview(im.pw.win, p.StorePreview, func() { im.pw.ui.openReadOnly(p.Path) }, func() { im.merge(p) })
}

// merge copies the previewed store's sessions into the target store.
func (im *importer) merge(p *storePreview) {
	im.pw.wg.Go(func() {
		src, err := store.OpenReadOnly(im.pw.ctx, p.Path)
		if err != nil {
			im.pw.showError("merge", err)
			return
		}
		defer src.Close()
		dst, err := im.pw.store(p.target.StorePath)
		if err != nil {
			im.pw.showError("merge", err)
			return
		}
		rep, err := dst.Transfer().Merge(im.pw.ctx, src)
		if err != nil {
			im.pw.showError("merge "+filepath.Base(p.Path), err)
			return
		}
		im.pw.list.refresh()
		onUI(func() {
			views.ShowMessage(im.pw.win, "Merged "+filepath.Base(p.Path), rep.String())
		})
	})
}

// openReadOnly opens a store in its own read-only window.
func (ui *gui) openReadOnly(path string) {
	wt := Worktree{StorePath: path, Branch: branchOfStore(path)}
	pw := newProjectWindow(ui, "Lazuli — "+filepath.Base(path)+" (read-only)", []Worktree{wt}, true)
	pw.setupReadOnly("you chose Open read-only for "+filepath.Base(path), pw.win.Close)
	pw.win.Resize(fyne.NewSize(1100, 720))
	pw.win.Show()
}

// setupReadOnly makes a read-only window say so and why, offer nothing
// that writes (its menu too), and close (closeWin) with its Close button,
// File › Close window or Ctrl+W.
func (pw *projectWindow) setupReadOnly(why string, closeWin func()) {
	pw.closeWin = closeWin
	pw.mv.SetReadOnly(why, closeWin)
	pw.win.Canvas().AddShortcut(views.Shortcut(views.KeyCloseWindow), func(fyne.Shortcut) { closeWin() })
	pw.win.SetMainMenu(pw.mainMenu())
}

// importTranscripts imports agent transcripts as new sessions of the target
// worktree. Every file is parsed before anything is written.
func (im *importer) importTranscripts(paths []string) {
	if im.pw.readOnly {
		im.pw.showError("import", errReadOnly)
		return
	}
	target := im.targetWorktree()
	im.pw.wg.Go(func() {
		parsed := make([]agents.Transcript, 0, len(paths))
		for _, path := range paths {
			t, err := agents.ReadTranscript(path, parse.FormatAuto, parse.Options{})
			if err != nil {
				im.pw.showError("import "+filepath.Base(path), err)
				return
			}
			parsed = append(parsed, t)
		}
		st, err := im.pw.store(target.StorePath)
		if err != nil {
			im.pw.showError("import", err)
			return
		}
		branch := target.Branch
		if branch == "" {
			branch = project.BranchOf(filepath.Dir(target.StorePath))
		}
		var msgs []string
		var last views.SessionRef // the session of the last file: shown once imported
		for i, t := range parsed {
			r, err := native.ImportTranscript(im.pw.ctx, st, branch, "", paths[i], t)
			if err != nil {
				im.pw.showError("import "+filepath.Base(paths[i]), err)
				return
			}
			msgs = append(msgs, importMessage(filepath.Base(paths[i]), r))
			last = views.SessionRef{StorePath: target.StorePath, ID: r.Session.ID}
		}
		log.Printf("drop: imported %s", strings.Join(msgs, "; "))
		onUI(func() { views.ShowMessage(im.pw.win, "Imported", strings.Join(msgs, "\n")) })
		im.pw.list.refreshList() // listed before it is selected
		im.selectImported(last)
	})
}

// selectImported shows ref, the session an import stored (or found
// already stored), selected in the sidebar: what the user brought in is
// what they see next. Not on the Fyne goroutine.
func (im *importer) selectImported(ref views.SessionRef) {
	if ref.ID != 0 {
		onUI(func() { im.pw.shown.SelectSession(ref) })
	}
}

// importMessage says what importing one file did, for people.
func importMessage(file string, r native.ImportedFile) string {
	if r.Duplicate {
		return fmt.Sprintf("%s: already imported as S%d (%s); nothing added", file, r.Session.ID, r.Session.DisplayName())
	}
	return fmt.Sprintf("%s: S%d %s (%d events)", file, r.Session.ID, r.Session.DisplayName(), r.Events)
}

// onOpen asks for an .azs file and previews it like a dropped one.
func (im *importer) onOpen() {
	views.AskOpenFile(im.pw.win, []string{".azs"}, im.pickerDir(), func(path string, err error) {
		if err != nil {
			im.pw.showError("open", err)
			return
		}
		im.previewStore(path)
	})
}

// onImport asks for a transcript and imports it as a new session.
func (im *importer) onImport() {
	views.AskOpenFile(im.pw.win, []string{".jsonl", ".json"}, im.pickerDir(), func(path string, err error) {
		if err != nil {
			im.pw.showError("import", err)
			return
		}
		im.importTranscripts([]string{path})
	})
}

// pickerDir is the folder the file pickers open in: the worktree of the
// session shown (targetWorktree), or the folder of a bare store file.
func (im *importer) pickerDir() string {
	wt := im.targetWorktree()
	if wt.Dir == "" && wt.StorePath != "" {
		return filepath.Dir(wt.StorePath)
	}
	return wt.Dir
}
