package views

import (
	"image"
	"image/color"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// newFrozenWindow returns a window whose content is a backdrop over a
// label on a coloured rectangle, and a search panel that freezes it.
func newFrozenWindow(t *testing.T) (fyne.Window, *Backdrop, fyne.CanvasObject, *SearchPanel) {
	t.Helper()
	test.NewTempApp(t)
	fyne.CurrentApp().Settings().SetTheme(Theme{})
	inner := container.NewStack(canvas.NewRectangle(color.NRGBA{R: 200, A: 255}), widget.NewLabel("the window"))
	b, root := NewBackdrop(inner)
	w := test.NewTempWindow(t, root)
	w.Resize(fyne.NewSize(1000, 700))
	p := NewSearchPanel(&fakeSearch{})
	p.SetBackdrop(b)
	return w, b, inner, p
}

// The window under the Ctrl+K panel is a picture of itself while the panel
// is open: its content hidden (a frame paints one image instead of every
// card), the picture the content's size; closing the panel, by Escape or a
// click outside it, shows the content again. A click inside the panel
// keeps it open.
func TestSearchPanelFreezesTheWindow(t *testing.T) {
	w, b, inner, p := newFrozenWindow(t)
	p.Show(w.Canvas())
	if !b.Frozen() || inner.Visible() || !b.img.Visible() {
		t.Fatalf("panel open: frozen %v, content visible %v, picture visible %v", b.Frozen(), inner.Visible(), b.img.Visible())
	}
	if got, want := b.img.Image.Bounds().Size(), inner.Size(); float32(got.X) != want.Width*w.Canvas().Scale() || float32(got.Y) != want.Height*w.Canvas().Scale() {
		t.Errorf("picture %v for content %v", got, want)
	}
	if c := b.img.Image.At(5, 5); c != (color.RGBA{R: 200, A: 255}) {
		t.Errorf("picture at (5, 5) is %v, the content's rectangle is red", c)
	}
	pos, size := paletteRect(w.Canvas().Size())
	test.TapCanvas(w.Canvas(), pos.Add(fyne.NewPos(size.Width/2, size.Height-5)))
	if !p.Visible() || !b.Frozen() {
		t.Fatal("a click inside the panel closed it")
	}
	test.TapCanvas(w.Canvas(), fyne.NewPos(3, 3))
	if p.Visible() || b.Frozen() || !inner.Visible() || b.img.Visible() || b.img.Image != nil {
		t.Fatalf("after a click outside: panel %v, frozen %v, content %v, picture %v", p.Visible(), b.Frozen(), inner.Visible(), b.img.Visible())
	}
	p.Show(w.Canvas())
	if w.Canvas().Focused() != p.entry {
		t.Fatalf("the focus is on %T, not in the panel's entry", w.Canvas().Focused())
	}
	test.Type(p.entry, "x")
	w.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if p.Visible() || b.Frozen() || !inner.Visible() {
		t.Fatalf("after Escape: panel %v, frozen %v, content %v", p.Visible(), b.Frozen(), inner.Visible())
	}
}

// The window is not frozen under the panel when something else floats
// over it already (a dialog, which may change), and a resize shows it
// again (the picture no longer fits).
func TestBackdropThawsWhenItCannotHold(t *testing.T) {
	w, b, inner, p := newFrozenWindow(t)
	other := widget.NewPopUp(widget.NewLabel("a dialog"), w.Canvas())
	other.Show()
	p.Show(w.Canvas())
	if b.Frozen() || !inner.Visible() {
		t.Error("frozen under the panel over another overlay")
	}
	p.Hide()
	other.Hide()
	p.Show(w.Canvas())
	if !b.Frozen() {
		t.Fatal("not frozen")
	}
	w.Resize(fyne.NewSize(800, 600))
	if b.Frozen() || !inner.Visible() {
		t.Error("still frozen after a resize")
	}
	if !p.Visible() {
		t.Error("a resize closed the panel")
	}
}

// Opening a hit (Enter) closes the panel but leaves the window frozen: the
// app thaws it once the hit is shown, and it thaws itself a second later
// when the app does not.
func TestOpeningAHitKeepsTheWindowFrozen(t *testing.T) {
	w, b, inner, p := newFrozenWindow(t)
	var timers []func()
	b.later = func(_ time.Duration, f func()) { timers = append(timers, f) }
	f := p.actions.(*fakeSearch)
	p.Show(w.Canvas())
	test.Type(p.entry, "go")
	p.SetResults(p.sent, SearchResults{Hits: sampleHits(3)})
	p.entry.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if len(f.opened) != 1 || p.Visible() {
		t.Fatalf("Enter: opened %d hits, panel visible %v", len(f.opened), p.Visible())
	}
	if !b.Frozen() || inner.Visible() {
		t.Fatal("the window was thawed before the app showed the hit")
	}
	if len(timers) != 1 {
		t.Fatalf("%d thaw timers set", len(timers))
	}
	timers[0]() // the second has passed
	if b.Frozen() || !inner.Visible() {
		t.Error("the window stayed frozen when the app did not thaw it")
	}
}

// glLikeCapture is shaped as Fyne's capture of a GL window: RGBA rows
// bottom up, alpha not the picture's, pixels reachable through At.
type glLikeCapture struct {
	pix           []uint8
	width, height int
}

func (c *glLikeCapture) ColorModel() color.Model { return color.RGBAModel }
func (c *glLikeCapture) Bounds() image.Rectangle { return image.Rect(0, 0, c.width, c.height) }
func (c *glLikeCapture) At(x, y int) color.Color {
	i := ((c.height-y-1)*c.width + x) * 4
	return color.RGBA{R: c.pix[i], G: c.pix[i+1], B: c.pix[i+2], A: 0xff}
}

// toRGBA copies a GL capture by its rows, as At reads it, for the whole
// frame and for a part of it (the content under a menu bar).
func TestToRGBAReadsGLCaptures(t *testing.T) {
	src := &glLikeCapture{width: 7, height: 5, pix: make([]uint8, 7*5*4)}
	for i := range src.pix {
		src.pix[i] = uint8(i * 7)
	}
	if _, _, _, ok := glCapturePixels(src); !ok {
		t.Fatal("the GL-shaped capture was not read by its rows")
	}
	for _, r := range []image.Rectangle{src.Bounds(), image.Rect(1, 2, 6, 5)} {
		got := toRGBA(src, r)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				if g, w := got.RGBAAt(x-r.Min.X, y-r.Min.Y), src.At(x, y); g != w {
					t.Fatalf("part %v: pixel (%d, %d) is %v, At gives %v", r, x, y, g, w)
				}
			}
		}
	}
	if _, _, _, ok := glCapturePixels(image.NewUniform(color.Black)); ok {
		t.Error("a uniform image was taken for a GL capture")
	}
}
