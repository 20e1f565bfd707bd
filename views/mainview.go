package views

import (
	"fmt"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

// sidebarWidth is the sidebar's minimum (and initial) width.
const sidebarWidth = 300

// MinWindowSize is the smallest the main window gets: the view asks for it
// as its minimum size, which the window enforces. At this size the header
// shows the title (truncated) and the meter's bar, without overlap.
var MinWindowSize = fyne.NewSize(640, 480)

// teamIdleNote is what the prompt box says under a team session.
const teamIdleNote = "A team session is read-only: lazuli team pull %d copies it into your store to continue it"

// MainView is the main window's content: the sidebar on the left, and on
// the right a header (session title and context meter), a banner hidden
// when empty, the transcript, and the prompt box.
type MainView struct {
	actions    Actions
	sidebar    *Sidebar
	transcript *Transcript
	meter      *Meter
	prompt     *PromptBox
	banner     *banner
	head       *SessionHeader    // title, meter, usage, mode, parent link, ref chips (mainview_header.go)
	forkLink   *widget.Hyperlink // back to a fork's parent (lifecycle.go)
	origin     ForkOrigin
	files      *FilesPanel        // the Files tab: the files of the session shown
	tabs       *container.AppTabs // the transcript and the Files tab
	top        *fyne.Container    // the header and the banner
	right      *fyne.Container    // top, transcript and prompt box
	split      *container.Split   // the sidebar, and right
	root       fyne.CanvasObject
	backdrop   *Backdrop // freezes the window under the Ctrl+K panel

	readOnly    bool            // SetReadOnly (readonly.go)
	readOnlyBar *fyne.Container // the strip saying so, with Close
	firstRun    *firstRunPanel  // shown over the empty transcript (firstrun.go); nil until used
	center      *fyne.Container // the transcript, and the first-run panel over it
}

// NewMainView builds the main view; its widgets send intents to a.
func NewMainView(a Actions) *MainView {
	m := &MainView{
		actions:    a,
		sidebar:    NewSidebar(a),
		transcript: NewTranscript(a),
		meter:      NewMeter(),
		prompt:     NewPromptBox(a),
		banner:     newBanner(),
	}
	m.head = newSessionHeader(a, m.meter, func() SessionRef { return m.transcript.ref })
	m.banner.Hide()
	m.forkLink = newForkLink(m, a)
	m.top = container.NewVBox(m.head.box, m.forkLink, m.banner)
	m.center = container.NewStack(m.transcript.Content())
	m.files = NewFilesPanel(a, false)
	m.tabs = container.NewAppTabs(container.NewTabItem("Transcript", m.center),
		container.NewTabItem("Files", m.files.Content()))
	m.right = container.NewBorder(m.top, m.prompt.Content(), nil, nil, m.tabs)
	m.head.relayout = m.right.Refresh
	left := container.New(&minWidthLayout{width: sidebarWidth}, m.sidebar.Content())
	m.split = container.NewHSplit(left, m.right)
	m.split.Offset = 0 // the sidebar starts at its minimum width
	m.backdrop, m.root = NewBackdrop(container.New(&minSizeLayout{min: MinWindowSize}, withProbe(m.split)...))
	m.ClearSession()
	return m
}

// Content returns the view's canvas object, for Window.SetContent.
func (m *MainView) Content() fyne.CanvasObject { return m.root }

// Backdrop returns what freezes the window under a floating panel.
func (m *MainView) Backdrop() *Backdrop { return m.backdrop }

// Split returns the divider between the sidebar and the session: its
// Offset is where the user left it (the app remembers it).
func (m *MainView) Split() *container.Split { return m.split }

// Sidebar returns the session list.
func (m *MainView) Sidebar() *Sidebar { return m.sidebar }

// Header returns the header over the session shown.
func (m *MainView) Header() *SessionHeader { return m.head }

// Transcript returns the transcript of the session shown.
func (m *MainView) Transcript() *Transcript { return m.transcript }

// Meter returns the context meter of the session shown.
func (m *MainView) Meter() *Meter { return m.meter }

// PromptBox returns the box that continues the session shown.
func (m *MainView) PromptBox() *PromptBox { return m.prompt }

// SetBanner shows text in a warning strip above the transcript, e.g.
// "This session may be compacting…"; "" hides it.
func (m *MainView) SetBanner(text string) {
	m.banner.SetText(text)
	m.right.Refresh()
}

// Banner returns the text of the banner; "" when it is hidden.
func (m *MainView) Banner() string {
	if m.banner.Hidden {
		return ""
	}
	return m.banner.label.Text
}

// ShowSession shows session ref: its name in the header, its context use
// in the meter, its events in the transcript; the sidebar selects its row
// without sending SelectSession. The prompt box is enabled for ref; when
// ref is a different session than the box had, its model menu shows the
// default model until the caller sets the session's model with
// PromptBox().SetSession. A team session (ref.IsTeam) is shown read-only:
// the prompt box is disabled. earlier is how many of the session's events come
// before events and are not loaded (see Transcript.SetSessionTail).
func (m *MainView) ShowSession(ref SessionRef, s store.Session, events []store.StoredEvent, compactions []store.Compaction, earlier int) {
	m.sidebar.Select(ref)
	if ref.IsTeam() { // read-only: pull it to continue it
		m.prompt.SetSession(SessionRef{}, false, "")
		m.prompt.SetIdleNote(fmt.Sprintf(teamIdleNote, ref.ID))
	} else {
		m.prompt.SetIdleNote("")
		if cur, ok := m.prompt.Session(); !ok || cur != ref {
			m.prompt.SetSession(ref, true, "")
		}
	}
	h := m.head
	h.title.SetText(s.DisplayName() + " · " + s.Worktree)
	if h.usageRef != ref {
		h.usage.SetText("")
		h.usage.Hide()
		h.showUsageRow()
	}
	if m.transcript.ref != ref {
		m.files.SetFiles(nil)
		h.setRefs(nil)
		h.parentBox.Hide()
		h.archive.set(false)
	}
	if stored := !ref.IsTeam(); stored != h.stored {
		h.setStored(stored)
		m.right.Refresh() // the header's height changed: lay out what sits below it again
	}
	m.meter.Set(s.CharsSinceCompaction)
	m.meter.Show()
	h.box.Refresh()
	m.transcript.ref = ref
	m.transcript.SetSessionTail(s, events, compactions, earlier)
	m.ShowFirstRun(nil, nil) // a session is shown: the transcript is not empty (a team session in a new project)
}

// ShowNewSession shows a session about to be created in worktree of the
// store at ref.StorePath (ref.ID is 0): nothing is stored until the agent
// of its first prompt has started. The prompt box sends to ref; the app
// shows the stored session (ShowSession) once it exists.
func (m *MainView) ShowNewSession(ref SessionRef, worktree string) {
	m.sidebar.Select(SessionRef{})
	if cur, ok := m.prompt.Session(); !ok || cur != ref {
		m.prompt.SetSession(ref, true, "")
	}
	m.emptyHeader("New session · " + worktree)
	m.transcript.ref = ref
	m.transcript.ShowEmpty("New session in " + worktree + ": type its first prompt below.\nIt is stored once the agent has started.")
	m.ShowFirstRun(nil, nil)
}

// ClearSession shows no session (e.g. after the shown one was deleted) and
// disables the prompt box, clearing its run state and status.
func (m *MainView) ClearSession() {
	m.prompt.SetSession(SessionRef{}, false, "")
	m.prompt.SetRunning(false)
	m.prompt.SetStatus("", false)
	m.emptyHeader("Lazuli")
	m.transcript.Clear()
}

// emptyHeader shows title in a header with no session's usage, fork link,
// parent link or meter.
func (m *MainView) emptyHeader(title string) {
	h := m.head
	h.title.SetText(title)
	h.usage.SetText("")
	h.usage.Hide()
	h.usageRef = SessionRef{}
	m.files.SetFiles(nil)
	h.setRefs(nil)
	m.SetForkOrigin(ForkOrigin{})
	h.parentBox.Hide()
	h.mode.Hide()
	h.archive.set(false)
	h.setStored(false)
	m.meter.Set(0)
	m.meter.Hide()
	h.box.Refresh()
}

// BindShortcuts registers the views' keyboard shortcuts (Ctrl+F: find in
// the session; prompt navigation, see navigate.go; Ctrl+Home, Ctrl+End
// and, with nothing focused, Home, End, Page Up, Page Down: scroll the
// transcript) on the window's canvas.
func (m *MainView) BindShortcuts(c fyne.Canvas) {
	m.transcript.canvas = c
	for _, s := range m.transcript.Shortcuts() {
		c.AddShortcut(s, func(s fyne.Shortcut) { m.transcript.HandleShortcut(s) })
	}
	bindPromptKeys(c, m.transcript.nav)
	// With no widget focused (after a click in the transcript), Home, End,
	// Page Up and Page Down scroll the transcript.
	prevKey := c.OnTypedKey()
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if !m.transcript.nav.ScrollKey(ev.Name) && prevKey != nil {
			prevKey(ev)
		}
	})
}

