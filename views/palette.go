package views

import (
	"image"
	"image/color"
	"image/draw"
	"reflect"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// paletteOverlay floats a panel over a window as an editor's command
// palette does: no backdrop over the window (a rectangle over the whole
// window is repainted in every frame the panel is open), a shadowed
// background under the panel, and a click outside the panel dismisses it.
// It is added to the canvas's overlays, which gives the panel its own
// focus chain, as a pop-up has.
//
// Fyne's non-modal pop-up does the same but hides itself on a click
// outside without telling anyone; the search panel must know, to bring
// the window back from behind its frozen picture (Backdrop).
type paletteOverlay struct {
	widget.BaseWidget
	content   fyne.CanvasObject
	bg        *canvas.Rectangle
	pos       fyne.Position // the panel's place and size in the overlay, from the last layout
	size      fyne.Size
	onDismiss func()
}

// paletteRect is where the panel floats in a window of size win: 70 % of
// its width and 75 % of its height (at least 560 × 360), centred.
func paletteRect(win fyne.Size) (fyne.Position, fyne.Size) {
	size := fyne.NewSize(max(560, win.Width*0.7), max(360, win.Height*0.75))
	return fyne.NewPos(max(0, (win.Width-size.Width)/2), max(0, (win.Height-size.Height)/2)), size
}

func newPaletteOverlay(content fyne.CanvasObject, onDismiss func()) *paletteOverlay {
	o := &paletteOverlay{content: content, bg: canvas.NewRectangle(color.Transparent), onDismiss: onDismiss}
	o.ExtendBaseWidget(o)
	return o
}

// Tapped dismisses the panel when the click is outside it.
func (o *paletteOverlay) Tapped(e *fyne.PointEvent) { o.tappedAt(e.Position) }

// TappedSecondary dismisses the panel when the click is outside it.
func (o *paletteOverlay) TappedSecondary(e *fyne.PointEvent) { o.tappedAt(e.Position) }

func (o *paletteOverlay) tappedAt(p fyne.Position) {
	inside := p.X >= o.pos.X && p.Y >= o.pos.Y && p.X < o.pos.X+o.size.Width && p.Y < o.pos.Y+o.size.Height
	if !inside && o.onDismiss != nil {
		o.onDismiss()
	}
}

// CreateRenderer returns the renderer of the panel's background and content.
func (o *paletteOverlay) CreateRenderer() fyne.WidgetRenderer {
	r := &paletteRenderer{o: o}
	r.Refresh()
	return r
}

type paletteRenderer struct{ o *paletteOverlay }

func (r *paletteRenderer) Destroy() {}

func (r *paletteRenderer) Objects() []fyne.CanvasObject {
	return []fyne.CanvasObject{r.o.bg, r.o.content}
}

func (r *paletteRenderer) MinSize() fyne.Size { return fyne.Size{} }

func (r *paletteRenderer) Layout(size fyne.Size) {
	o := r.o
	o.pos, o.size = paletteRect(size)
	o.bg.Move(o.pos)
	o.bg.Resize(o.size)
	o.content.Move(o.pos)
	o.content.Resize(o.size)
}

// Refresh styles the background as a pop-up's: the overlay colour, the
// pop-up's corner radius and its shadow.
func (r *paletteRenderer) Refresh() {
	o := r.o
	th := o.Theme()
	v := fyne.CurrentApp().Settings().ThemeVariant()
	o.bg.FillColor = th.Color(theme.ColorNameOverlayBackground, v)
	o.bg.CornerRadius = th.Size(theme.SizeNamePopupRadius)
	o.bg.Shadow = canvas.Shadow{Color: th.Color(theme.ColorNameShadow, v), BlurRadius: 14, Offset: fyne.NewPos(0, 4),
		Variant: canvas.DropShadow}
	r.Layout(o.Size())
	o.bg.Refresh()
	o.content.Refresh()
}

// Backdrop freezes what a window shows while a panel floats over it: the
// window's content is hidden behind a picture of its last frame, so that a
// frame of the panel (every key typed, every answer) paints one image
// under it instead of every card and list of the window. With software
// rendering the content under the Ctrl+K panel was most of such a frame.
//
// The picture is taken when the panel opens; what changes under it while
// it is open (a run streaming, a session arriving) shows when it closes.
// A resize lets the window show again at once. Its methods must be called
// on the Fyne goroutine.
type Backdrop struct {
	hide   fyne.CanvasObject // the content hidden behind the picture
	img    *canvas.Image
	gen    int       // bumps on every Freeze and Thaw
	size   fyne.Size // the size the picture was taken at
	frozen bool
	// later runs f on the Fyne goroutine after d (ThawWithin's timer).
	later func(d time.Duration, f func())
}

// NewBackdrop returns a backdrop for content, and the object to put in
// the window in content's place: content with the picture over it.
func NewBackdrop(content fyne.CanvasObject) (*Backdrop, fyne.CanvasObject) {
	b := &Backdrop{hide: content, img: canvas.NewImageFromImage(nil),
		later: func(d time.Duration, f func()) { time.AfterFunc(d, func() { fyne.Do(f) }) }}
	b.img.FillMode = canvas.ImageFillStretch
	b.img.ScaleMode = canvas.ImageScalePixels
	b.img.Hide()
	return b, container.New(&backdropLayout{b: b}, content, b.img)
}

// Freeze takes a picture of c's last frame and shows it in place of the
// content. The copy of the frame takes a few milliseconds (its rows are
// copied as they are).
func (b *Backdrop) Freeze(c fyne.Canvas) {
	b.gen++
	size := c.Size()
	shot := c.Capture() // reads the frame shown: the window without the panel, which is not drawn yet
	if shot == nil || size.IsZero() {
		return
	}
	// The frame is the whole canvas; the content may sit below a menu bar.
	pos, area, scale := fyne.CurrentApp().Driver().AbsolutePositionForObject(b.hide), b.hide.Size(), c.Scale()
	px := func(v float32) int { return int(v*scale + 0.5) }
	crop := image.Rect(px(pos.X), px(pos.Y), px(pos.X+area.Width), px(pos.Y+area.Height)).Add(shot.Bounds().Min).Intersect(shot.Bounds())
	if crop.Empty() {
		return
	}
	b.img.Image = toRGBA(shot, crop)
	b.img.Refresh()
	b.img.Show()
	b.hide.Hide()
	b.size, b.frozen = size, true
}

// Thaw shows the content again and drops the picture.
func (b *Backdrop) Thaw() {
	b.gen++
	if !b.frozen {
		return
	}
	b.frozen = false
	b.hide.Show()
	b.img.Hide()
	b.img.Image = nil
}

// ThawWithin thaws the backdrop after d unless it was thawed or frozen
// again before: a safety for a caller that keeps the window frozen until
// it has shown something (a search hit) and may never get there.
func (b *Backdrop) ThawWithin(d time.Duration) {
	gen := b.gen
	b.later(d, func() {
		if gen == b.gen {
			b.Thaw()
		}
	})
}

// Frozen reports whether the picture is shown in place of the content.
func (b *Backdrop) Frozen() bool { return b.frozen }

// backdropLayout fills the window with the content and the picture, and
// thaws the backdrop when the window's size changes: the picture no longer
// fits it.
type backdropLayout struct{ b *Backdrop }

func (l *backdropLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Move(fyne.Position{})
		o.Resize(size)
	}
	if l.b.frozen && size != l.b.size {
		fyne.Do(l.b.Thaw) // not while the window is being laid out
	}
}

