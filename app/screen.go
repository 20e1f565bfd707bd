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
// size: GLFW's primary monitor is asked, on the main goroutine once the
// driver runs (the app's OnStarted).
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
	if fit := clampToScreen(cur, screen); fit != cur {
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
