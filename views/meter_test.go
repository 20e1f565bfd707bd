package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

func TestMeterLevels(t *testing.T) {
	test.NewTempApp(t)
	tests := []struct {
		chars   int64
		pct     string
		color   fyne.ThemeColorName
		numbers string
	}{
		{0, "0%", theme.ColorNameSuccess, "0 / 400,000"},
		{239_600, "60%", theme.ColorNameSuccess, "239,600 / 400,000"}, // 59.9 %
		{240_000, "60%", theme.ColorNameWarning, "240,000 / 400,000"},
		{359_600, "90%", theme.ColorNameWarning, "359,600 / 400,000"}, // 89.9 %
		{360_000, "90%", theme.ColorNameError, "360,000 / 400,000"},
		{400_000, "100%", theme.ColorNameError, "400,000 / 400,000"},
		{1_234_567, "100%", theme.ColorNameError, "1,234,567 / 400,000"},
	}
	m := NewMeter()
	w := test.NewTempWindow(t, m)
	w.Resize(fyne.NewSize(600, 50))
	for _, tt := range tests {
		m.Set(tt.chars)
		if m.ColorName() != tt.color || m.fill.FillColor != withAlpha(theme.Color(tt.color), meterFillAlpha) {
			t.Errorf("Set(%d): colour %s (fill %v), want %s", tt.chars, m.ColorName(), m.fill.FillColor, tt.color)
		}
		if m.pct.Text != tt.pct {
			t.Errorf("Set(%d): percentage %q, want %q", tt.chars, m.pct.Text, tt.pct)
		}
		want := tt.numbers + " characters since the last compaction"
		if m.Text() != want || m.text.Text != want || m.tip.tipText() != want {
			t.Errorf("Set(%d): text %q, label %q, tip %q, want %q", tt.chars, m.Text(), m.text.Text, m.tip.tipText(), want)
		}
		if fill, wantW := m.fill.Size().Width, float32(meterBarWidth*min(tt.chars, 400_000))/400_000; fill != wantW {
			t.Errorf("Set(%d): fill width %v, want %v", tt.chars, fill, wantW)
		}
	}
}

func TestMeterMarkup(t *testing.T) {
	test.NewTempApp(t)
	m := NewMeter()
	m.Set(123_456)
	w := test.NewTempWindow(t, m)
	w.Resize(fyne.NewSize(520, 44))
	test.AssertRendersToMarkup(t, "meter.xml", w.Canvas())
}
