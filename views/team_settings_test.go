package views

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

// TestTeamSettingsSavesTrimmedURL edits the team database URL in its
// dialog: Enter saves it trimmed.
func TestTeamSettingsSavesTrimmedURL(t *testing.T) {
	test.NewTempApp(t)
	w := test.NewTempWindow(t, widget.NewLabel(""))
	w.Resize(fyne.NewSize(800, 600))
	var saved []string
	ShowTeamSettings(w, "postgres://old@h/db", func(u string) { saved = append(saved, u) })
	e, ok := w.Canvas().Focused().(*widget.Entry)
	if !ok || e.Text != "postgres://old@h/db" {
		t.Fatalf("focused %T, want the URL entry with the current URL", w.Canvas().Focused())
	}
	e.SetText("  postgres://ana@db/lazuli?sslmode=require  ")
	e.OnSubmitted(e.Text)
	if len(saved) != 1 || saved[0] != "postgres://ana@db/lazuli?sslmode=require" {
		t.Fatalf("saved %q", saved)
	}
}
