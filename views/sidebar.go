package views

import (
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
	"github.com/lazuli-app/lazuli/trace"
)

// Sidebar lists the sessions of several worktrees, grouped under a header
// per worktree, with a name filter and New/Rename/Delete buttons. It is one
// widget.List over a flat slice of row view-models, rebuilt only by Apply
// and by filter changes, so thousands of sessions stay smooth.
type Sidebar struct {
	actions Actions
	now     func() time.Time // the clock of the relative times

	groups []WorktreeGroup // the groups shown: local or team
	local  []WorktreeGroup // this project's worktrees (Apply)
	teamGr []WorktreeGroup // the team's (ApplyTeam)
	team   bool            // the team source is shown
	source *widget.RadioGroup
	srcAct SourceActions
	all    []sidebarRow // every row of groups
	rows   []sidebarRow // the rows shown: all, filtered

	selected    SessionRef
	hasSelected bool
	quiet       bool // a programmatic selection: no intent
	traced      bool // the trace's start point is written (traceSidebar)

	filters *sidebarFilters // the name filter and the filters (sidebar_filters.go)
	items   *sidebarItems   // the list's items (sidebar_items.go)
	list    *navList
	newBtn  *widget.Button
	rename  *widget.Button
	delete  *widget.Button
	buttons *fyne.Container // New, Rename, Delete; hidden in a read-only window
	root    fyne.CanvasObject
}

// NewSidebar returns an empty sidebar that sends its intents to a.
func NewSidebar(a Actions) *Sidebar {
	s := &Sidebar{actions: a, now: time.Now}
	s.filters = newSidebarFilters(s)
	s.newBtn = widget.NewButtonWithIcon("New", theme.ContentAddIcon(), s.onNew)
	s.rename = widget.NewButtonWithIcon("Rename", theme.DocumentCreateIcon(), s.onRename)
	s.delete = widget.NewButtonWithIcon("Delete", theme.DeleteIcon(), s.onDelete)
	s.items = &sidebarItems{s: s}
	s.list = newNavList(s.items.length, s.items.create, s.items.update)
	s.list.OnSelected = s.onSelected
	s.list.skip = func(id widget.ListItemID) bool { return id < len(s.rows) && s.rows[id].header }
	s.list.selectedRow = func() widget.ListItemID {
		if id, ok := s.rowOf(s.selected); s.hasSelected && ok {
			return id
		}
		return -1
	}
	s.updateButtons()
	s.source = widget.NewRadioGroup([]string{sourceLocal, sourceTeam}, s.onSource)
	s.source.Horizontal = true
	s.source.Required = true
	s.source.SetSelected(sourceLocal)
	s.source.Hide()
	s.buttons = container.NewGridWithColumns(3, s.newBtn, s.rename, s.delete)
	top := container.NewVBox(s.source, container.NewBorder(nil, nil, nil, s.filters.button, s.filters.entry), s.buttons)
	// The list after the filter and the buttons, so that Tab reaches them
	// in the order they are seen (NewBorder would put the list first).
	s.root = container.New(layout.NewBorderLayout(top, nil, nil, nil), top,
		container.NewStack(s.list, s.filters.none))
	return s
}

// Content returns the sidebar's canvas object.
func (s *Sidebar) Content() fyne.CanvasObject { return s.root }

// Apply replaces this project's sessions. The selection is kept when its
// session is still listed; no intent is sent. While the team source is
// shown, they are kept for when this project's is shown again.
func (s *Sidebar) Apply(groups []WorktreeGroup) {
	s.local = groups
	if !s.team {
		s.show(groups)
	}
}

// The labels of the source switch.
const (
	sourceLocal = "This project"
	sourceTeam  = "Team"
)

// TeamStore is the StorePath of a team session's SessionRef; its ID is the
// session's number in the team database (see teamsync).
const TeamStore = "team:"

// IsTeam reports whether ref is a team session.
func (r SessionRef) IsTeam() bool { return r.StorePath == TeamStore }

// SourceActions are the intents of the sidebar's source switch.
type SourceActions interface {
	// ShowSource is sent when the user switches the sidebar to the team's
	// sessions (team) or back to this project's; the app answers a switch
	// to the team with ApplyTeam.
	ShowSource(team bool)
}

