package app

import (
	"context"
	"sort"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// recentEditsLimit is the edits the Recent Edits window lists at most.
const recentEditsLimit = 300

// recentEditsShortcut opens the Recent Edits window: Ctrl+Shift+E (Cmd on
// macOS).
var recentEditsShortcut = views.Shortcut(views.KeyRecentEdits)

// recentEditsWindow is an open Recent Edits window; it implements
// views.RecentEditsActions.
type recentEditsWindow struct {
	pw   *projectWindow
	view *views.RecentEditsView
}

// showRecentEdits opens the Recent Edits window (Ctrl+Shift+E).
func (tl *toolWindows) showRecentEdits() {
	pw := tl.pw
	w := pw.newToolWindow("Recent edits")
	rw := &recentEditsWindow{pw: pw}
	rw.view = views.NewRecentEditsView(rw)
	w.SetContent(rw.view.Content())
	w.Resize(fyne.NewSize(900, 560))
	w.Show()
}

// LoadRecentEdits reads the recent edits of every store of the window in
// the background and shows them.
func (rw *recentEditsWindow) LoadRecentEdits() {
	pw := rw.pw
	pw.wg.Go(func() {
		edits, err := recentEdits(pw.ctx, pw, recentEditsLimit)
		onUI(func() {
			if err != nil {
				rw.view.SetError(err)
				return
			}
			rw.view.SetEdits(edits)
		})
	})
}

// OpenEdit shows the edit's session in the main window at its event.
func (rw *recentEditsWindow) OpenEdit(e views.RecentEdit) {
	rw.pw.shown.OpenSearchHit(views.SearchHit{Ref: e.Ref, Seq: e.Seq, Kind: string(codec.KindToolCall)})
	rw.pw.win.RequestFocus()
}

// recentEdits gathers the newest edits of every store of the window: each
// store's in the order of its events, the stores merged by when (about)
// each edit happened, at most limit.
func recentEdits(ctx context.Context, pw *projectWindow, limit int) ([]views.RecentEdit, error) {
	var out []views.RecentEdit
	for _, x := range pw.search.insightIndexes(ctx, nil) {
		rows, err := x.Files().RecentEdits(ctx, limit)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			out = append(out, views.RecentEdit{Ref: views.SessionRef{StorePath: x.Store().Path(), ID: r.SessionID},
				Session: store.DisplayName(r.SessionID, r.Session), Worktree: r.Worktree, Path: r.Path, Action: r.Action,
				Count: r.Count, Seq: r.LastSeq, At: r.At})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].At > out[j].At })
	return out[:min(len(out), limit)], nil
}
