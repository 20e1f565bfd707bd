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
