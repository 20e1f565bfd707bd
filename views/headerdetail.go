package views

import (
	"image/color"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// headerDetail is a card header's detail (a path, a command, a thinking's
// first line): monospace lines, each cut with "…" to the width it is
// given, laid out as a Label with TextTruncateEllipsis lays them out.
//
// The label it replaces shaped every whole line again at every layout
// (Fyne's truncation builds a new text shaper for each line, with no
// cache): half of what binding and measuring a transcript card cost. In a
// monospace font a line's fit is a division; only lines with characters
// outside ASCII, whose widths vary, are measured, through Fyne's cached
// text measure.
type headerDetail struct {
	widget.BaseWidget
	Text string // the lines, as given to SetText
}

func newHeaderDetail() *headerDetail {
	d := &headerDetail{}
	d.ExtendBaseWidget(d)
	return d
}

// SetText shows s.
func (d *headerDetail) SetText(s string) {
	if s == d.Text {
		return
	}
	d.Text = s
	d.Refresh()
}

// CreateRenderer returns the renderer of the detail's lines.
func (d *headerDetail) CreateRenderer() fyne.WidgetRenderer {
	return &headerDetailRenderer{d: d}
}

type headerDetailRenderer struct {
	d     *headerDetail
	text  string         // the text lines was split from
	lines []string       // d.Text's lines, tabs expanded
	objs  []*canvas.Text // one per line, cut to the width
	all   []fyne.CanvasObject
	size  fyne.Size // the size the lines were cut for
}

func (r *headerDetailRenderer) Destroy() {}

func (r *headerDetailRenderer) Objects() []fyne.CanvasObject { return r.all }

// sync splits the text again when it changed, and styles the lines.
func (r *headerDetailRenderer) sync() {
	if r.text != r.d.Text || r.objs == nil {
		r.text = r.d.Text
		r.lines = strings.Split(expandTabs(r.d.Text), "\n")
		for len(r.objs) < len(r.lines) {
			r.objs = append(r.objs, canvas.NewText("", color.Black))
		}
		r.objs = r.objs[:len(r.lines)]
		r.all = r.all[:0]
		for _, o := range r.objs {
			r.all = append(r.all, o)
		}
		r.size = fyne.Size{}
	}
	th := r.d.Theme()
	fg := th.Color(theme.ColorNameForeground, fyne.CurrentApp().Settings().ThemeVariant())
	size := th.Size(theme.SizeNameText)
	for _, o := range r.objs {
		o.TextStyle = fyne.TextStyle{Monospace: true}
		o.TextSize = size
		o.Color = fg
	}
}

// lineHeight is the height of one line: a label's lines of one text
// follow each other with no space between.
func (r *headerDetailRenderer) lineHeight() float32 {
	return fyne.MeasureText("M", r.d.Theme().Size(theme.SizeNameText), fyne.TextStyle{Monospace: true}).Height
}

// MinSize is a Label's with truncation: one character and the ellipsis
// wide, every line high.
func (r *headerDetailRenderer) MinSize() fyne.Size {
	if r.lines == nil || r.text != r.d.Text {
		r.sync()
	}
	th := r.d.Theme()
	pad := th.Size(theme.SizeNameInnerPadding)
	ts := th.Size(theme.SizeNameText)
	w := fyne.MeasureText("M", ts, fyne.TextStyle{}).Width + fyne.MeasureText("…", ts, fyne.TextStyle{}).Width
	return fyne.NewSize(w+2*pad, float32(len(r.lines))*r.lineHeight()+2*pad)
}

// Layout cuts each line to the width and places it as a Label would.
func (r *headerDetailRenderer) Layout(size fyne.Size) {
	if r.lines == nil || r.text != r.d.Text {
		r.sync()
	}
	pad := r.d.Theme().Size(theme.SizeNameInnerPadding)
	line := r.lineHeight()
	avail := size.Width - 2*pad
	cut := size.Width != r.size.Width
	r.size = size
	y := pad
	for i, o := range r.objs {
		if cut || o.Text == "" && r.lines[i] != "" {
			if t := fitLine(r.lines[i], avail, o.TextSize); t != o.Text {
				o.Text = t
				o.Refresh()
			}
		}
		o.Move(fyne.NewPos(pad, y))
		o.Resize(o.MinSize())
		y += line
	}
}

// Refresh styles the lines again (a theme change, a new text) and cuts
// them to the width.
func (r *headerDetailRenderer) Refresh() {
	r.sync()
	r.size = fyne.Size{}
	r.Layout(r.d.Size())
	for _, o := range r.objs {
		o.Refresh()
	}
}

// fitLine returns s, or its start and "…" when s is wider than avail in
// the monospace font of the size given.
func fitLine(s string, avail, textSize float32) string {
	if s == "" {
		return ""
	}
	style := fyne.TextStyle{Monospace: true}
	cell := fyne.MeasureText("M", textSize, style).Width
	if cell <= 0 || avail <= 0 {
		return "…"
	}
	if isASCII(s) {
		if len(s) <= int(avail/cell) {
			return s
		}
		keep := int((avail - fyne.MeasureText("…", textSize, style).Width) / cell)
		return s[:max(keep, 0)] + "…"
	}
	// Wide and fallback glyphs: measure. A prefix of n runes is at least
	// n cells wide, so no more than avail/cell runes can fit.
	runes := []rune(s)
	if fyne.MeasureText(s, textSize, style).Width <= avail {
		return s
	}
	lo, hi := 0, min(len(runes), int(avail/cell))
	for lo < hi { // the most runes that fit with the ellipsis
		mid := (lo + hi + 1) / 2
		if fyne.MeasureText(string(runes[:mid])+"…", textSize, style).Width <= avail {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return string(runes[:lo]) + "…"
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
