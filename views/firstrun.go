package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/display"
)

// FirstRun is what the window offers a project that has no session yet,
// over the empty transcript.
type FirstRun struct {
	Project string // the project's name
	// Native is the number of this project's sessions found in the agents'
	// own history, not imported yet; -1 while counting.
	Native int
	// NativeNote says why there are none to import, e.g. "No agent session
	// ran in this project's folders."; "" when Native > 0.
	NativeNote string
}

// FirstRunActions are the intents of the first-run panel.
type FirstRunActions interface {
	// ImportNativeHistory opens the Import native history dialog.
	ImportNativeHistory()
	// ImportTranscriptFile asks for a transcript file to import.
	ImportTranscriptFile()
	// StartSession starts a new session in the window's worktree (Ctrl+N).
	StartSession()
}

// firstRunPanel shows a FirstRun.
type firstRunPanel struct {
	title  *widget.Label
	native *widget.Button
	note   *widget.Label
	file   *widget.Button
	start  *widget.Button
	root   *fyne.Container
}

func newFirstRunPanel(a FirstRunActions) *firstRunPanel {
	p := &firstRunPanel{title: widget.NewLabel(""), note: widget.NewLabel("")}
	p.title.TextStyle.Bold = true
	p.title.Alignment = fyne.TextAlignCenter
	p.note.Alignment = fyne.TextAlignCenter
	p.note.Wrapping = fyne.TextWrapWord
	p.native = widget.NewButtonWithIcon("", theme.HistoryIcon(), a.ImportNativeHistory)
	p.native.Importance = widget.HighImportance
	p.file = widget.NewButtonWithIcon("Import a transcript file… (Ctrl+I)", theme.FolderOpenIcon(), a.ImportTranscriptFile)
	p.start = widget.NewButtonWithIcon("Start a session (Ctrl+N)", theme.ContentAddIcon(), a.StartSession)
	intro := widget.NewLabel("Bring in what the agents already did here, or start a new session.")
	intro.Alignment = fyne.TextAlignCenter
	intro.Wrapping = fyne.TextWrapWord
	box := container.NewVBox(p.title, intro, p.native, p.note, p.file, p.start)
	p.root = container.NewCenter(container.New(&minWidthLayout{width: 420}, box))
	return p
}

// set shows fr.
func (p *firstRunPanel) set(fr FirstRun) {
	p.title.SetText("No sessions in " + fr.Project + " yet")
	switch {
	case fr.Native < 0:
		p.native.SetText("Looking for your agents' history…")
		p.native.Disable()
	case fr.Native == 0:
		p.native.SetText("Import your agents' history…")
		p.native.Disable()
	default:
		p.native.SetText("Import " + display.Plural(fr.Native, "session") + " from your agents' history…")
		p.native.Enable()
	}
	p.note.SetText(fr.NativeNote)
	p.note.Hidden = fr.NativeNote == ""
}

// ShowFirstRun shows fr over the empty transcript, its buttons sending
// their intents to a; nil hides it. A read-only window shows none.
func (m *MainView) ShowFirstRun(fr *FirstRun, a FirstRunActions) {
	if fr == nil || m.readOnly {
		if m.firstRun != nil {
			m.firstRun.root.Hide()
			m.transcript.emptyHidden(false)
		}
		return
	}
	if m.firstRun == nil {
		m.firstRun = newFirstRunPanel(a)
		m.center.Add(m.firstRun.root)
	}
	m.firstRun.set(*fr)
	m.firstRun.root.Show()
	m.transcript.emptyHidden(true)
	m.center.Refresh()
}

// FirstRunShown reports whether the first-run panel is shown.
func (m *MainView) FirstRunShown() bool { return m.firstRun != nil && m.firstRun.root.Visible() }
