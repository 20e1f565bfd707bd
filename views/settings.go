package views

import (
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// settingsHelp explains where an empty path leads. The app resolves each
// CLI as: environment variable, else this setting, else the command on PATH.
const settingsHelp = "Leave a path empty to run the agent's command found on PATH.\n" +
	"Its environment variable (shown in the field), when set,\n" +
	"wins over the path."

// settingsWidth is the agent settings dialog's width.
const settingsWidth = 620

// settingsMaxFormHeight is the tallest the list of paths gets before it
// scrolls.
const settingsMaxFormHeight = 460

// agentSettings is the form of the agent settings dialog.
type agentSettings struct {
	w        fyne.Window
	backends []AgentBackend
	entries  []*widget.Entry // one per backend, in its order
	history  *widget.Check
}

// historyLabel and historyHelp are the history switch and what it does.
const (
	historyLabel = "Let agents search this project's history"
	historyHelp  = "Runs started here get Lazuli's read-only history server (lazuli mcp) in their\n" +
		"MCP configuration: they can search and read this project's earlier sessions."
)

// ShowAgentSettings shows a dialog over w to edit cur: the path of each
// backend's executable, each with a Browse… button and the detected
// version or error from status, and the project's switch that lets agents
// search its history. Save (or Enter in a path) calls save with the
// trimmed paths and the switch; Cancel calls nothing.
func ShowAgentSettings(w fyne.Window, backends []AgentBackend, cur AgentSettings, status []BackendStatus, save func(AgentSettings)) {
	s := &agentSettings{w: w, backends: backends, history: widget.NewCheck(historyLabel, nil)}
	s.history.SetChecked(cur.ShareHistory)
	form := widget.NewForm()
	for _, b := range backends {
		e := widget.NewEntry()
		e.SetText(cur.Paths[b.Name])
		e.SetPlaceHolder(b.Command + " (" + b.EnvVar + " or PATH)")
		s.entries = append(s.entries, e)
		form.Append(b.Title, s.pathRow(e, status, b.Name))
	}
	help := newStatusText()
	setStatusText(help, settingsHelp, theme.ColorNamePlaceHolder)
	var body fyne.CanvasObject = form
	if form.MinSize().Height > settingsMaxFormHeight {
		scroll := container.NewVScroll(form)
		scroll.SetMinSize(fyne.NewSize(0, settingsMaxFormHeight))
		body = scroll
	}
	historyNote := newStatusText()
	setStatusText(historyNote, historyHelp, theme.ColorNamePlaceHolder)
	content := container.NewBorder(help, container.NewVBox(widget.NewSeparator(), s.history, historyNote), nil, nil, body)
	d := dialog.NewCustomConfirm("Agent settings", "Save", "Cancel", content, func(ok bool) {
		if ok {
			save(s.value())
		}
	}, w)
	for _, e := range s.entries {
		e.OnSubmitted = func(string) { d.Confirm() }
	}
	d.Resize(fyne.NewSize(settingsWidth, d.MinSize().Height))
	d.Show()
	if len(s.entries) > 0 {
		w.Canvas().Focus(s.entries[0])
	}
}

// value returns the settings as entered; an empty path is left out.
func (s *agentSettings) value() AgentSettings {
	out := AgentSettings{Paths: map[string]string{}, ShareHistory: s.history.Checked}
	for i, b := range s.backends {
		if p := strings.TrimSpace(s.entries[i].Text); p != "" {
			out.Paths[b.Name] = p
		}
	}
	return out
}

// pathRow is entry with its Browse… button, above the status of backend.
func (s *agentSettings) pathRow(entry *widget.Entry, status []BackendStatus, backend string) fyne.CanvasObject {
	b, found := backendNamed(status, backend)
	browse := widget.NewButtonWithIcon("Browse…", theme.FolderOpenIcon(), func() { s.browse(entry) })
	row := container.NewBorder(nil, nil, nil, browse, entry)
	line := newStatusText()
	line.Truncation = fyne.TextTruncateEllipsis
	switch {
	case !found:
		setStatusText(line, "Not checked yet", theme.ColorNamePlaceHolder)
	case b.Err != "":
		setStatusText(line, settingsStatus(b), theme.ColorNameError)
	default:
		setStatusText(line, settingsStatus(b), theme.ColorNameSuccess)
	}
	return container.NewVBox(row, line)
}

// settingsStatus is the status line of b in the dialog: "In use: claude
// 2.1.328 at /usr/bin/claude", or "codex not found". It describes the
// settings saved, not the paths being edited.
func settingsStatus(b BackendStatus) string {
	text := b.Backend + " " + b.Err
	if b.Err == "" {
		text = "In use: " + strings.TrimSpace(b.Backend+" "+b.Version)
	}
	if b.Path != "" {
		text += " at " + b.Path
	}
	return text
}

// backendNamed returns the status of backend in status.
func backendNamed(status []BackendStatus, backend string) (BackendStatus, bool) {
	for _, b := range status {
		if b.Backend == backend {
			return b, true
		}
	}
	return BackendStatus{}, false
}

// browse lets the user pick an executable for entry, starting in the
// folder of the path entered.
func (s *agentSettings) browse(entry *widget.Entry) {
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil {
			fyne.LogError("choose agent executable", err)
			dialog.ShowError(err, s.w)
			return
		}
		if r == nil {
			return // cancelled
		}
		entry.SetText(r.URI().Path())
		if err := r.Close(); err != nil {
			fyne.LogError("close agent executable", err)
		}
	}, s.w)
	if p := strings.TrimSpace(entry.Text); filepath.IsAbs(p) {
		if dir, err := storage.ListerForURI(storage.NewFileURI(filepath.Dir(p))); err == nil {
			d.SetLocation(dir)
		}
	}
	d.Show()
}
