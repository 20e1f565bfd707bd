package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// loadingView is what the transcript shows in place while a session
// loads: a moving bar and what is loading. Loading runs in the background;
// the window stays responsive meanwhile.
type loadingView struct {
	box   *fyne.Container
	bar   *widget.ProgressBarInfinite
	label *widget.Label
}

func newLoadingView() *loadingView {
	l := &loadingView{bar: widget.NewProgressBarInfinite(), label: widget.NewLabel("")}
	l.label.Alignment = fyne.TextAlignCenter
	l.bar.Stop()
	l.box = container.NewCenter(container.NewVBox(l.label, container.NewGridWrap(fyne.NewSize(240, l.bar.MinSize().Height), l.bar)))
	l.box.Hide()
	return l
}

// ShowLoading shows text ("Loading S3…") and a moving bar in place of the
// transcript until the session arrives (SetSession, SetSessionTail, Clear
// or HideLoading).
func (t *Transcript) ShowLoading(text string) {
	t.loading.label.SetText(text)
	t.empty.Hide()
	t.body.Hide()
	t.loading.bar.Start()
	t.loading.box.Show()
}

// HideLoading takes the loading indicator away (a load that failed: the
// transcript shown before stays).
func (t *Transcript) HideLoading() {
	if !t.loading.box.Visible() {
		return
	}
	t.loading.bar.Stop()
	t.loading.box.Hide()
	t.body.Show()
	if t.session.ID == 0 {
		t.empty.Show()
	}
}

// Loading reports whether the loading indicator is shown.
func (t *Transcript) Loading() bool { return t.loading.box.Visible() }

// showEarlierLoading shows, in the earlier bar, that earlier events are
// loading; showEarlierBar ends it.
func (t *Transcript) showEarlierLoading(all bool) {
	what := "Loading earlier events…"
	if all {
		what = "Loading all earlier events…"
	}
	t.earlierLabel.SetText(what)
	t.earlierProgress.Start()
	t.earlierProgress.Show()
}

// hideEarlierLoading hides the earlier bar's progress.
func (t *Transcript) hideEarlierLoading() {
	t.earlierProgress.Stop()
	t.earlierProgress.Hide()
}
