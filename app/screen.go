package app

import (
	"log"

	"fyne.io/fyne/v2"
	"github.com/go-gl/glfw/v3.4/glfw"

	"github.com/lazuli-app/lazuli/views"
)

// screenShare is how much of the screen's work area a first window may take.
const screenShare = 0.95

// fitToScreen shrinks win to its screen when the remembered (or default)
// size is larger, e.g. 1180x760 at FYNE_SCALE 1.5 is 1770x1140 pixels, more
// than a 1280x800 screen, and centres it. Fyne has no API for the screen's
// size: GLFW's primary monitor is asked, on the main goroutine, after the
// window is made (Fyne initialises GLFW then) and before it is shown, and
// again once the driver runs (the app's OnStarted), when the canvas has its
// real scale.
func fitToScreen(win fyne.Window) {
	mon := glfw.GetPrimaryMonitor()
	if mon == nil {
		return
	}
	_, _, wpx, hpx := mon.GetWorkarea()
	if wpx <= 0 || hpx <= 0 {
		if mode := mon.GetVideoMode(); mode != nil {
			wpx, hpx = mode.Width, mode.Height
		}
	}
	scale := win.Canvas().Scale()
	if wpx <= 0 || hpx <= 0 || scale <= 0 {
		return
	}
	screen := fyne.NewSize(float32(wpx)/scale, float32(hpx)/scale)
	cur := win.Canvas().Size()
	if fit, ok := refit(cur, screen, scale); ok {
		log.Printf("window %.0fx%.0f does not fit the %dx%d-pixel screen at scale %.2f: %.0fx%.0f",
			cur.Width, cur.Height, wpx, hpx, scale, fit.Width, fit.Height)
		win.Resize(fit)
		win.CenterOnScreen()
	}
}

// clampToScreen is want, no larger than screenShare of screen but never
// below views.MinWindowSize.
func clampToScreen(want, screen fyne.Size) fyne.Size {
	return fyne.NewSize(
		max(min(want.Width, screen.Width*screenShare), views.MinWindowSize.Width),
		max(min(want.Height, screen.Height*screenShare), views.MinWindowSize.Height))
}

// refit returns the size a window of size cur should take on screen (both
// in the canvas's units, at scale) and whether that is a change: within a
// pixel is fitted already, because the canvas rounds a size to whole pixels
// (972.8 units asked for are 973 had).
func refit(cur, screen fyne.Size, scale float32) (fyne.Size, bool) {
	fit := clampToScreen(cur, screen)
	px := 1 / scale
	return fit, abs32(fit.Width-cur.Width) > px || abs32(fit.Height-cur.Height) > px
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}
