package app

import (
	"testing"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/views"
)

func TestClampToScreen(t *testing.T) {
	small := fyne.NewSize(1280/1.5, 800/1.5) // FYNE_SCALE 1.5 on 1280x800
	for _, tc := range []struct{ want, screen, got fyne.Size }{
		{fyne.NewSize(1180, 760), small, fyne.NewSize(small.Width*screenShare, small.Height*screenShare)},
		{fyne.NewSize(1180, 760), fyne.NewSize(1920, 1080), fyne.NewSize(1180, 760)},
		{fyne.NewSize(1180, 760), fyne.NewSize(600, 400), views.MinWindowSize},
	} {
		if got := clampToScreen(tc.want, tc.screen); got != tc.got {
			t.Errorf("clampToScreen(%v, %v) = %v, want %v", tc.want, tc.screen, got, tc.got)
		}
	}
}

func TestRefit(t *testing.T) {
	screen := fyne.NewSize(1024, 768) // Xvfb's default, at scale 1
	fit, ok := refit(fyne.NewSize(1180, 760), screen, 1)
	if !ok || fit != fyne.NewSize(1024*screenShare, 768*screenShare) {
		t.Fatalf("refit(1180x760) = %v, %v", fit, ok)
	}
	// What the canvas had after that resize: rounded to whole pixels.
	if got, ok := refit(fyne.NewSize(973, 730), screen, 1); ok {
		t.Errorf("refit(973x730) = %v, true: a fitted window is fitted again", got)
	}
	if _, ok := refit(fyne.NewSize(975, 730), screen, 1); !ok {
		t.Error("refit(975x730) = false: two pixels too wide is not fitted")
	}
	if _, ok := refit(fyne.NewSize(1180, 760), fyne.NewSize(1920, 1080), 1); ok {
		t.Error("refit on a large screen = true")
	}
}
