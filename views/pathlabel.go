package views

// Paths in lists (the Files tabs, Insights › Files, Recent edits) are
// shortened in the middle, never at the end: the file name stays whole,
// with as much of the folders' start as fits, the row's counts keep a
// column of their own, and the whole path shows on hover. The shortening
// is measured with the text size the row draws at, and done again at
// every layout, so it fits the column at any window width.

import (
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// ellipsis marks where elidePath cut a path.
const ellipsis = "…"

// elidePath returns path as it fits width when drawn at size in style:
// path itself when it fits; else the start of its folders, "…/" and its
// file name whole; else, when not even "…/name" fits, the name cut in its
// middle. A width of zero or less returns path (nothing is drawn yet).
func elidePath(path string, width, size float32, style fyne.TextStyle) string {
	fits := func(s string) bool { return fyne.MeasureText(s, size, style).Width <= width }
	if width <= 0 || fits(path) {
		return path
	}
	dir, base := "", path
	if i := strings.LastIndex(strings.TrimSuffix(path, "/"), "/"); i >= 0 {
		dir, base = path[:i], path[i+1:]
	}
	if dir != "" && fits(ellipsis+"/"+base) {
		head := []rune(dir)
		n := longest(len(head)-1, func(n int) bool { return fits(string(head[:n]) + ellipsis + "/" + base) })
		return string(head[:n]) + ellipsis + "/" + base
	}
	name := []rune(base)
	n := longest(len(name)-1, func(n int) bool { return fits(cutMiddle(name, n)) })
	return cutMiddle(name, n)
}

// cutMiddle keeps n runes of name, its start and its end, with "…"
// between them.
func cutMiddle(name []rune, n int) string {
	tail := n / 2
	return string(name[:n-tail]) + ellipsis + string(name[len(name)-tail:])
}

// longest returns the largest n in [0, most] for which ok(n) holds, ok
// being true up to some n and false after it (0 when none holds).
func longest(most int, ok func(int) bool) int {
	lo, hi := 0, max(most, 0)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// worktreeOf is the folder of the worktree whose store is at storePath
// (<worktree>/.azureal/sessions.azs), or the store's folder.
func worktreeOf(storePath string) string {
	if storePath == "" {
		return ""
	}
	dir := filepath.Dir(storePath)
	if filepath.Base(dir) == ".azureal" {
		return filepath.Dir(dir)
	}
	return dir
}

// shownPath is path as a row shows it: relative to root when it lies in
// it, with forward slashes.
func shownPath(path, root string) string {
	if root == "" || !filepath.IsAbs(path) {
		return filepath.ToSlash(path)
	}
	r, err := filepath.Rel(filepath.Clean(root), filepath.Clean(path))
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(r)
}

// pathLabel draws a path on one line, shortened in the middle to its
// width (elidePath) each time it is laid out; its tip is the whole path.
type pathLabel struct {
	widget.BaseWidget
	path string // as shown when it fits
	full string // the tip: the path as stored
}

func newPathLabel() *pathLabel {
	l := &pathLabel{}
	l.ExtendBaseWidget(l)
	return l
}

// SetPath shows path (the tip full) and lays it out again.
func (l *pathLabel) SetPath(path, full string) {
	if l.path == path && l.full == full {
		return
	}
	l.path, l.full = path, full
	l.Refresh()
}

// CreateRenderer returns the renderer that shortens the path to its width.
func (l *pathLabel) CreateRenderer() fyne.WidgetRenderer {
	r := &pathLabelRenderer{l: l, text: canvas.NewText("", theme.Color(theme.ColorNameForeground))}
	r.Refresh()
	return r
}

type pathLabelRenderer struct {
	l    *pathLabel
	text *canvas.Text
}

// Layout cuts the path to the width left inside the label's padding.
func (r *pathLabelRenderer) Layout(size fyne.Size) {
	pad := theme.InnerPadding()
	r.text.TextSize = theme.TextSize()
	r.text.Text = ""
	if size.Width > 2*pad {
		r.text.Text = elidePath(r.l.path, size.Width-2*pad, r.text.TextSize, fyne.TextStyle{})
	}
	h := r.text.MinSize().Height
	r.text.Move(fyne.NewPos(pad, (size.Height-h)/2))
	r.text.Resize(fyne.NewSize(size.Width-2*pad, h))
}

// MinSize is a label's height and room for "…" alone: the row decides the
// width.
func (r *pathLabelRenderer) MinSize() fyne.Size {
	pad := theme.InnerPadding()
	s := fyne.MeasureText(ellipsis, theme.TextSize(), fyne.TextStyle{})
	return fyne.NewSize(s.Width+2*pad, s.Height+2*pad)
}

func (r *pathLabelRenderer) Refresh() {
	r.text.Color = theme.Color(theme.ColorNameForeground)
	r.Layout(r.l.Size())
	r.text.Refresh()
}

func (r *pathLabelRenderer) Objects() []fyne.CanvasObject { return []fyne.CanvasObject{r.text} }
func (r *pathLabelRenderer) Destroy()                     {}

// shown is the text drawn at the label's size.
func (l *pathLabel) shown() string {
	return elidePath(l.path, l.Size().Width-2*theme.InnerPadding(), theme.TextSize(), fyne.TextStyle{})
}

// pathRow is one row of a list of paths: a lead (the session, the time),
// the path shortened in the middle and, in a column at the right end that
// is never cut, the counts.
type pathRow struct {
	lead   *widget.Label
	path   *pathLabel
	counts *widget.Label
	box    *fyne.Container
}

func newPathRow(cols *pathColumns) *pathRow {
	r := &pathRow{lead: widget.NewLabel(""), path: newPathLabel(), counts: widget.NewLabel("")}
	r.lead.Truncation = fyne.TextTruncateEllipsis
	tip := newHoverTip(r.path, func() string {
		if r.path.full != r.path.shown() {
			return r.path.full
		}
		return ""
	})
	r.box = &fyne.Container{Layout: pathRowLayout{cols}, Objects: []fyne.CanvasObject{r.lead, tip, r.counts}}
	return r
}

// set shows a row: lead ("" for none), the path as shown and as stored,
// and the counts.
func (r *pathRow) set(lead, path, full, counts string) {
	r.lead.SetText(lead)
	if lead == "" {
		r.lead.Hide()
	} else {
		r.lead.Show()
	}
	r.path.SetPath(path, full)
	r.counts.SetText(counts)
	r.box.Refresh()
}

// pathColumns are the widths a list's rows share, so that their paths and
// counts line up: the widest lead and the widest counts of the list.
type pathColumns struct {
	lead, counts float32
}

// fit sets the columns to the widest of leads and of counts, as labels
// draw them.
func (c *pathColumns) fit(leads, counts []string) {
	c.lead, c.counts = labelsWidth(leads), labelsWidth(counts)
}

// labelsWidth is the width of the widest label of texts.
func labelsWidth(texts []string) float32 {
	w := float32(0)
	for _, t := range texts {
		w = max(w, fyne.MeasureText(t, theme.TextSize(), fyne.TextStyle{}).Width)
	}
	if w == 0 {
		return 0
	}
	return w + 2*theme.InnerPadding() + 1 // a truncating label cuts a text exactly as wide as it
}

// pathRowLayout places a pathRow: the lead in its column (at most
// leadShare of the width, cut at its end), the counts in theirs at the
// right end (each whole, whatever the column), the path between.
type pathRowLayout struct{ cols *pathColumns }

// leadShare is the most of a row's width its lead takes; countsShare the
// most the counts' column takes (a longer counts text takes its width).
const (
	leadShare   = 0.4
	countsShare = 0.5
)

func (pathRowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := float32(0)
	for _, o := range objs {
		if o.Visible() {
			h = max(h, o.MinSize().Height)
		}
	}
	return fyne.NewSize(objs[2].MinSize().Width+objs[1].MinSize().Width, h)
}

func (l pathRowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	lead, path, counts := objs[0], objs[1], objs[2]
	var cols pathColumns
	if l.cols != nil {
		cols = *l.cols
	}
	cw := min(max(counts.MinSize().Width, min(cols.counts, size.Width*countsShare)), size.Width)
	counts.Move(fyne.NewPos(size.Width-cw, 0))
	counts.Resize(fyne.NewSize(cw, size.Height))
	x := float32(0)
	if lead.Visible() {
		lw := min(max(lead.MinSize().Width, cols.lead), (size.Width-cw)*leadShare)
		lead.Move(fyne.NewPos(0, 0))
		lead.Resize(fyne.NewSize(lw, size.Height))
		x = lw
	}
	path.Move(fyne.NewPos(x, 0))
	path.Resize(fyne.NewSize(max(size.Width-cw-x, 0), size.Height))
}

// newPathList is a list of pathRows sharing cols; fill(i, row) shows row i
// of n().
func newPathList(n func() int, fill func(int, *pathRow), cols *pathColumns) *widget.List {
	rows := map[fyne.CanvasObject]*pathRow{}
	return widget.NewList(n,
		func() fyne.CanvasObject {
			r := newPathRow(cols)
			rows[r.box] = r
			return r.box
		},
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if r := rows[o]; r != nil && i < n() {
				fill(i, r)
			}
		})
}
