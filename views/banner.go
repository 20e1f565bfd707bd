package views

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// banner is a strip with a warning icon and a line of text on a tinted
// warning background, e.g. "This session may be compacting…".
type banner struct {
	widget.BaseWidget

	bg    *canvas.Rectangle
	icon  *widget.Icon
	label *widget.Label
}

func newBanner() *banner {
	b := &banner{
		bg:    canvas.NewRectangle(color.Transparent),
		icon:  widget.NewIcon(theme.NewWarningThemedResource(theme.WarningIcon())),
		label: widget.NewLabel(""),
	}
	b.label.Truncation = fyne.TextTruncateEllipsis
	b.ExtendBaseWidget(b)
	return b
}

// SetText shows text; "" hides the banner.
func (b *banner) SetText(text string) {
	b.label.SetText(text)
	if text == "" {
		b.Hide()
	} else {
		b.Show()
	}
}

// CreateRenderer returns a renderer that recolours the background with
// the theme.
func (b *banner) CreateRenderer() fyne.WidgetRenderer {
	pad := theme.Size(theme.SizeNamePadding)
	icon := container.New(&insetLayout{left: 2 * pad}, container.NewCenter(b.icon))
	content := container.NewBorder(nil, nil, icon, nil, b.label)
	r := &bannerRenderer{b: b, WidgetRenderer: widget.NewSimpleRenderer(container.NewStack(b.bg, content))}
	r.Refresh()
	return r
}

// bannerRenderer is a simple renderer whose Refresh picks up theme changes.
type bannerRenderer struct {
	fyne.WidgetRenderer
	b *banner
}

func (r *bannerRenderer) Refresh() {
	r.b.bg.FillColor = withAlpha(theme.Color(theme.ColorNameWarning), 0x40)
	r.b.bg.Refresh()
	r.WidgetRenderer.Refresh()
}
