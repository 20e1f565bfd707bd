package views

import (
	"image/color"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/store"
)

// WorktreeGroup is the sessions of one worktree (git branch) as the sidebar
// shows them: a header row, then one row per session, pinned first, forks
// under their parent, else by the last activity each row shows
// (forkOrder), the given order (the store's) breaking ties.
type WorktreeGroup struct {
	Worktree  string
	StorePath string
	Sessions  []store.Session
	Running   map[int64]bool  // sessions whose agent process is running
	Forks     map[int64]int64 // fork id → parent id: forks are listed under their parent (lifecycle.go)
	Pinned    map[int64]bool  // pinned sessions: first in their group, marked ★ (lifecycle.go)
	Archived  map[int64]bool  // archived sessions the group shows: greyed
}

// createdLayout is the format of store.Session.Created (UTC).
const createdLayout = "2006-01-02 15:04:05"

// sidebarRow is the view-model of one sidebar row: a group header when
// header is set, else a session. Everything shown is computed in Apply,
// except the relative time, which depends on the clock.
type sidebarRow struct {
	header bool
	ref    SessionRef
	group  int // index into Sidebar.groups
	index  int // session index in its group; -1 for a header

	title     string // worktree, or the session's display name
	lower     string // title in lower case, for the filter
	badge     string // ●, ✓, ✗ or ○
	badgeName fyne.ThemeColorName
	duration  string // "" when completion is unknown
	durName   fyne.ThemeColorName
	msgs      string // "[N msgs]", or the session count of a header
	agent     string // the agent's title or "" (SetFacets)
	created   time.Time
	createdOK bool
	rawTime   string
	// active is the session's last activity (store.Session.LastActive),
	// which the row shows: the list is ordered by it. rawActive is "" when
	// it is the created time.
	active    time.Time
	activeOK  bool
	rawActive string
	archived  bool // shown greyed
}

// buildSidebarRows flattens groups into rows: a header per group, then its
// sessions.
func buildSidebarRows(groups []WorktreeGroup) []sidebarRow {
	n := len(groups)
	for _, g := range groups {
		n += len(g.Sessions)
	}
	rows := make([]sidebarRow, 0, n)
	for gi, g := range groups {
		rows = append(rows, sidebarRow{
			header: true, group: gi, index: -1, title: g.Worktree,
			msgs: sessionCount(len(g.Sessions)),
		})
		for _, o := range forkOrder(g) {
			r := sessionRow(g, gi, o.index)
			r.title = forkTitle(r.title, o.depth, g.Pinned[g.Sessions[o.index].ID])
			r.archived = g.Archived[g.Sessions[o.index].ID]
			rows = append(rows, r)
		}
	}
	return rows
}

// sessionCount is a group's "N sessions".
func sessionCount(n int) string { return display.Plural(n, "session") }

// sessionRow builds the row of g.Sessions[si] (spec §3.5 badges).
func sessionRow(g WorktreeGroup, gi, si int) sidebarRow {
	s := &g.Sessions[si]
	name := s.DisplayName()
	r := sidebarRow{
		ref:   SessionRef{StorePath: g.StorePath, ID: s.ID},
		group: gi, index: si,
		title: name, lower: strings.ToLower(name),
		rawTime: s.Created,
	}
	if s.MessageCount >= 0 { // -1: not counted yet (store.ListSessionsQuick)
		r.msgs = "[" + display.Plural(s.MessageCount, "msg") + "]"
	}
	completed := s.Completed
	if s.Unfinished { // turns followed the last Complete: how it ended is unknown
		completed = nil
	}
	r.badge, r.badgeName = statusBadge(g.Running[s.ID], completed)
	if completed != nil {
		var ms int64
		if s.DurationMS != nil {
			ms = *s.DurationMS
		}
		r.duration = display.DurationBadge(ms)
		r.durName = theme.ColorNameSuccess
		if !*completed {
			r.durName = theme.ColorNameError
		}
	}
	if s.Damage != "" { // its events or its context size cannot be read (store.Session.Damage)
		r.badge, r.badgeName = "⚠", theme.ColorNameError
		r.duration, r.durName = "damaged", theme.ColorNameError
	}
	if s.Interrupted && s.Damage == "" { // its last turn was stopped before it finished
		r.badge, r.badgeName = "■", theme.ColorNameWarning
		r.duration = "interrupted " + r.duration
		r.durName = theme.ColorNameWarning
	}
	if t, err := time.ParseInLocation(createdLayout, s.Created, time.UTC); err == nil {
		r.created, r.createdOK = t, true
		r.active, r.activeOK = t, true
	}
	if s.LastActive != "" && s.LastActive != s.Created {
		if t, err := time.ParseInLocation(createdLayout, s.LastActive, time.UTC); err == nil {
			r.active, r.activeOK, r.rawActive = t, true, s.LastActive
		}
	}
	return r
}