// EnableTeam shows the source switch (This project | Team), whose
// switches go to a: the app calls it when a team database is set.
func (s *Sidebar) EnableTeam(a SourceActions) {
	s.srcAct = a
	s.source.Show()
}

// DisableTeam hides the source switch, showing this project's sessions
// again if the team's were shown (the team database was unset).
func (s *Sidebar) DisableTeam() {
	s.SetSource(false)
	s.srcAct = nil
	s.source.Hide()
	s.teamGr = nil
}

// ApplyTeam replaces the team's sessions: one group per repository and
// worktree (Worktree is the header, StorePath TeamStore, session ids the
// team numbers). They are shown while the team source is.
func (s *Sidebar) ApplyTeam(groups []WorktreeGroup) {
	s.teamGr = groups
	if s.team {
		s.show(groups)
	}
}

// SetSource shows the team's sessions (team) or this project's, as the
// switch does: the intent goes to the SourceActions. Without a team
// database (EnableTeam) there are only this project's.
func (s *Sidebar) SetSource(team bool) {
	if team && s.srcAct == nil {
		return // no team database
	}
	if team {
		s.source.SetSelected(sourceTeam)
	} else {
		s.source.SetSelected(sourceLocal)
	}
}

// TeamShown reports whether the sidebar shows the team's sessions.
func (s *Sidebar) TeamShown() bool { return s.team }

// onSource switches the source shown.
func (s *Sidebar) onSource(label string) {
	team := label == sourceTeam
	if team == s.team {
		return
	}
	s.team = team
	if team {
		s.show(s.teamGr)
	} else {
		s.show(s.local)
	}
	if s.srcAct != nil {
		s.srcAct.ShowSource(team)
	}
}

// show replaces the groups shown.
func (s *Sidebar) show(groups []WorktreeGroup) {
	s.groups = groups
	s.all = buildSidebarRows(groups)
	for i := range s.all {
		s.all[i].agent = s.filters.facets[s.all[i].ref].Agent
	}
	s.applyFilter()
	s.traceSidebar()
}

// Select highlights ref without sending SelectSession, e.g. when the app
// opened a session itself. An unknown ref clears the selection.
func (s *Sidebar) Select(ref SessionRef) {
	s.selected, s.hasSelected = ref, true
	s.syncSelection()
}

// Groups returns the groups shown (as given to Apply).
func (s *Sidebar) Groups() []WorktreeGroup { return s.groups }

// Selected returns the selected session, if any.
func (s *Sidebar) Selected() (SessionRef, bool) { return s.selected, s.hasSelected }

// applyFilter rebuilds the shown rows: sessions whose display name contains
// the filter text (case-insensitive), under the headers of their groups.
func (s *Sidebar) applyFilter() {
	q := strings.ToLower(strings.TrimSpace(s.filters.entry.Text))
	if q == "" && s.filters.filt.active() == 0 {
		s.rows = s.all
	} else {
		s.rows = s.filters.rows(s.all, q)
	}
	s.filters.showNone(len(s.all) > 0 && len(s.rows) == 0)
	s.list.Refresh()
	s.syncSelection()
	s.traceRows()
}

// syncSelection selects the row of the selected session, quietly.
func (s *Sidebar) syncSelection() {
	s.quiet = true
	defer func() { s.quiet = false }()
	if id, ok := s.rowOf(s.selected); s.hasSelected && ok {
		s.list.Select(id)
	} else {
		s.list.UnselectAll()
	}
	s.updateButtons()
}

// rowOf returns the index of ref's row among the shown rows.
func (s *Sidebar) rowOf(ref SessionRef) (int, bool) {
	for i := range s.rows {
		if !s.rows[i].header && s.rows[i].ref == ref {
			return i, true
		}
	}
	return 0, false
}

// onSelected handles a tap, Space or Enter on a row. Headers are not
// selectable: the previous selection comes back.
func (s *Sidebar) onSelected(id widget.ListItemID) {
	if id < 0 || id >= len(s.rows) {
		return
	}
	s.list.highlighted = id // a tap moves the List's keyboard highlight too
	r := &s.rows[id]
	if r.header {
		s.syncSelection()
		return
	}
	s.selected, s.hasSelected = r.ref, true
	s.updateButtons()
	if !s.quiet {
		trace.Markf("input", "select S%d", r.ref.ID)
		s.actions.SelectSession(r.ref)
	}
}

