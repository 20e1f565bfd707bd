package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
)

// onFirstLine wraps a card header's part (its title, a count, an action)
// so that it sits on the header's first line: centred on a one-line
// label's height, at the top. Centred on the whole header, a title beside
// a command of several lines sat halfway down it.
func onFirstLine(o fyne.CanvasObject) *fyne.Container {
	return container.New(firstLineLayout{}, o)
}

// firstLineLayout lays out its objects at their minimum size, centred
// vertically on the first line of a monospace label (the header's detail),
// or on the whole height when that is less than a line.
type firstLineLayout struct{}

// firstLineHeight is the height of a one-line monospace label: one line
// of text and the label's inner padding above and below.
func firstLineHeight() float32 {
	line := fyne.MeasureText("M", theme.Size(theme.SizeNameText), fyne.TextStyle{Monospace: true}).Height
	return line + 2*theme.Size(theme.SizeNameInnerPadding)
}

// Layout places each object centred on the first line.
func (firstLineLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	h := min(firstLineHeight(), size.Height)
	for _, o := range objects {
		m := o.MinSize()
		o.Resize(m)
		o.Move(fyne.NewPos((size.Width-m.Width)/2, (h-m.Height)/2))
	}
}

// MinSize is the largest object's size: beside no detail, the header is
// only as high as its parts.
func (firstLineLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objects {
		if o.Visible() {
			m = m.Max(o.MinSize())
		}
	}
	return m
}
