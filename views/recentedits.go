package views

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// RecentEdit is a file a session of the project changed, with the last
// event that changed it.
type RecentEdit struct {
	Ref      SessionRef
	Session  string // the session's display name
	Worktree string
	Path     string
	Action   string // edit, write, create, delete
	Count    int64
	Seq      int64  // the last event that changed the file
	At       string // about when, raw UTC "YYYY-MM-DD HH:MM:SS"; "" when not known
}

// RecentEditsActions are the intents of the Recent Edits window; the app
// answers LoadRecentEdits with SetEdits (on the Fyne goroutine).
type RecentEditsActions interface {
	LoadRecentEdits()
	// OpenEdit shows e's session in the main window at e.Seq.
	OpenEdit(e RecentEdit)
}

// RecentEditsView lists the recent file edits across the project's
// sessions, newest first; choosing one opens its session at that event.
type RecentEditsView struct {
	a      RecentEditsActions
	edits  []RecentEdit
	list   *widget.List
	status *widget.Label
	root   fyne.CanvasObject
	cols   pathColumns
}

// NewRecentEditsView builds the view and asks for the edits.
func NewRecentEditsView(a RecentEditsActions) *RecentEditsView {
	v := &RecentEditsView{a: a}
	v.status = widget.NewLabel("Loading…")
	v.list = newPathList(func() int { return len(v.edits) }, v.fillRow, &v.cols)
	v.list.OnSelected = func(i widget.ListItemID) {
		if i < len(v.edits) {
			v.a.OpenEdit(v.edits[i])
		}
		v.list.UnselectAll() // choosing the same row again opens it again
	}
	reload := widget.NewButtonWithIcon("Reload", theme.ViewRefreshIcon(), func() {
		v.status.SetText("Loading…")
		v.a.LoadRecentEdits()
	})
	v.root = container.NewBorder(container.NewBorder(nil, nil, nil, reload, v.status), nil, nil, nil, v.list)
	a.LoadRecentEdits()
	return v
}

// Content returns the view's root object.
func (v *RecentEditsView) Content() fyne.CanvasObject { return v.root }

func (v *RecentEditsView) rowText(i int) string {
	e := v.edits[i]
	return joinNonEmpty(" · ", editLead(e), editCount(e), e.Path)
}

// fillRow shows edit i in row: when, where and which session; the path
// relative to the worktree, shortened in the middle; the action and its
// count in a column of their own.
func (v *RecentEditsView) fillRow(i int, row *pathRow) {
	e := v.edits[i]
	row.set(editLead(e), shownPath(e.Path, worktreeOf(e.Ref.StorePath)), e.Path, editCount(e))
}

// editLead is when (to the minute), in which worktree and session an edit
// was made.
func editLead(e RecentEdit) string {
	at := e.At
	if len(at) >= 16 {
		at = at[:16]
	}
	return joinNonEmpty(" · ", at, e.Worktree, e.Session)
}

// editCount is an edit's action and how many times it was done.
func editCount(e RecentEdit) string { return fmt.Sprintf("%s ×%d", e.Action, e.Count) }

// SetEdits shows edits, newest first.
func (v *RecentEditsView) SetEdits(edits []RecentEdit) {
	v.edits = edits
	var leads, counts []string
	for _, e := range edits {
		leads, counts = append(leads, editLead(e)), append(counts, editCount(e))
	}
	v.cols.fit(leads, counts)
	v.list.Refresh()
	switch len(edits) {
	case 0:
		v.status.SetText("No file edits in this project's sessions yet.")
	default:
		v.status.SetText(fmt.Sprintf("%d recent edits, newest first: choose one to open its session there.", len(edits)))
	}
}

// SetError shows why the edits could not be read.
func (v *RecentEditsView) SetError(err error) { v.status.SetText("Recent edits: " + err.Error()) }

// Rows returns the rows' texts (for tests).
func (v *RecentEditsView) Rows() []string {
	out := make([]string, len(v.edits))
	for i := range v.edits {
		out[i] = v.rowText(i)
	}
	return out
}

// Status returns the line above the list.
func (v *RecentEditsView) Status() string { return v.status.Text }

// Choose chooses row i, as a click does.
func (v *RecentEditsView) Choose(i int) { v.list.Select(i) }
