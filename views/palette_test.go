package views

import (
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
	b.async = func(f func()) { f() }
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
	deadline := time.Now().Add(10 * time.Second)
	for b.Frozen() && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if b.Frozen() || !inner.Visible() {
		t.Error("the window stayed frozen when the app did not thaw it")
	}
}