func (s *Sidebar) updateButtons() {
	s.newBtn.Disable()
	if len(s.groups) > 0 && !s.team {
		s.newBtn.Enable()
	}
	if _, ok := s.selectedRow(); ok && !s.team { // the team's sessions are read-only
		s.rename.Enable()
		s.delete.Enable()
	} else {
		s.rename.Disable()
		s.delete.Disable()
	}
}

// selectedRow returns the row of the selected session among all rows.
func (s *Sidebar) selectedRow() (*sidebarRow, bool) {
	if !s.hasSelected {
		return nil, false
	}
	for i := range s.all {
		if !s.all[i].header && s.all[i].ref == s.selected {
			return &s.all[i], true
		}
	}
	return nil, false
}

// onNew creates a session in the worktree of the selection, or of the
// first group.
func (s *Sidebar) onNew() {
	if len(s.groups) == 0 || s.team {
		return
	}
	g := s.groups[0]
	if r, ok := s.selectedRow(); ok {
		g = s.groups[r.group]
	}
	s.actions.NewSession(g.StorePath, g.Worktree)
}

// navList is the sidebar's widget.List made for the keyboard: it is in
// the window's Tab chain (a List is focusable), Up and Down move its
// highlight over the sessions (skipping the group headers), Enter and
// Space open the highlighted session, and taking the focus highlights
// the open session. Fyne draws the focused list's highlighted row with
// the focus colour: the visible mark of where the keyboard is.
type navList struct {
	widget.List
	highlighted widget.ListItemID
	hasFocus    bool
	skip        func(widget.ListItemID) bool // rows the keys pass over (headers)
	selectedRow func() widget.ListItemID     // the selected row; -1 for none
	onEscape    func()                       // Esc (a dialog's list closes it); nil: nothing
}

func newNavList(length func() int, create func() fyne.CanvasObject,
	update func(widget.ListItemID, fyne.CanvasObject)) *navList {
	l := &navList{}
	l.Length, l.CreateItem, l.UpdateItem = length, create, update
	l.OnHighlighted = func(id widget.ListItemID) { l.highlighted = id }
	l.ExtendBaseWidget(l)
	return l
}

// FocusGained highlights the selected row (else the first the keys stop
// at), so that the focus mark starts where the user is.
func (l *navList) FocusGained() {
	if id := l.selected(); id >= 0 {
		l.highlighted = id
	} else if l.highlighted < 0 || l.highlighted >= l.Length() || l.skips(l.highlighted) {
		l.highlighted = l.next(-1, 1)
	}
	l.hasFocus = true
	if l.highlighted >= 0 {
		l.Highlight(l.highlighted)
	}
	l.List.FocusGained()
}

// FocusLost removes the focus mark.
func (l *navList) FocusLost() {
	l.hasFocus = false
	l.List.FocusLost()
}

// TypedKey opens the highlighted row on Enter, Return or Space, and moves
// the highlight on Up and Down.
func (l *navList) TypedKey(ev *fyne.KeyEvent) {
	switch ev.Name {
	case fyne.KeyReturn, fyne.KeyEnter, fyne.KeySpace:
		l.Select(l.highlighted) // nothing for the session open

	case fyne.KeyDown, fyne.KeyUp:
		step := 1
		if ev.Name == fyne.KeyUp {
			step = -1
		}
		if id := l.next(l.highlighted, step); id >= 0 {
			l.Highlight(id)
		}
	case fyne.KeyEscape:
		if l.onEscape != nil {
			l.onEscape()
		}
	default:
		l.List.TypedKey(ev)
	}
}

// highlightFirst highlights the first row the keys stop at, as Down from
// the filter does, and reports whether there is one.
func (l *navList) highlightFirst() bool {
	id := l.next(-1, 1)
	if id < 0 {
		return false
	}
	l.Highlight(id)
	return true
}

// next is the first row after from (step 1) or before it (step -1) that
// the keys stop at; -1 for none.
func (l *navList) next(from widget.ListItemID, step int) widget.ListItemID {
	for id := from + step; id >= 0 && id < l.Length(); id += step {
		if !l.skips(id) {
			return id
		}
	}
	return -1
}

func (l *navList) skips(id widget.ListItemID) bool { return l.skip != nil && l.skip(id) }

func (l *navList) selected() widget.ListItemID {
	if l.selectedRow == nil {
		return -1
	}
	return l.selectedRow()
}
