package app

import "fyne.io/fyne/v2"

// onUI runs f on the Fyne goroutine: every hand-off of background work to
// the widgets goes through it. It is fyne.Do; the tests replace it with a
// version that runs one f at a time (Fyne's test driver runs f at once on
// the calling goroutine, so two background hand-offs would shape text at
// the same time, which Fyne's text shaper does not allow).
var onUI = fyne.Do
