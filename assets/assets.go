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
