package views

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// teamSettingsHelp explains the team database setting.
const teamSettingsHelp = "The team's PostgreSQL database (docs/team.md): a postgres:// URL or a host=… dbname=… string. " +
	"Keep the password in ~/.pgpass: a password in the URL is used for this session and not saved. Empty turns the Team source off."

// teamSettings is the team database dialog's content.
type teamSettings struct {
	url *widget.Entry
}

func newTeamSettings(cur string) *teamSettings {
	s := &teamSettings{url: widget.NewEntry()}
	s.url.SetText(cur)
	s.url.SetPlaceHolder("postgres://you@db.example.com/lazuli?sslmode=verify-full")
	return s
}

// value returns the URL as entered, trimmed.
func (s *teamSettings) value() string { return strings.TrimSpace(s.url.Text) }

// ShowTeamSettings shows a dialog over w to edit the team database URL
// cur. Save (or Enter) calls save with the trimmed URL ("" turns the Team
// source off); Cancel calls nothing.
func ShowTeamSettings(w fyne.Window, cur string, save func(url string)) {
	s := newTeamSettings(cur)
	help := newStatusText()
	setStatusText(help, teamSettingsHelp, theme.ColorNamePlaceHolder)
	content := container.NewVBox(help, widget.NewForm(widget.NewFormItem("Database", s.url)))
	d := dialog.NewCustomConfirm("Team database", "Save", "Cancel", content, func(ok bool) {
		if ok {
			save(s.value())
		}
	}, w)
	s.url.OnSubmitted = func(string) { d.Confirm() }
	d.Resize(fyne.NewSize(settingsWidth, d.MinSize().Height))
	d.Show()
	w.Canvas().Focus(s.url)
}
