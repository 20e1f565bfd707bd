package views

import (
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/display"
)

// Loader is the transcript's loading: what it shows in place while a
// session loads (a moving bar and what is loading; loading runs in the
// background and the window stays responsive meanwhile), and the bar over
// a session shown from its newest events, with how many earlier events
// are not loaded and buttons to load them.
type Loader struct {
	t *Transcript

	box   *fyne.Container // shown in place while a session loads
	bar   *widget.ProgressBarInfinite
	label *widget.Label
	// waiting is the number of the Show whose session has not arrived; 0
	// for none. The indicator shows only after the delay, through after.
	waiting, shows int
	delay          time.Duration                           // LoadingDelay, or SetDelay's
	after          func(time.Duration, func()) func() bool // afterFunc; tests replace it

	earlier      int             // the session's events before the first shown that are not loaded
	earlierBar   *fyne.Container // shown while earlier > 0
	earlierLabel *widget.Label
	earlierMore  *widget.Button
	earlierAll   *widget.Button
	// earlierProgress moves while earlier events load.
	earlierProgress *widget.ProgressBarInfinite
}

func newLoader(t *Transcript) *Loader {
	l := &Loader{t: t, bar: widget.NewProgressBarInfinite(), label: widget.NewLabel(""), after: afterFunc, delay: LoadingDelay}
	l.newEarlierBar()
	l.label.Alignment = fyne.TextAlignCenter
	l.bar.Stop()
	l.box = container.NewCenter(container.NewVBox(l.label, container.NewGridWrap(fyne.NewSize(240, l.bar.MinSize().Height), l.bar)))
	l.box.Hide()
	return l
}

// LoadingDelay is how long a session may take to load before the loading
// indicator takes the transcript's place: most load in a few tens of
// milliseconds, and the session shown stays until then rather than
// flashing away (and the moving bar, which repaints the window on every
// frame, does not run).
const LoadingDelay = 250 * time.Millisecond

// SetDelay sets how long Show waits before the indicator shows; 0 or less
// shows it at once (a program's tests that cannot have a timer's goroutine
// touch the widgets use it).
func (l *Loader) SetDelay(d time.Duration) { l.delay = d }

// Show shows text ("Loading S3…") and a moving bar in place of the
// transcript, once the session has not arrived (SetSession,
// SetSessionTail, Clear or Hide) within the delay (LoadingDelay).
func (l *Loader) Show(text string) {
	l.shows++
	n := l.shows
	l.waiting = n
	show := func() {
		if l.waiting != n {
			return // arrived, or another Show
		}
		l.label.SetText(text)
		l.t.empty.Hide()
		l.t.rows.body.Hide()
		l.bar.Start()
		l.box.Show()
	}
	if l.delay <= 0 {
		show()
		return
	}
	l.after(l.delay, show)
}

// Hide takes the loading indicator away (a load that failed: the
// transcript shown before stays).
func (l *Loader) Hide() {
	l.waiting = 0
	if !l.box.Visible() {
		return
	}
	l.bar.Stop()
	l.box.Hide()
	l.t.rows.body.Show()
	if l.t.session.ID == 0 {
		l.t.empty.Show()
	}
}

// Shown reports whether the loading indicator is shown.
func (l *Loader) Shown() bool { return l.box.Visible() }

// newEarlierBar makes the bar over a session shown from its newest events:
// how many earlier events are not loaded, and buttons to load them.
func (l *Loader) newEarlierBar() {
	l.earlierLabel = widget.NewLabel("")
	l.earlierLabel.Importance = widget.LowImportance
	l.earlierLabel.Truncation = fyne.TextTruncateEllipsis
	l.earlierMore = widget.NewButtonWithIcon("Earlier", theme.MoveUpIcon(), func() { l.loadEarlier(false) })
	l.earlierAll = widget.NewButton("All", func() { l.loadEarlier(true) })
	for _, b := range []*widget.Button{l.earlierMore, l.earlierAll} {
		b.Importance = widget.LowImportance
	}
	l.earlierProgress = widget.NewProgressBarInfinite()
	l.earlierProgress.Stop()
	l.earlierProgress.Hide()
	l.earlierBar = container.NewBorder(nil, nil, nil,
		container.NewHBox(container.NewGridWrap(fyne.NewSize(120, l.earlierProgress.MinSize().Height), l.earlierProgress),
			l.earlierMore, l.earlierAll), l.earlierLabel)
	l.earlierBar.Hide()
}

// loadEarlier asks for the session's earlier events (all of them, or the
// next batch); they arrive through Transcript.PrependEvents. The buttons
// stay disabled until then.
func (l *Loader) loadEarlier(all bool) {
	if l.earlier <= 0 || l.earlierMore.Disabled() {
		return
	}
	l.earlierMore.Disable()
	l.earlierAll.Disable()
	l.showEarlierLoading(all)
	l.t.actions.LoadEarlier(l.t.ref, all)
}

// Earlier returns how many of the session's events, before those shown,
// are not loaded.
func (l *Loader) Earlier() int { return l.earlier }

// showEarlierBar shows or hides the earlier bar as l.earlier says.
func (l *Loader) showEarlierBar() {
	l.hideEarlierLoading()
	if l.earlier == 0 {
		l.earlierBar.Hide()
		l.t.refreshTop()
		return
	}
	n := len(l.t.rows.events)
	l.earlierLabel.SetText(fmt.Sprintf("Showing the newest %s of %s events; find covers these.",
		display.Count(int64(n)), display.Count(int64(n+l.earlier))))
	l.earlierMore.Enable()
	l.earlierAll.Enable()
	l.earlierBar.Show()
	l.t.refreshTop()
}

// showEarlierLoading shows, in the earlier bar, that earlier events are
// loading; showEarlierBar ends it.
func (l *Loader) showEarlierLoading(all bool) {
	what := "Loading earlier events…"
	if all {
		what = "Loading all earlier events…"
	}
	l.earlierLabel.SetText(what)
	l.earlierProgress.Start()
	l.earlierProgress.Show()
}

// hideEarlierLoading hides the earlier bar's progress.
func (l *Loader) hideEarlierLoading() {
	l.earlierProgress.Stop()
	l.earlierProgress.Hide()
}