func (l *backdropLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	return objects[0].MinSize()
}

// toRGBA copies part b of a captured frame into an RGBA image, which the
// GL painter uploads as it is. Fyne's capture of a GL window is a type of
// its own whose pixels are only reachable through At.
func toRGBA(src image.Image, b image.Rectangle) *image.RGBA {
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	switch src.(type) {
	case *image.RGBA, *image.NRGBA:
		draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Src)
		return dst
	}
	if pix, w, h, ok := glCapturePixels(src); ok {
		// The GL frame's rows run bottom up; its alpha is not the picture's.
		for y := b.Min.Y; y < b.Max.Y; y++ {
			row := pix[((h-y-1)*w+b.Min.X)*4 : ((h-y-1)*w+b.Max.X)*4]
			out := dst.Pix[(y-b.Min.Y)*dst.Stride : (y-b.Min.Y)*dst.Stride+len(row)]
			copy(out, row)
			for i := 3; i < len(out); i += 4 {
				out[i] = 0xff
			}
		}
		return dst
	}
	i := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			var c color.RGBA
			if rgba, ok := src.At(x, y).(color.RGBA); ok {
				c = rgba
			} else {
				c = color.RGBAModel.Convert(src.At(x, y)).(color.RGBA)
			}
			dst.Pix[i], dst.Pix[i+1], dst.Pix[i+2], dst.Pix[i+3] = c.R, c.G, c.B, c.A
			i += 4
		}
	}
	return dst
}

// glCapturePixels returns the pixels of Fyne's capture of a GL window
// (rows bottom up, RGBA) and its size, when src is one: reading them
// through At boxed every pixel in an interface, 40-50 ms of allocation for
// a large window each time the search panel opened. The type is Fyne's
// own, so its fields are read by reflection, and anything unexpected falls
// back to At.
func glCapturePixels(src image.Image) (pix []byte, w, h int, ok bool) {
	v := reflect.ValueOf(src)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, 0, 0, false
	}
	e := v.Elem()
	fp, fw, fh := e.FieldByName("pix"), e.FieldByName("width"), e.FieldByName("height")
	if !fp.IsValid() || !fw.IsValid() || !fh.IsValid() || fp.Kind() != reflect.Slice || fp.Type().Elem().Kind() != reflect.Uint8 ||
		fw.Kind() != reflect.Int || fh.Kind() != reflect.Int {
		return nil, 0, 0, false
	}
	pix, w, h = fp.Bytes(), int(fw.Int()), int(fh.Int())
	b := src.Bounds()
	if w <= 0 || h <= 0 || len(pix) != w*h*4 || b.Min.X < 0 || b.Min.Y < 0 || b.Max.X > w || b.Max.Y > h {
		return nil, 0, 0, false
	}
	return pix, w, h, true
}