// sessionHeaderLayout places the session title on the left and the meter on the
// right. The title gets its full width while the meter can still show its
// bar; up to half the width when space is short (then it truncates); the
// meter the rest, up to its full text. A hidden meter leaves the title all.
type sessionHeaderLayout struct {
	title *widget.Label
	meter *Meter
}

func (l *sessionHeaderLayout) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	meterW := float32(0)
	if l.meter.Visible() {
		titleW := fyne.MeasureText(l.title.Text, theme.TextSize(), l.title.TextStyle).Width +
			2*theme.Size(theme.SizeNameInnerPadding)
		meterW = max(l.meter.MinSize().Width, min(l.meter.PreferredWidth(), size.Width-min(titleW, size.Width/2)))
	}
	l.title.Move(fyne.NewPos(0, 0))
	l.title.Resize(fyne.NewSize(max(size.Width-meterW, 0), size.Height))
	l.meter.Move(fyne.NewPos(size.Width-meterW, 0))
	l.meter.Resize(fyne.NewSize(meterW, size.Height))
}

func (l *sessionHeaderLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	t, m := l.title.MinSize(), fyne.NewSize(0, 0)
	if l.meter.Visible() {
		m = l.meter.MinSize()
	}
	return fyne.NewSize(t.Width+m.Width, max(t.Height, m.Height))
}

// minSizeLayout fills the container with its objects and asks for at
// least min.
type minSizeLayout struct {
	min fyne.Size
}

func (l *minSizeLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Move(fyne.NewPos(0, 0))
		o.Resize(size)
	}
}

func (l *minSizeLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	m := l.min
	for _, o := range objects {
		m = m.Max(o.MinSize())
	}
	return m
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
