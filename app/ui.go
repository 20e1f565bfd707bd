package app

import (
	"fyne.io/fyne/v2"
	"github.com/lazuli-app/lazuli/views"
)

// onUI runs f on the Fyne goroutine: every hand-off of background work to
// the widgets goes through it. It is fyne.Do; the tests replace it with a
// version that runs one f at a time (Fyne's test driver runs f at once on
// the calling goroutine, so two background hand-offs would shape text at
// the same time, which Fyne's text shaper does not allow).
var onUI = fyne.Do

// loadingDelay is how long a session may load before the transcript shows
// the loading indicator in its place (views.LoadingDelay); the tests show
// it at once, so that no timer's goroutine touches the widgets.
var loadingDelay = views.LoadingDelay
