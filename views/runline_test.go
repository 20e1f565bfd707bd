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

// A line of runs is as high as a one-line label, puts its runs one after
// the other on one baseline, and cuts the run that crosses its edge with
// "…" inside the width, showing none after it.
func TestRunLine(t *testing.T) {
	test.NewTempApp(t)
	fyne.CurrentApp().Settings().SetTheme(Theme{})
	l := newRunLine()
	l.Set([]textRun{
		{Text: "Refactor the store", Style: fyne.TextStyle{Bold: true}},
		{Text: "  main · 2h ago · tool call", Color: theme.ColorNamePlaceHolder, Size: theme.SizeNameCaptionText},
		{Text: " and a third run"},
	})
	if got := l.String(); got != "Refactor the store  main · 2h ago · tool call and a third run" {
		t.Errorf("String() = %q", got)
	}
	if got, want := l.MinSize().Height, widget.NewLabel("x").MinSize().Height; got != want {
		t.Errorf("height %v, a label's %v", got, want)
	}
	pad := theme.Size(theme.SizeNameInnerPadding)
	texts := func() []*canvas.Text {
		var out []*canvas.Text
		for _, o := range test.TempWidgetRenderer(t, l).Objects() {
			out = append(out, o.(*canvas.Text))
		}
		return out
	}
	d := fyne.CurrentApp().Driver()
	for _, width := range []float32{1000, 260, 120, 30} {
		l.Resize(fyne.NewSize(width, l.MinSize().Height))
		ts := texts()
		var baseline float32
		cut := false
		for i, o := range ts {
			if cut {
				if o.Visible() {
					t.Errorf("at %v: run %d shown after a cut run", width, i)
				}
				continue
			}
			if !o.Visible() {
				cut = true
				continue
			}
			if right := o.Position().X + o.MinSize().Width; right > width-pad+0.5 {
				t.Errorf("at %v: run %d %q ends at %v, past the width", width, i, o.Text, right)
			}
			if i > 0 && o.Position().X < ts[i-1].Position().X+ts[i-1].MinSize().Width-0.5 {
				t.Errorf("at %v: run %d overlaps the run before it", width, i)
			}
			_, base := d.RenderedTextSize("M", o.TextSize, o.TextStyle, nil)
			if b := o.Position().Y + base; i > 0 && (b-baseline > 0.5 || baseline-b > 0.5) {
				t.Errorf("at %v: run %d's baseline at %v, the first run's at %v", width, i, b, baseline)
			} else if i == 0 {
				baseline = b
			}
			if full := l.runs[i].Text; o.Text != full {
				cut = true
				if !strings.HasSuffix(o.Text, "…") || !strings.HasPrefix(full, strings.TrimSuffix(o.Text, "…")) {
					t.Errorf("at %v: run %d shows %q", width, i, o.Text)
				}
			}
		}
		if width == 1000 && cut {
			t.Error("the runs were cut at 1000 px")
		}
		if width <= 260 && !cut {
			t.Errorf("the runs were not cut at %v px", width)
		}
	}
}
