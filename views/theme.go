package views

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"

	"github.com/lazuli-app/lazuli/assets"
)

// Theme is Lazuli's theme: Fyne's default theme with two changes.
//
// Fonts: proportional text puts the "Lazuli Symbols" face in front of Fyne's
// Noto Sans. Fyne shapes text in runs of one face and never starts a run at a
// space, so "→ " was shaped in Fyne's InterSymbols face, which has no space,
// and drew as "→�". The symbol face has the arrows, box drawing and check
// marks agents print and a space, with Noto Sans's metrics; everything else
// still falls through to Noto Sans, the emoji face and the system's fonts.
//
// Colours: every text a user must read meets WCAG AA (4.5:1) against the
// backgrounds it is drawn on, in both variants. Fyne's disabled colour, which
// low-importance labels use, is about 1.5:1; its light placeholder, error,
// success and warning colours are 1.5–3.7:1, its primary 3.3–4.5:1 (dark
// text on the lighter dark-variant primary keeps filled buttons readable).
type Theme struct{}

var _ fyne.Theme = Theme{}

// Readable colours, replacing Fyne's where those fall below 4.5:1.
var (
	lightDisabled    = color.NRGBA{R: 0x6e, G: 0x6e, B: 0x6e, A: 0xff}
	lightPlaceholder = color.NRGBA{R: 0x65, G: 0x65, B: 0x65, A: 0xff}
	lightSuccess     = color.NRGBA{R: 0x1b, G: 0x7a, B: 0x31, A: 0xff}
	lightError       = color.NRGBA{R: 0xc6, G: 0x28, B: 0x28, A: 0xff}
	lightWarning     = color.NRGBA{R: 0x9a, G: 0x55, B: 0x00, A: 0xff}
	lightPrimary     = color.NRGBA{R: 0x1d, G: 0x5b, B: 0xd1, A: 0xff}
	darkDisabled     = color.NRGBA{R: 0x96, G: 0x96, B: 0x96, A: 0xff}
	darkPrimary      = color.NRGBA{R: 0x72, G: 0xa0, B: 0xff, A: 0xff}
	darkOnPrimary    = color.NRGBA{R: 0x10, G: 0x11, B: 0x14, A: 0xff}
	darkError        = color.NRGBA{R: 0xff, G: 0x6b, B: 0x5e, A: 0xff}
)

// Color returns Fyne's default colour, or a readable replacement.
func (Theme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if v == theme.VariantLight {
		switch n {
		case theme.ColorNameDisabled:
			return lightDisabled
		case theme.ColorNamePlaceHolder:
			return lightPlaceholder
		case theme.ColorNameSuccess:
			return lightSuccess
		case theme.ColorNameError:
			return lightError
		case theme.ColorNameWarning:
			return lightWarning
		case theme.ColorNamePrimary:
			return lightPrimary
		}
	} else {
		switch n {
		case theme.ColorNameDisabled:
			return darkDisabled
		case theme.ColorNameError:
			return darkError
		case theme.ColorNamePrimary:
			return darkPrimary
		case theme.ColorNameForegroundOnPrimary:
			return darkOnPrimary
		}
	}
	return theme.DefaultTheme().Color(n, v)
}

// Font returns the symbol face for proportional text (Fyne then falls back to
// its Noto Sans of the same style), and Fyne's fonts otherwise.
func (Theme) Font(s fyne.TextStyle) fyne.Resource {
	switch {
	case s.Monospace || s.Symbol:
		return theme.DefaultTheme().Font(s)
	case s.Bold:
		return assets.SymbolsBold
	}
	return assets.SymbolsRegular
}

// Icon returns Fyne's default icon.
func (Theme) Icon(n fyne.ThemeIconName) fyne.Resource { return theme.DefaultTheme().Icon(n) }

// Size returns Fyne's default size, the gap between Markdown blocks
// (sizeNameBlockGap), and no blur behind modal panels.
//
// Fyne blurs the whole window behind a modal pop-up (Ctrl+K, dialogs) by
// copying the frame and filtering it twice, in every frame the pop-up is
// open: with a software renderer (Mesa's llvmpipe, as in a VM, a remote
// desktop or Xvfb) a frame with the Ctrl+K panel cost 240-300 ms of CPU
// against 30-50 ms without it, for a blur of 1.5 px that the dimmed
// backdrop already hides.
func (Theme) Size(n fyne.ThemeSizeName) float32 {
	switch n {
	case sizeNameBlockGap:
		return blockGap
	case theme.SizeNameModalBlurRadius:
		return 0
	}
	return theme.DefaultTheme().Size(n)
}
