package views

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

// sidebarWidth is the sidebar's minimum (and initial) width.
const sidebarWidth = 300

// MainView is the main window's content: the sidebar on the left, and on
// the right a header (session title and context meter) above the
// transcript.
type MainView struct {
	sidebar    *Sidebar
	transcript *Transcript
	meter      *Meter
	title      *widget.Label
	header     *fyne.Container
	root       fyne.CanvasObject
}

// NewMainView builds the main view; its widgets send intents to a.
func NewMainView(a Actions) *MainView {
	m := &MainView{
		sidebar:    NewSidebar(a),
		transcript: NewTranscript(a),
		meter:      NewMeter(),
		title:      widget.NewLabel(""),
	}
	m.title.TextStyle.Bold = true
	m.title.Truncation = fyne.TextTruncateEllipsis
	m.header = container.NewBorder(nil, widget.NewSeparator(), nil, m.meter, m.title)
	right := container.NewBorder(m.header, nil, nil, nil, m.transcript.Content())
	left := container.New(&minWidthLayout{width: sidebarWidth}, m.sidebar.Content())
	split := container.NewHSplit(left, right)
	split.Offset = 0 // the sidebar starts at its minimum width
	m.root = split
	m.ClearSession()
	return m
}

// Content returns the view's canvas object, for Window.SetContent.
func (m *MainView) Content() fyne.CanvasObject { return m.root }

// Sidebar returns the session list.
func (m *MainView) Sidebar() *Sidebar { return m.sidebar }

// Transcript returns the transcript of the session shown.
func (m *MainView) Transcript() *Transcript { return m.transcript }

// Meter returns the context meter of the session shown.
func (m *MainView) Meter() *Meter { return m.meter }

// ShowSession shows session ref: its name in the header, its context use
// in the meter, its events in the transcript; the sidebar selects its row
// without sending SelectSession.
func (m *MainView) ShowSession(ref SessionRef, s store.Session, events []store.StoredEvent, compactions []store.Compaction) {
	m.sidebar.Select(ref)
	m.title.SetText(s.DisplayName() + " · " + s.Worktree)
	m.meter.Set(s.CharsSinceCompaction)
	m.meter.Show()
	m.header.Refresh()
	m.transcript.SetSession(s, events, compactions)
}

// ClearSession shows no session (e.g. after the shown one was deleted).
func (m *MainView) ClearSession() {
	m.title.SetText("Lazuli")
	m.meter.Set(0)
	m.meter.Hide()
	m.header.Refresh()
	m.transcript.Clear()
}

// BindShortcuts registers the views' keyboard shortcuts (Ctrl+F: find in
// the session) on the window's canvas.
func (m *MainView) BindShortcuts(c fyne.Canvas) {
	for _, s := range m.transcript.Shortcuts() {
		c.AddShortcut(s, func(s fyne.Shortcut) { m.transcript.HandleShortcut(s) })
	}
}

// minWidthLayout fills the container with its objects and asks for at
// least width.
type minWidthLayout struct {
	width float32
}

func (l *minWidthLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (l *minWidthLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	m := fyne.NewSize(l.width, 0)
	for _, o := range objects {
		m = m.Max(o.MinSize())
	}
	return m
}
