package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// Fyne 2.8 has no widget tooltips, so hoverTip shows a small pop-up with a
// text while the pointer rests on its content.
var _ desktop.Hoverable = (*hoverTip)(nil)

// hoverTip wraps a canvas object and shows tip() below it on hover.
type hoverTip struct {
	widget.BaseWidget
	content fyne.CanvasObject
	tip     func() string

	popup *widget.PopUp
}

// newHoverTip wraps content; tip is read each time the pointer enters.
func newHoverTip(content fyne.CanvasObject, tip func() string) *hoverTip {
	h := &hoverTip{content: content, tip: tip}
	h.ExtendBaseWidget(h)
	return h
}

// CreateRenderer returns a renderer that shows the wrapped content.
func (h *hoverTip) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(h.content)
}

// MouseIn shows the tip under the content.
func (h *hoverTip) MouseIn(*desktop.MouseEvent) {
	text := h.tip()
	c := fyne.CurrentApp().Driver().CanvasForObject(h)
	if text == "" || c == nil {
		return
	}
	label := widget.NewLabel(text)
	if h.popup == nil || h.popup.Canvas != c {
		h.popup = widget.NewPopUp(label, c)
	} else {
		h.popup.Content = label
	}
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(h)
	pos = pos.AddXY(0, h.Size().Height)
	if over := pos.X + label.MinSize().Width - c.Size().Width; over > 0 {
		pos.X -= over
	}
	h.popup.ShowAtPosition(pos)
}

// MouseMoved is required by desktop.Hoverable; the tip stays put.
func (h *hoverTip) MouseMoved(*desktop.MouseEvent) {}

// MouseOut hides the tip.
func (h *hoverTip) MouseOut() {
	if h.popup != nil {
		h.popup.Hide()
	}
}

// tipText returns the text the tip shows now, for tests.
func (h *hoverTip) tipText() string { return h.tip() }
