package views

import (
	"image/color"
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// variantTheme is Theme fixed to one variant.
type variantTheme struct {
	Theme
	v fyne.ThemeVariant
}

func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.v)
}

// luminance is the WCAG 2 relative luminance of c.
func luminance(c color.Color) float64 {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	lin := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.03928 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(n.R) + 0.7152*lin(n.G) + 0.0722*lin(n.B)
}

// contrast is the WCAG 2 contrast ratio of two opaque colours.
func contrast(a, b color.Color) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// drawnColor returns the colour of the first text under o that contains s.
func drawnColor(t *testing.T, o fyne.CanvasObject, s string) color.Color {
	t.Helper()
	for _, txt := range objectsOf[*canvas.Text](o) {
		if txt.Visible() && strings.Contains(txt.Text, s) {
			return txt.Color
		}
	}
	t.Fatalf("no text %q is drawn", s)
	return nil
}

// TestTextContrast checks that the secondary texts a user must read, drawn
// with Lazuli's theme, meet WCAG AA (4.5:1) against the background they sit
// on, in the light and the dark variant.
func TestTextContrast(t *testing.T) {
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		th := variantTheme{v: v}
		bg := th.Color(theme.ColorNameBackground, v)
		overlay := th.Color(theme.ColorNameOverlayBackground, v)
		check := func(what string, fg, bg color.Color) {
			if r := contrast(fg, bg); r < 4.5 {
				t.Errorf("variant %d: %s: contrast %.2f:1 (%v on %v), want at least 4.5:1", v, what, r, fg, bg)
			}
		}

		tr, w, q := newTestTranscript(t, fyne.NewSize(700, 400))
		test.ApplyTheme(t, th)
		check("No session selected", drawnColor(t, tr.Content(), "No session selected"), bg)
		tr.SetSessionTail(store.Session{ID: 1}, stored(codec.UserMessage("hi"), codec.Complete(true, 1500, 0)), nil, 1998)
		q.drain()
		check("the earlier bar", drawnColor(t, tr.Content(), "Showing the newest"), bg)
		check("a success title", drawnColor(t, tr.Content(), "✓"), bg)
		tr.find.Show()
		tr.find.entry.SetText("nothing like it")
		check("the find count", drawnColor(t, tr.Content(), "No matches"), bg)
		_ = w

		p, _, w := newTestSearchPanel(t)
		test.ApplyTheme(t, th)
		p.SetIndexing("Indexing… 45%")
		check("a search note", drawnColor(t, w.Canvas().Overlays().Top(), "Indexing"), overlay)

		_, _, w = showTestNativeImport(t)
		test.ApplyTheme(t, th)
		top := w.Canvas().Overlays().Top()
		check("import metadata", drawnColor(t, top, "17.0 KiB"), overlay)
		check("a new import (success)", drawnColor(t, top, "new lines"), overlay)
	}
}

// TestThemeTextColours checks every colour Lazuli draws text in against
// every background that text can sit on, in both variants.
func TestThemeTextColours(t *testing.T) {
	texts := []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNameDisabled, theme.ColorNamePlaceHolder,
		theme.ColorNamePrimary, theme.ColorNameSuccess, theme.ColorNameError, theme.ColorNameWarning}
	backs := []fyne.ThemeColorName{theme.ColorNameBackground, theme.ColorNameOverlayBackground,
		theme.ColorNameHeaderBackground, theme.ColorNameInputBackground, theme.ColorNameMenuBackground}
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		for _, fg := range texts {
			for _, bg := range backs {
				f, b := Theme{}.Color(fg, v), Theme{}.Color(bg, v)
				if r := contrast(f, b); r < 4.5 {
					t.Errorf("variant %d: %s on %s: %.2f:1, want at least 4.5:1", v, fg, bg, r)
				}
			}
		}
	}
}

// TestThemeOnColours checks the text on filled buttons and badges.
func TestThemeOnColours(t *testing.T) {
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		for on, fill := range map[fyne.ThemeColorName]fyne.ThemeColorName{
			theme.ColorNameForegroundOnPrimary: theme.ColorNamePrimary,
			theme.ColorNameForegroundOnError:   theme.ColorNameError,
		} {
			if r := contrast(Theme{}.Color(on, v), Theme{}.Color(fill, v)); r < 4.5 {
				t.Errorf("variant %d: %s on %s: %.2f:1, want at least 4.5:1", v, on, fill, r)
			}
		}
	}
}

// over is fg (possibly translucent) drawn over the opaque bg.
func over(fg, bg color.Color) color.Color {
	f := color.NRGBAModel.Convert(fg).(color.NRGBA)
	b := color.NRGBAModel.Convert(bg).(color.NRGBA)
	mix := func(x, y uint8) uint8 { return uint8((int(x)*int(f.A) + int(y)*(255-int(f.A)) + 127) / 255) }
	return color.NRGBA{R: mix(f.R, b.R), G: mix(f.G, b.G), B: mix(f.B, b.B), A: 0xff}
}

// TestMeterPercentReadable: the meter's percentage stays readable over the
// bar's fill, green, orange or red, in both variants.
func TestMeterPercentReadable(t *testing.T) {
	for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
		test.NewTempApp(t)
		test.ApplyTheme(t, variantTheme{v: v})
		m := NewMeter()
		w := test.NewTempWindow(t, m)
		w.Resize(fyne.NewSize(500, 40))
		for _, chars := range []int64{store.CompactionThreshold / 3, store.CompactionThreshold * 3 / 4, store.CompactionThreshold} {
			m.Set(chars)
			bg := over(m.fill.FillColor, m.track.FillColor)
			if r := contrast(m.pct.Color, bg); r < 4.5 {
				t.Errorf("variant %d, %s: %q on the fill: %.2f:1, want at least 4.5:1", v, m.ColorName(), m.pct.Text, r)
			}
		}
	}
}
