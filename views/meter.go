package views

import (
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/store"
)

// meterBarWidth is the width of the meter's bar, in Fyne units.
const meterBarWidth = 120

// meterFillAlpha tints the bar with its colour rather than filling it, so
// that the percentage on it stays readable (4.5:1) in both variants: on the
// solid green, orange and red it was 1.3-2.5:1.
const meterFillAlpha = 0x38

// Meter shows how full the context of the current session is: the
// characters stored since the last compaction against the compaction
// threshold (spec §7.6), as a coloured bar with a percentage, followed by
// the exact numbers, which a hover also shows.
type Meter struct {
	widget.BaseWidget

	chars int64
	tip   *hoverTip
	track *canvas.Rectangle
	fill  *canvas.Rectangle
	pct   *canvas.Text
	text  *canvas.Text
}

// NewMeter returns an empty meter (0 characters).
func NewMeter() *Meter {
	m := &Meter{
		track: canvas.NewRectangle(color.Transparent),
		fill:  canvas.NewRectangle(color.Transparent),
		pct:   canvas.NewText("", color.Black),
		text:  canvas.NewText("", color.Black),
	}
	m.pct.TextStyle.Bold = true
	m.pct.Alignment = fyne.TextAlignCenter
	m.ExtendBaseWidget(m)
	m.Set(0)
	return m
}

// Set shows chars characters since the last compaction.
func (m *Meter) Set(chars int64) {
	m.chars = max(chars, 0)
	m.pct.Text = fmt.Sprintf("%.0f%%", m.Percent())
	m.text.Text = m.Text()
	m.Refresh()
}

// Percent returns min(chars / threshold × 100, 100).
func (m *Meter) Percent() float64 { return meterPercent(m.chars) }

// Text returns the exact numbers, e.g. "123,456 / 400,000 characters
// since the last compaction".
func (m *Meter) Text() string {
	return display.Count(m.chars) + " / " + display.Count(store.CompactionThreshold) +
		" characters since the last compaction"
}

// ColorName returns the theme colour of the bar: success below 60 %,
// warning below 90 %, error from 90 %.
func (m *Meter) ColorName() fyne.ThemeColorName { return meterColorName(m.Percent()) }

// CreateRenderer returns the meter's renderer.
func (m *Meter) CreateRenderer() fyne.WidgetRenderer {
	m.ExtendBaseWidget(m)
	m.tip = newHoverTip(m.track, m.Text)
	r := &meterRenderer{m: m, objects: []fyne.CanvasObject{m.tip, m.fill, m.pct, m.text}}
	r.Refresh()
	return r
}

func meterPercent(chars int64) float64 {
	return min(float64(chars)/store.CompactionThreshold*100, 100)
}

func meterColorName(pct float64) fyne.ThemeColorName {
	switch {
	case pct < 60:
		return theme.ColorNameSuccess
	case pct < 90:
		return theme.ColorNameWarning
	}
	return theme.ColorNameError
}

// meterRenderer lays out the bar (track, fill, centred percentage) and the
// detail text to its right.
type meterRenderer struct {
	m       *Meter
	objects []fyne.CanvasObject
}

func (r *meterRenderer) barHeight() float32 {
	return r.m.pct.MinSize().Height + theme.Size(theme.SizeNameInnerPadding)
}

func (r *meterRenderer) Layout(size fyne.Size) {
	m := r.m
	h := r.barHeight()
	top := (size.Height - h) / 2
	m.tip.Move(fyne.NewPos(0, top))
	m.tip.Resize(fyne.NewSize(meterBarWidth, h))
	m.fill.Move(fyne.NewPos(0, top))
	m.fill.Resize(fyne.NewSize(meterBarWidth*float32(m.Percent()/100), h))
	m.pct.Move(fyne.NewPos(0, top))
	m.pct.Resize(fyne.NewSize(meterBarWidth, h))
	x := meterBarWidth + 2*theme.Size(theme.SizeNamePadding)
	m.text.Text = m.fittingText(size.Width - x - theme.Size(theme.SizeNamePadding))
	th := m.text.MinSize().Height
	m.text.Move(fyne.NewPos(x, (size.Height-th)/2))
	m.text.Resize(fyne.NewSize(max(size.Width-x, 0), th))
}

// MinSize is the bar's: the numbers beside it shorten, then go, when the
// header is narrow (the bar's hover still shows them).
func (r *meterRenderer) MinSize() fyne.Size {
	return fyne.NewSize(meterBarWidth+theme.Size(theme.SizeNamePadding), max(r.m.text.MinSize().Height, r.barHeight()))
}

// PreferredWidth is the meter's width with its full text beside the bar.
func (m *Meter) PreferredWidth() float32 {
	return meterBarWidth + 3*theme.Size(theme.SizeNamePadding) + m.textWidth(m.Text())
}

// fittingText is the longest of the meter's texts that fits in w: the
// full one, the numbers alone, or none.
func (m *Meter) fittingText(w float32) string {
	for _, s := range []string{m.Text(), display.Count(m.chars) + " / " + display.Count(store.CompactionThreshold)} {
		if m.textWidth(s) <= w {
			return s
		}
	}
	return ""
}

func (m *Meter) textWidth(s string) float32 {
	return fyne.MeasureText(s, m.text.TextSize, m.text.TextStyle).Width
}

func (r *meterRenderer) Refresh() {
	m := r.m
	radius := theme.Size(theme.SizeNameInputRadius)
	m.track.FillColor = theme.Color(theme.ColorNameInputBackground)
	m.track.StrokeColor = theme.Color(theme.ColorNameInputBorder)
	m.track.StrokeWidth = 1
	m.track.CornerRadius = radius
	m.fill.FillColor = withAlpha(theme.Color(m.ColorName()), meterFillAlpha)
	m.fill.CornerRadius = radius
	m.pct.Color = theme.Color(theme.ColorNameForeground)
	m.text.Color = theme.Color(theme.ColorNamePlaceHolder)
	r.Layout(m.Size())
	m.track.Refresh()
	m.fill.Refresh()
	m.pct.Refresh()
	m.text.Refresh()
}

func (r *meterRenderer) Objects() []fyne.CanvasObject { return r.objects }

func (r *meterRenderer) Destroy() {}
