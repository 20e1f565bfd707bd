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

// cutLabel is a label whose lines are each cut with "…" to the width it
// is given, laid out as a Label with TextTruncateEllipsis lays them out: a
// card header's detail (a path, a command), a session's name in the
// sidebar.
//
// The label it replaces shaped every whole line again at every layout
// (Fyne's truncation builds a new text shaper for each line, with no
// cache): half of what binding and measuring a transcript card cost, and
// most of refreshing the sidebar's rows. In a monospace font a line's fit
// is a division; other lines are cut by a binary search over Fyne's cached
// text measure, and only when the text or the width changed.
type cutLabel struct {
	widget.BaseWidget
	Text      string              // the lines, as given to SetText
	TextStyle fyne.TextStyle      // set before the label is shown
	ColorName fyne.ThemeColorName // the text's colour; the foreground's when ""
	// Flush starts the text at the label's left edge, without a label's
	// inner padding (a card's completion line, in its title's place).
	Flush bool
}

// newHeaderDetail returns a card header's detail: monospace.
func newHeaderDetail() *cutLabel {
	return newCutLabel(fyne.TextStyle{Monospace: true})
}

func newCutLabel(style fyne.TextStyle) *cutLabel {
	d := &cutLabel{TextStyle: style}
	d.ExtendBaseWidget(d)
	return d
}

// SetText shows s.
func (d *cutLabel) SetText(s string) {
	if s == d.Text {
		return
	}
	d.Text = s
	d.Refresh()
}

// SetColorName shows the text in colour name.
func (d *cutLabel) SetColorName(name fyne.ThemeColorName) {
	if name == d.ColorName {
		return
	}
	d.ColorName = name
	d.Refresh()
}

// CreateRenderer returns the renderer of the detail's lines.
func (d *cutLabel) CreateRenderer() fyne.WidgetRenderer {
	return &cutLabelRenderer{d: d}
}

type cutLabelRenderer struct {
	d     *cutLabel
	text  string         // the text lines was split from
	lines []string       // d.Text's lines, tabs expanded
	objs  []*canvas.Text // one per line, cut to the width
	all   []fyne.CanvasObject
	size  fyne.Size // the size the lines were cut for
}

func (r *cutLabelRenderer) Destroy() {}

func (r *cutLabelRenderer) Objects() []fyne.CanvasObject { return r.all }

// sync splits the text again when it changed, and styles the lines.
func (r *cutLabelRenderer) sync() {
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
	name := r.d.ColorName
	if name == "" {
		name = theme.ColorNameForeground
	}
	fg := th.Color(name, fyne.CurrentApp().Settings().ThemeVariant())
	size := th.Size(theme.SizeNameText)
	for _, o := range r.objs {
		o.TextStyle = r.d.TextStyle
		o.TextSize = size
		o.Color = fg
	}
}

// lineHeight is the height of one line: a label's lines of one text
// follow each other with no space between.
func (r *cutLabelRenderer) lineHeight() float32 {
	return fyne.MeasureText("M", r.d.Theme().Size(theme.SizeNameText), r.d.TextStyle).Height
}

// MinSize is a Label's with truncation: one character and the ellipsis
// wide, every line high.
func (r *cutLabelRenderer) MinSize() fyne.Size {
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
func (r *cutLabelRenderer) Layout(size fyne.Size) {
	if r.lines == nil || r.text != r.d.Text {
		r.sync()
	}
	pad := r.d.Theme().Size(theme.SizeNameInnerPadding)
	line := r.lineHeight()
	left := pad
	if r.d.Flush {
		left = 0
	}
	avail := size.Width - left - pad
	cut := size.Width != r.size.Width
	r.size = size
	y := pad
	for i, o := range r.objs {
		if cut || o.Text == "" && r.lines[i] != "" {
			if t := fitLine(r.lines[i], avail, o.TextSize, o.TextStyle); t != o.Text {
				o.Text = t
				o.Refresh()
			}
		}
		o.Move(fyne.NewPos(left, y))
		o.Resize(o.MinSize())
		y += line
	}
}

// Refresh styles the lines again (a theme change, a new text) and cuts
// them to the width.
func (r *cutLabelRenderer) Refresh() {
	r.sync()
	r.size = fyne.Size{}
	r.Layout(r.d.Size())
	for _, o := range r.objs {
		o.Refresh()
	}
}

// fitLine returns s, or its start and "…" when s is wider than avail in
// the font of the size and style given.
func fitLine(s string, avail, textSize float32, style fyne.TextStyle) string {
	if s == "" {
		return ""
	}
	if avail <= 0 {
		return "…"
	}
	if style.Monospace && isASCII(s) {
		cell := fyne.MeasureText("M", textSize, style).Width
		if cell <= 0 {
			return "…"
		}
		if len(s) <= int(avail/cell) {
			return s
		}
		keep := int((avail - fyne.MeasureText("…", textSize, style).Width) / cell)
		return s[:max(keep, 0)] + "…"
	}
	// Proportional, wide or fallback glyphs: measure (Fyne caches each
	// string's measure). The cut is searched between a prefix that fits
	// (lo) and one that does not (hi), each guess interpolated from the
	// last measure, every other one halving the range: a few measures for
	// a line, where halving alone took one per bit of its length.
	full := fyne.MeasureText(s, textSize, style).Width
	if full <= avail {
		return s
	}
	runes := []rune(s)
	measure := func(n int) float32 { return fyne.MeasureText(string(runes[:n])+"…", textSize, style).Width }
	lo, hi := 0, len(runes)
	if style.Monospace { // a prefix of n runes is at least n cells wide
		hi = min(hi, int(avail/fyne.MeasureText("M", textSize, style).Width)+1)
	}
	guess := int(float32(len(runes)) * avail / full)
	for i := 0; lo+1 < hi; i++ {
		mid := (lo + hi) / 2
		if i%2 == 0 {
			mid = min(max(guess, lo+1), hi-1)
		}
		w := measure(mid)
		if w <= avail {
			lo = mid
		} else {
			hi = mid
		}
		if w > 0 {
			guess = int(float32(mid) * avail / w)
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
