// Package assets embeds Lazuli's static resources, such as the application icon.
//
// icon.png is rendered from icon.svg; after editing the SVG run `make icon`
// (rsvg-convert -w 512 -h 512) and commit both files.
package assets

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

//go:embed icon.png
var iconPNG []byte

// Icon is the 512x512 PNG application icon (a lapis lazuli gem), for
// fyne.App.SetIcon and fyne.Window.SetIcon.
var Icon = fyne.NewStaticResource("icon.png", iconPNG)

//go:embed fonts/LazuliSymbols-Regular.ttf
var symbolsRegular []byte

//go:embed fonts/LazuliSymbols-Bold.ttf
var symbolsBold []byte

// SymbolsRegular and SymbolsBold are the "Lazuli Symbols" faces: DejaVu Sans's
// arrows, box drawing, check marks, geometric and technical symbols that Noto
// Sans lacks, plus a space, with Noto Sans's metrics. The theme puts them in
// front of Fyne's text fonts (see scripts/symbol-font.py for why and how they
// are built; licence in fonts/LICENSE-DejaVu.txt).
var (
	SymbolsRegular = fyne.NewStaticResource("LazuliSymbols-Regular.ttf", symbolsRegular)
	SymbolsBold    = fyne.NewStaticResource("LazuliSymbols-Bold.ttf", symbolsBold)
)
