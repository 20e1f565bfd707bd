package views

// Charts for the Insights window, drawn with Fyne's canvas primitives
// (rectangles, lines and text in theme colours): they stay crisp at any
// scale and follow the light and dark themes, and need no plotting
// dependency. A chart reports the value under the pointer through its
// readout (a label above it), which is how "values on hover" works
// without tooltips (Fyne 2.8 has none).

import (
	"fmt"
	"image/color"
	"math"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// seriesColors are the theme colours of a stacked chart's segments, in
// order.
var seriesColors = []fyne.ThemeColorName{theme.ColorNamePrimary, theme.ColorNameSuccess, theme.ColorNameWarning,
	theme.ColorNameError, theme.ColorNameHyperlink}

// BarChart is a bar chart, one bar per label, each bar a stack of
// segments (one per series).
type BarChart struct {
	widget.BaseWidget
	labels  []string
	stacks  [][]float64
	series  []string
	format  func(float64) string
	readout *widget.Label
	hovered int
}

var _ desktop.Hoverable = (*BarChart)(nil)

// NewBarChart returns an empty chart whose values format prints; the
// readout label shows the bar under the pointer.
func NewBarChart(series []string, format func(float64) string, readout *widget.Label) *BarChart {
	c := &BarChart{series: series, format: format, readout: readout, hovered: -1}
	c.ExtendBaseWidget(c)
	return c
}

// SetData shows one bar per label; stacks[i] holds bar i's segments.
func (c *BarChart) SetData(labels []string, stacks [][]float64) {
	c.labels, c.stacks, c.hovered = labels, stacks, -1
	c.Refresh()
}

// Describe returns the text the readout shows for bar i.
func (c *BarChart) Describe(i int) string {
	if i < 0 || i >= len(c.stacks) {
		return ""
	}
	s := c.labels[i] + ":"
	total := 0.0
	for k, v := range c.stacks[i] {
		total += v
		if len(c.series) > 1 && k < len(c.series) {
			s += fmt.Sprintf(" %s %s ·", c.series[k], c.format(v))
		}
	}
	return s + " total " + c.format(total)
}

func (c *BarChart) barAt(x float32) int {
	if len(c.stacks) == 0 || c.Size().Width <= 0 {
		return -1
	}
	i := int(x / (c.Size().Width / float32(len(c.stacks))))
	if i < 0 || i >= len(c.stacks) {
		return -1
	}
	return i
}

// MouseIn shows the bar under the pointer.
func (c *BarChart) MouseIn(e *desktop.MouseEvent) { c.MouseMoved(e) }

// MouseMoved shows the bar under the pointer in the readout.
func (c *BarChart) MouseMoved(e *desktop.MouseEvent) {
	i := c.barAt(e.Position.X)
	if i == c.hovered {
		return
	}
	c.hovered = i
	if c.readout != nil {
		c.readout.SetText(c.Describe(i))
	}
	c.Refresh()
}

// MouseOut clears the readout.
func (c *BarChart) MouseOut() {
	c.hovered = -1
	if c.readout != nil {
		c.readout.SetText("")
	}
	c.Refresh()
}

// MinSize is a useful chart size.
func (c *BarChart) MinSize() fyne.Size { return fyne.NewSize(320, 140) }

// CreateRenderer draws the bars.
func (c *BarChart) CreateRenderer() fyne.WidgetRenderer {
	return &barRenderer{c: c}
}

type barRenderer struct {
	c       *BarChart
	objects []fyne.CanvasObject
	size    fyne.Size
}

func (r *barRenderer) Layout(size fyne.Size) {
	r.size = size
	r.build()
}

func (r *barRenderer) MinSize() fyne.Size { return r.c.MinSize() }

func (r *barRenderer) Refresh() {
	r.build()
	canvas.Refresh(r.c)
}

func (r *barRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *barRenderer) Destroy() {}

func (r *barRenderer) build() {
	c, size := r.c, r.size
	r.objects = r.objects[:0]
	textSize := theme.TextSize() * 0.8
	axisH := textSize + 6
	plotH := size.Height - axisH
	maxV := 0.0
	for _, st := range c.stacks {
		t := 0.0
		for _, v := range st {
			t += v
		}
		maxV = math.Max(maxV, t)
	}
	base := canvas.NewLine(theme.Color(theme.ColorNameSeparator))
	base.Position1, base.Position2 = fyne.NewPos(0, plotH), fyne.NewPos(size.Width, plotH)
	r.objects = append(r.objects, base)
	if len(c.stacks) == 0 || maxV <= 0 || plotH <= 0 {
		empty := canvas.NewText("no data", theme.Color(theme.ColorNamePlaceHolder))
		empty.TextSize = textSize
		empty.Move(fyne.NewPos(4, 4))
		r.objects = append(r.objects, empty)
		return
	}
	w := size.Width / float32(len(c.stacks))
	gap := float32(math.Min(float64(w)*0.2, 4))
	for i, st := range c.stacks {
		y := plotH
		for k, v := range st {
			h := float32(v / maxV * float64(plotH-textSize))
			if h <= 0 {
				continue
			}
			col := theme.Color(seriesColors[k%len(seriesColors)])
			if c.hovered >= 0 && c.hovered != i {
				col = withAlpha(col, 0x90)
			}
			rect := canvas.NewRectangle(col)
			rect.Move(fyne.NewPos(float32(i)*w+gap/2, y-h))
			rect.Resize(fyne.NewSize(max(w-gap, 1), h))
			r.objects = append(r.objects, rect)
			y -= h
		}
	}
	top := canvas.NewText(c.format(maxV), theme.Color(theme.ColorNamePlaceHolder))
	top.TextSize = textSize
	top.Move(fyne.NewPos(2, 0))
	r.objects = append(r.objects, top)
	for _, i := range []int{0, len(c.labels) - 1} {
		if i < 0 || i >= len(c.labels) {
			continue
		}
		t := canvas.NewText(c.labels[i], theme.Color(theme.ColorNamePlaceHolder))
		t.TextSize = textSize
		x := float32(i) * w
		if i == len(c.labels)-1 && i > 0 {
			x = size.Width - t.MinSize().Width
		}
		t.Move(fyne.NewPos(x, plotH+2))
		r.objects = append(r.objects, t)
	}
}

// Heatmap is a weekday × hour grid of counts.
type Heatmap struct {
	widget.BaseWidget
	counts  [7][24]int64
	readout *widget.Label
	hovered [2]int
}

var _ desktop.Hoverable = (*Heatmap)(nil)

// weekdays are the rows' names, Monday first.
var weekdays = [7]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// NewHeatmap returns an empty heatmap; readout shows the cell under the
// pointer.
func NewHeatmap(readout *widget.Label) *Heatmap {
	h := &Heatmap{readout: readout, hovered: [2]int{-1, -1}}
	h.ExtendBaseWidget(h)
	return h
}

// SetData shows counts[weekday][hour], Monday first.
func (h *Heatmap) SetData(counts [7][24]int64) {
	h.counts = counts
	h.Refresh()
}

// Describe returns the readout text of a cell.
func (h *Heatmap) Describe(day, hour int) string {
	if day < 0 || day > 6 || hour < 0 || hour > 23 {
		return ""
	}
	return fmt.Sprintf("%s %02d:00–%02d:59 UTC: %d", weekdays[day], hour, hour, h.counts[day][hour])
}

const heatLabelW = 34

// heatHourStep is how many hours apart the hour axis is labelled.
const heatHourStep = 3

// heatLabelSize is the text size of the heatmap's weekday and hour labels.
func heatLabelSize() float32 { return theme.TextSize() * 0.75 }

// heatAxisH is the height of the hour axis under the grid.
func heatAxisH() float32 { return heatLabelSize() + 4 }

func (h *Heatmap) cellAt(p fyne.Position) (int, int) {
	w := (h.Size().Width - heatLabelW) / 24
	ch := (h.Size().Height - heatAxisH()) / 7
	if p.X < heatLabelW || w <= 0 || ch <= 0 || p.Y >= 7*ch {
		return -1, -1
	}
	return int(p.Y / ch), int((p.X - heatLabelW) / w)
}

// MouseIn shows the cell under the pointer.
func (h *Heatmap) MouseIn(e *desktop.MouseEvent) { h.MouseMoved(e) }

// MouseMoved shows the cell under the pointer in the readout.
func (h *Heatmap) MouseMoved(e *desktop.MouseEvent) {
	d, hr := h.cellAt(e.Position)
	if h.readout != nil {
		h.readout.SetText(h.Describe(d, hr))
	}
}

// MouseOut clears the readout.
func (h *Heatmap) MouseOut() {
	if h.readout != nil {
		h.readout.SetText("")
	}
}

// MinSize is a useful heatmap size.
func (h *Heatmap) MinSize() fyne.Size { return fyne.NewSize(heatLabelW+24*10, 7*14+heatAxisH()) }

// CreateRenderer draws the grid.
func (h *Heatmap) CreateRenderer() fyne.WidgetRenderer { return &heatRenderer{h: h} }

type heatRenderer struct {
	h       *Heatmap
	objects []fyne.CanvasObject
	size    fyne.Size
}

func (r *heatRenderer) Layout(size fyne.Size) { r.size = size; r.build() }
func (r *heatRenderer) MinSize() fyne.Size    { return r.h.MinSize() }
func (r *heatRenderer) Refresh()              { r.build(); canvas.Refresh(r.h) }
func (r *heatRenderer) Objects() []fyne.CanvasObject {
	return r.objects
}
func (r *heatRenderer) Destroy() {}

func (r *heatRenderer) build() {
	r.objects = r.objects[:0]
	var maxC int64
	for _, row := range r.h.counts {
		for _, v := range row {
			maxC = max(maxC, v)
		}
	}
	w := (r.size.Width - heatLabelW) / 24
	ch := (r.size.Height - heatAxisH()) / 7
	primary := theme.Color(theme.ColorNamePrimary)
	label := func(text string, at fyne.Position) *canvas.Text {
		t := canvas.NewText(text, theme.Color(theme.ColorNamePlaceHolder))
		t.TextSize = heatLabelSize()
		t.Move(at)
		r.objects = append(r.objects, t)
		return t
	}
	for hr := 0; hr < 24; hr += heatHourStep {
		label(fmt.Sprint(hr), fyne.NewPos(heatLabelW+float32(hr)*w+1, 7*ch+2))
	}
	for d := range 7 {
		t := label(weekdays[d], fyne.NewPos(0, float32(d)*ch))
		t.Move(fyne.NewPos(0, float32(d)*ch+(ch-t.MinSize().Height)/2))
		for hr := range 24 {
			a := uint8(0x14)
			if v := r.h.counts[d][hr]; v > 0 && maxC > 0 {
				a = uint8(0x30 + float64(0xcf)*float64(v)/float64(maxC))
			}
			rect := canvas.NewRectangle(withAlpha(primary, a))
			rect.Move(fyne.NewPos(heatLabelW+float32(hr)*w+1, float32(d)*ch+1))
			rect.Resize(fyne.NewSize(max(w-2, 1), max(ch-2, 1)))
			r.objects = append(r.objects, rect)
		}
	}
}

// shareBar is one row of a breakdown: a label, a bar proportional to its
// share and its value.
func shareBar(label string, frac float64, value string) fyne.CanvasObject {
	l := widget.NewLabel(label)
	l.Truncation = fyne.TextTruncateEllipsis
	return shareRow(l, frac, value)
}

// pathShareBar is a shareBar whose label is a path, shortened in the
// middle, whole on hover.
func pathShareBar(path string, frac float64, value string) fyne.CanvasObject {
	l := newPathLabel()
	l.SetPath(path, path)
	return shareRow(newHoverTip(l, func() string {
		if l.shown() != path {
			return path
		}
		return ""
	}), frac, value)
}

// shareRow is a shareBar with label l.
func shareRow(l fyne.CanvasObject, frac float64, value string) fyne.CanvasObject {
	bar := canvas.NewRectangle(theme.Color(theme.ColorNamePrimary))
	bar.SetMinSize(fyne.NewSize(float32(math.Max(frac, 0.005))*160, theme.TextSize()*0.8))
	v := widget.NewLabel(value)
	v.Truncation = fyne.TextTruncateEllipsis
	return &fyne.Container{Layout: &shareLayout{}, Objects: []fyne.CanvasObject{l, bar, v}}
}

// shareLayout places a breakdown row: label (38 %), bar (up to 26 %),
// value (the rest).
type shareLayout struct{}

func (shareLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	h := objs[0].MinSize().Height
	return fyne.NewSize(360, h)
}

func (shareLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	lw := size.Width * 0.38
	objs[0].Move(fyne.NewPos(0, 0))
	objs[0].Resize(fyne.NewSize(lw, size.Height))
	bw := objs[1].MinSize().Width * (size.Width * 0.26 / 160)
	bh := objs[1].MinSize().Height
	objs[1].Move(fyne.NewPos(lw, (size.Height-bh)/2))
	objs[1].Resize(fyne.NewSize(bw, bh))
	vx := lw + size.Width*0.27
	objs[2].Move(fyne.NewPos(vx, 0))
	objs[2].Resize(fyne.NewSize(size.Width-vx, size.Height))
}

var _ color.Color = (*color.NRGBA)(nil)
