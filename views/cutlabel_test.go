package views

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// TestCutLabelLaysOutAsLabel checks cutLabel against the truncated Label
// it replaced, monospace (a card header's detail) and proportional (a
// session's name): the same height for one line and several, each line
// placed where the label placed it, and each line cut with "…" inside the
// width given.
func TestCutLabelLaysOutAsLabel(t *testing.T) {
	test.NewTempApp(t)
	fyne.CurrentApp().Settings().SetTheme(Theme{})
	for _, style := range []fyne.TextStyle{{Monospace: true}, {}} {
		for _, text := range []string{
			"/src/greet.go",
			"go test ./...\ngo vet ./...\nstaticcheck ./...",
			"printf 'héllo wörld — 日本語のテキスト' | wc -c",
			"Fix the login page's redirect loop after a session expires",
		} {
			checkCutLabel(t, style, text)
		}
	}
}

func checkCutLabel(t *testing.T, style fyne.TextStyle, text string) {
	t.Helper()
	{
		label := widget.NewLabel(text)
		label.Truncation = fyne.TextTruncateEllipsis
		label.TextStyle = style
		d := newCutLabel(style)
		d.SetText(text)
		if got, want := d.MinSize().Height, label.MinSize().Height; got != want {
			t.Errorf("%q: height %v, the label's %v", text, got, want)
		}
		for _, width := range []float32{900, 160, 60} {
			d.Resize(fyne.NewSize(width, d.MinSize().Height))
			label.Resize(fyne.NewSize(width, label.MinSize().Height))
			lines := detailLines(t, d)
			if len(lines) != strings.Count(text, "\n")+1 {
				t.Fatalf("%q at %v: %d lines", text, width, len(lines))
			}
			want := labelTexts(t, label)
			for i, o := range lines {
				if o.Position().Y != want[i].Position().Y || o.Position().X != want[i].Position().X {
					t.Errorf("%q at %v: line %d at %v, the label's at %v", text, width, i, o.Position(), want[i].Position())
				}
				if right := o.Position().X + o.MinSize().Width; right > width-theme.Size(theme.SizeNameInnerPadding)+0.5 {
					t.Errorf("%q at %v: line %d %q ends at %v, past the width", text, width, i, o.Text, right)
				}
				full := strings.Split(text, "\n")[i]
				if o.Text != full && (!strings.HasSuffix(o.Text, "…") || !strings.HasPrefix(full, strings.TrimSuffix(o.Text, "…"))) {
					t.Errorf("%q at %v: line %d shows %q", text, width, i, o.Text)
				}
			}
			if width == 900 && lines[0].Text != strings.Split(text, "\n")[0] {
				t.Errorf("%q: cut at 900 px: %q", text, lines[0].Text)
			}
			if width == 60 && !strings.HasSuffix(lines[0].Text, "…") {
				t.Errorf("%q: not cut at 60 px: %q", text, lines[0].Text)
			}
		}
	}
}

// TestCutLabelFollowsTheme checks that a theme change recolours the
// lines.
func TestCutLabelFollowsTheme(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(Theme{})
	d := newHeaderDetail()
	d.SetText("ls -la")
	w := test.NewTempWindow(t, d)
	w.Resize(fyne.NewSize(300, 60))
	before := detailLines(t, d)[0].Color
	a.Settings().SetTheme(test.NewTheme())
	d.Refresh()
	if after := detailLines(t, d)[0].Color; after == before {
		t.Errorf("the colour stayed %v after a theme change", after)
	}
}

func detailLines(t *testing.T, d *cutLabel) []*canvas.Text {
	var out []*canvas.Text
	for _, o := range test.TempWidgetRenderer(t, d).Objects() {
		out = append(out, o.(*canvas.Text))
	}
	return out
}

func labelTexts(t *testing.T, l *widget.Label) []*canvas.Text {
	var out []*canvas.Text
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch v := o.(type) {
		case *canvas.Text:
			out = append(out, v)
		case fyne.Widget:
			for _, c := range test.TempWidgetRenderer(t, v).Objects() {
				walk(c)
			}
		}
	}
	walk(l)
	return out
}
