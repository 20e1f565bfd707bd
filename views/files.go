package views

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
	"github.com/lazuli-app/lazuli/display"
)

// FileActions asks for every change of a file in its session; the app
// answers with FilesPanel.ShowDiffs.
type FileActions interface {
	LoadFileDiffs(f InsightFile)
}

// filesEntry is one row of a FilesPanel: a file of one session, with the
// actions done to it.
type filesEntry struct {
	file    InsightFile // Action and Count of the first action; the row shows all
	actions []string    // "edit ×2", "read ×1"
}

// FilesPanel lists the files sessions touched, one row per session and
// file with its actions and counts; choosing one asks for its diffs, which
// show beside the list in order. The Insights window's Files tab and the
// session's Files tab are each one.
type FilesPanel struct {
	a       FileActions
	entries []filesEntry
	list    *widget.List
	title   *widget.Label
	diffs   *fyne.Container
	split   *container.Split
	root    *fyne.Container
	multi   bool // rows name their session (several sessions listed)
	cols    pathColumns
}

// NewFilesPanel returns an empty panel; multi makes rows name their
// session.
func NewFilesPanel(a FileActions, multi bool) *FilesPanel {
	p := &FilesPanel{a: a, multi: multi}
	p.list = newPathList(func() int { return len(p.entries) }, p.fillRow, &p.cols)
	p.title = widget.NewLabel("")
	p.title.Wrapping = fyne.TextWrapWord
	p.diffs = container.NewVBox()
	p.list.OnSelected = func(i widget.ListItemID) {
		if i < len(p.entries) {
			f := p.entries[i].file
			p.title.SetText("Loading " + f.Path + "…")
			p.a.LoadFileDiffs(f)
		}
	}
	p.split = container.NewHSplit(p.list, container.NewBorder(p.title, nil, nil, nil, container.NewVScroll(p.diffs)))
	p.split.Offset = 0.4
	p.root = container.New(sideBySideLayout{}, p.split)
	p.SetFiles(nil)
	return p
}

// sideBySideWidth is the narrowest panel that shows its list beside the
// diffs; a narrower one shows the list above them, so that its rows have
// the panel's width.
const sideBySideWidth = 900

// sideBySideLayout lays its one split out side by side when it is at
// least sideBySideWidth wide, else one part above the other.
type sideBySideLayout struct{}

func (sideBySideLayout) MinSize(objs []fyne.CanvasObject) fyne.Size { return objs[0].MinSize() }

func (sideBySideLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	s := objs[0].(*container.Split)
	if beside := size.Width >= sideBySideWidth; s.Horizontal != beside {
		s.Horizontal, s.Offset = beside, 0.55 // above the diffs: room for more rows
		if beside {
			s.Offset = 0.4
		}
		s.Refresh()
	}
	s.Move(fyne.NewPos(0, 0))
	s.Resize(size)
}

// Content returns the panel's root object.
func (p *FilesPanel) Content() fyne.CanvasObject { return p.root }

func (p *FilesPanel) rowText(i int) string {
	e := p.entries[i]
	s := e.file.Path + " · " + strings.Join(e.actions, ", ")
	if p.multi {
		s = fmt.Sprintf("S%d · %s", e.file.SessionID, s)
	}
	return s
}

// fillRow shows entry i in row: its session (when several are listed), its
// path relative to the worktree, shortened in the middle, and its actions
// in a column of their own.
func (p *FilesPanel) fillRow(i int, row *pathRow) {
	e := p.entries[i]
	row.set(p.lead(e), shownPath(e.file.Path, worktreeOf(e.file.Store)), e.file.Path, strings.Join(e.actions, ", "))
}

// lead is what a row shows before its path: its session, when the panel
// lists several.
func (p *FilesPanel) lead(e filesEntry) string {
	if !p.multi {
		return ""
	}
	return fmt.Sprintf("S%d", e.file.SessionID)
}

// SetFiles lists files (rows of one session and path are merged, in the
// order of their first row) and clears the diffs.
func (p *FilesPanel) SetFiles(files []InsightFile) {
	type key struct {
		store string
		id    int64
		path  string
	}
	at := map[key]int{}
	p.entries = p.entries[:0]
	for _, f := range files {
		k := key{f.Store, f.SessionID, f.Path}
		act := fmt.Sprintf("%s ×%d", f.Action, f.Count)
		if i, ok := at[k]; ok {
			p.entries[i].actions = append(p.entries[i].actions, act)
			continue
		}
		at[k] = len(p.entries)
		p.entries = append(p.entries, filesEntry{file: f, actions: []string{act}})
	}
	var leads, counts []string
	for _, e := range p.entries {
		leads, counts = append(leads, p.lead(e)), append(counts, strings.Join(e.actions, ", "))
	}
	p.cols.fit(leads, counts)
	p.list.UnselectAll()
	p.list.Refresh()
	p.diffs.Objects = nil
	p.diffs.Refresh()
	if len(p.entries) == 0 {
		p.title.SetText("No files: the agent read or changed none here (or the index has not caught up yet).")
	} else {
		p.title.SetText("Choose a file to see every change the agent made to it, in order.")
	}
}

// Rows returns the rows' texts (for tests).
func (p *FilesPanel) Rows() []string {
	out := make([]string, len(p.entries))
	for i := range p.entries {
		out[i] = p.rowText(i)
	}
	return out
}

// Select chooses row i, as a click does.
func (p *FilesPanel) Select(i int) { p.list.Select(i) }

// Title returns the text above the diffs.
func (p *FilesPanel) Title() string { return p.title.Text }

// ShowDiffs shows every change of a file, in order.
func (p *FilesPanel) ShowDiffs(path string, diffs []FileDiff) {
	p.diffs.Objects = nil
	if len(diffs) == 0 {
		p.title.SetText(path + ": read only, or its changes carry no diff")
	} else {
		p.title.SetText(fmt.Sprintf("%s: %s", path, changes(len(diffs))))
	}
	for _, d := range diffs {
		p.diffs.Add(widget.NewLabelWithStyle(fmt.Sprintf("#%d · %s", d.Seq, d.Tool), fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
		dv := newDiffView()
		dv.set(d.Files)
		p.diffs.Add(dv)
	}
	p.diffs.Refresh()
}

func changes(n int) string {
	return display.Plural(n, "change")
}