// statusBadge returns the row indicator: running beats completion.
func statusBadge(running bool, completed *bool) (string, fyne.ThemeColorName) {
	switch {
	case running:
		return "●", theme.ColorNameSuccess
	case completed == nil:
		return "○", theme.ColorNamePlaceHolder
	case *completed:
		return "✓", theme.ColorNameSuccess
	}
	return "✗", theme.ColorNameError
}

// relativeTime formats how long ago t was: "just now", "5m ago", "3h ago",
// "3d ago", "2mo ago", "1y ago".
func relativeTime(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + "m ago"
	case d < 24*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + "h ago"
	case d < 30*24*time.Hour:
		return strconv.Itoa(int(d/(24*time.Hour))) + "d ago"
	case d < 365*24*time.Hour:
		return strconv.Itoa(int(d/(30*24*time.Hour))) + "mo ago"
	}
	return strconv.Itoa(int(d/(365*24*time.Hour))) + "y ago"
}

const exactLayout = "Mon 2 Jan 2006 15:04:05 MST"

// exactTime is the hover text of a row's time: local and UTC, the last
// activity first when it is not the created time.
func exactTime(r *sidebarRow) string {
	created := "Created " + r.rawTime
	if r.createdOK {
		created = "Created " + r.created.Local().Format(exactLayout) + " (" + r.rawTime + " UTC)"
	}
	if r.rawActive == "" {
		return created
	}
	return "Last active " + r.active.Local().Format(exactLayout) + " (" + r.rawActive + " UTC)\n" + created
}

// sidebarItem is the template widget of every sidebar row; it shows either
// its header part or its session part.
type sidebarItem struct {
	widget.BaseWidget

	header      *fyne.Container
	headerTitle *canvas.Text
	headerCount *canvas.Text
	headerText  string // the header's whole title; headerTitle shows it cut to fit

	session  *fyne.Container
	badge    *canvas.Text
	name     *cutLabel
	duration *canvas.Text
	durBox   *fyne.Container
	msgs     *canvas.Text
	agent    *canvas.Text // which agent the session used
	when     *canvas.Text
	whenTip  *hoverTip
	row      *sidebarRow // the row shown, read by the hover tip

	root *fyne.Container
}

func newSidebarItem() *sidebarItem {
	it := &sidebarItem{
		headerTitle: canvas.NewText("", color.Black),
		headerCount: canvas.NewText("", color.Black),
		badge:       canvas.NewText("○", color.Black),
		name:        newCutLabel(fyne.TextStyle{}),
		duration:    canvas.NewText("", color.Black),
		msgs:        canvas.NewText("", color.Black),
		agent:       canvas.NewText("", color.Black),
		when:        canvas.NewText("", color.Black),
	}
	it.headerTitle.TextStyle.Bold = true
	it.badge.TextStyle.Bold = true
	small := theme.Size(theme.SizeNameCaptionText)
	for _, t := range []*canvas.Text{it.headerCount, it.duration, it.msgs, it.agent, it.when} {
		t.TextSize = small
	}
	it.whenTip = newHoverTip(it.when, it.tipText)
	pad := theme.Size(theme.SizeNamePadding)
	it.header = container.New(&headerLayout{it: it, pad: pad}, it.headerTitle, it.headerCount)
	it.durBox = container.NewCenter(it.duration)
	right := container.NewHBox(it.durBox, container.NewCenter(it.agent), container.NewCenter(it.msgs),
		container.NewCenter(it.whenTip))
	it.session = container.NewBorder(nil, nil, container.New(&insetLayout{left: pad}, container.NewCenter(it.badge)),
		container.New(&insetLayout{right: pad}, right), it.name)
	it.root = container.NewStack(it.header, it.session)
	it.ExtendBaseWidget(it)
	return it
}

