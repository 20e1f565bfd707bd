package views

import (
	"image/color"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// textRun is a piece of a line of text in one style.
type textRun struct {
	Text  string
	Style fyne.TextStyle
	Size  fyne.ThemeSizeName  // the text's size; the theme's text size when ""
	Color fyne.ThemeColorName // the text's colour; the foreground's when ""
}

// runLine shows runs of text one after the other on one line, on a common
// baseline, cut with "…" where they pass its width: a search hit's heading
// (the session in bold, where and when in small grey) and its snippet (the
// matches in bold). It lays out as a one-line Label does, inner padding
// included.
//
// The RichText with TextTruncateEllipsis it replaces shaped each line with
// a new text shaper at every refresh; each answer of the search panel
// refreshed twenty of them. Here each run is measured through Fyne's
// cached measure, and the run crossing the edge is cut as cutLabel cuts.
type runLine struct {
	widget.BaseWidget
	runs []textRun
}

func newRunLine() *runLine {
	l := &runLine{}
	l.ExtendBaseWidget(l)
	return l
}

// Set shows runs.
func (l *runLine) Set(runs []textRun) {
	l.runs = runs
	l.Refresh()
}

// String returns the line's text, uncut.
func (l *runLine) String() string {
	var b strings.Builder
	for _, r := range l.runs {
		b.WriteString(r.Text)
	}
	return b.String()
}

// CreateRenderer returns the renderer of the runs.
func (l *runLine) CreateRenderer() fyne.WidgetRenderer {
	r := &runLineRenderer{l: l}
	r.Refresh()
	return r
}

type runLineRenderer struct {
	l    *runLine
	objs []fyne.CanvasObject // a *canvas.Text per run
}

func (r *runLineRenderer) Destroy() {}

func (r *runLineRenderer) Objects() []fyne.CanvasObject { return r.objs }

// texts styles a canvas text per run.
func (r *runLineRenderer) texts() []*canvas.Text {
	th := r.l.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	for len(r.objs) < len(r.l.runs) {
		r.objs = append(r.objs, canvas.NewText("", color.Black))
	}
	r.objs = r.objs[:len(r.l.runs)]
	out := make([]*canvas.Text, len(r.objs))
	for i, run := range r.l.runs {
		t := r.objs[i].(*canvas.Text)
		size, name := run.Size, run.Color
		if size == "" {
			size = theme.SizeNameText
		}
		if name == "" {
			name = theme.ColorNameForeground
		}
		t.TextStyle, t.TextSize, t.Color = run.Style, th.Size(size), th.Color(name, v)
		out[i] = t
	}
	return out
}

// MinSize is a truncated Label's: one character and the ellipsis wide,
// the tallest run high.
func (r *runLineRenderer) MinSize() fyne.Size {
	th := r.l.Theme()
	pad := th.Size(theme.SizeNameInnerPadding)
	ts := th.Size(theme.SizeNameText)
	h := fyne.MeasureText("M", ts, fyne.TextStyle{}).Height
	for _, t := range r.texts() {
		h = max(h, fyne.MeasureText("M", t.TextSize, t.TextStyle).Height)
	}
	w := fyne.MeasureText("M", ts, fyne.TextStyle{}).Width + fyne.MeasureText("…", ts, fyne.TextStyle{}).Width
	return fyne.NewSize(w+2*pad, h+2*pad)
}

// Layout places the runs on a common baseline and cuts the one crossing
// the edge; those after it are not shown.
func (r *runLineRenderer) Layout(size fyne.Size) {
	pad := r.l.Theme().Size(theme.SizeNameInnerPadding)
	texts := r.texts()
	d := fyne.CurrentApp().Driver()
	base := make([]float32, len(texts))
	top := float32(0)
	for i, t := range texts {
		_, base[i] = d.RenderedTextSize("M", t.TextSize, t.TextStyle, nil)
		top = max(top, base[i])
	}
	x, right := pad, size.Width-pad
	for i, t := range texts {
		run := r.l.runs[i].Text
		shown := run
		if x >= right {
			shown = ""
		} else if w := fyne.MeasureText(run, t.TextSize, t.TextStyle).Width; x+w > right {
			shown = fitLine(run, right-x, t.TextSize, t.TextStyle)
		}
		if shown != t.Text {
			t.Text = shown
			t.Refresh()
		}
		t.Hidden = shown == ""
		m := t.MinSize()
		t.Resize(m)
		t.Move(fyne.NewPos(x, pad+top-base[i]))
		x += m.Width
		if shown != run {
			x = right // nothing after a cut run
		}
	}
}

// Refresh styles the runs again (new runs, a theme change) and lays them
// out.
func (r *runLineRenderer) Refresh() {
	r.Layout(r.l.Size())
	for _, o := range r.objs {
		o.Refresh()
	}
}