// CreateRenderer returns a renderer of the row's containers.
func (it *sidebarItem) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(it.root)
}

func (it *sidebarItem) tipText() string {
	if it.row == nil || it.row.header {
		return ""
	}
	return exactTime(it.row)
}

// update shows r; now is the clock for the relative time.
func (it *sidebarItem) update(r *sidebarRow, now time.Time) {
	it.row = r
	if r.header {
		it.session.Hide()
		it.header.Show()
		it.headerText, it.headerTitle.Text = r.title, r.title
		it.headerTitle.Color = theme.Color(theme.ColorNameForeground)
		it.headerCount.Text = r.msgs
		it.headerCount.Color = theme.Color(theme.ColorNamePlaceHolder)
		it.header.Refresh()
		return
	}
	it.header.Hide()
	it.session.Show()
	it.badge.Text = r.badge
	it.badge.Color = theme.Color(r.badgeName)
	it.name.ColorName = theme.ColorNameForeground
	if r.archived {
		it.name.ColorName = theme.ColorNameDisabled // a low-importance label's
	}
	it.name.Text = r.title // refreshed with the row below
	it.duration.Text = r.duration
	if r.duration != "" {
		it.duration.Color = theme.Color(r.durName)
	}
	it.durBox.Hidden = r.duration == ""
	it.msgs.Text = r.msgs
	it.msgs.Color = theme.Color(theme.ColorNamePlaceHolder)
	it.agent.Text = r.agent
	it.agent.Color = theme.Color(theme.ColorNamePrimary)
	it.when.Text = r.rawTime
	if r.activeOK {
		it.when.Text = relativeTime(now, r.active)
	}
	it.when.Color = theme.Color(theme.ColorNamePlaceHolder)
	it.session.Refresh()
}

// headerLayout lays out a group header: the title at the left, cut with an
// ellipsis where it would run into the session count at the right.
type headerLayout struct {
	it  *sidebarItem
	pad float32
}

func (l *headerLayout) Layout(_ []fyne.CanvasObject, size fyne.Size) {
	title, count := l.it.headerTitle, l.it.headerCount
	cs := count.MinSize()
	count.Resize(cs)
	count.Move(fyne.NewPos(size.Width-l.pad-cs.Width, (size.Height-cs.Height)/2))
	if fit := fitLine(l.it.headerText, size.Width-3*l.pad-cs.Width, title.TextSize, title.TextStyle); fit != title.Text {
		title.Text = fit
		title.Refresh()
	}
	ts := title.MinSize()
	title.Resize(ts)
	title.Move(fyne.NewPos(l.pad, (size.Height-ts.Height)/2))
}

func (l *headerLayout) MinSize([]fyne.CanvasObject) fyne.Size {
	ts, cs := l.it.headerTitle.MinSize(), l.it.headerCount.MinSize()
	return fyne.NewSize(3*l.pad+cs.Width, max(ts.Height, cs.Height))
}

// insetLayout places its objects inside fixed insets.
type insetLayout struct {
	left, top, right, bottom float32
}

func (l *insetLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	for _, o := range objects {
		o.Move(fyne.NewPos(l.left, l.top))
		o.Resize(fyne.NewSize(size.Width-l.left-l.right, size.Height-l.top-l.bottom))
	}
}

func (l *insetLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	var m fyne.Size
	for _, o := range objects {
		m = m.Max(o.MinSize())
	}
	return m.AddWidthHeight(l.left+l.right, l.top+l.bottom)
}
