package views

// This file holds the views of a session's lifecycle: "Fork from here" on
// a prompt card, forks listed under their parent in the sidebar, and the
// transcript header's link back to a fork's parent.

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/lazuli-app/lazuli/store"
)

// LifecycleActions are the intents of a session's lifecycle.
type LifecycleActions interface {
	// ForkSession creates a session holding a copy of ref's events
	// before its prompt at seq atSeq, shows it, and places prompt (that
	// prompt's text) in its prompt box to edit and send.
	ForkSession(ref SessionRef, atSeq int64, prompt string)
	// ArchiveSession sets (archived) or clears ref's archived mark: the
	// header's Unarchive, the status's Undo.
	ArchiveSession(ref SessionRef, archived bool)
}

// ArchiveMark is the header's mark of an archived session shown:
// "Archived" and an Unarchive button, which sends ArchiveSession(ref,
// false). Reached as MainView.Archive().
type ArchiveMark struct {
	actions LifecycleActions
	shown   func() SessionRef // the session the header shows
	label   *widget.Label
	button  *widget.Button
	box     *fyne.Container // label and button; hidden when not archived
	onSet   func()          // lays the header out again
}

func newArchiveMark(a LifecycleActions, shown func() SessionRef) *ArchiveMark {
	m := &ArchiveMark{actions: a, shown: shown, label: widget.NewLabel("Archived")}
	m.label.Importance = widget.WarningImportance
	m.button = widget.NewButtonWithIcon("Unarchive", theme.ViewRestoreIcon(), m.Unarchive)
	m.button.Importance = widget.LowImportance
	m.box = container.NewHBox(m.label, m.button)
	m.box.Hide()
	return m
}

// Set marks ref archived or not; it is dropped unless ref is shown.
func (m *ArchiveMark) Set(ref SessionRef, archived bool) {
	if ref.ID == 0 || ref != m.shown() {
		return
	}
	m.set(archived)
}

func (m *ArchiveMark) set(archived bool) {
	if m.box.Hidden != archived {
		return
	}
	m.box.Hidden = !archived
	if m.onSet != nil {
		m.onSet()
	}
}

// Shown reports whether the header shows the mark.
func (m *ArchiveMark) Shown() bool { return !m.box.Hidden }

// Unarchive sends ArchiveSession(shown, false), as the button does.
func (m *ArchiveMark) Unarchive() {
	if ref := m.shown(); ref.ID != 0 && !ref.IsTeam() {
		m.actions.ArchiveSession(ref, false)
	}
}

// Archive returns the header's archive mark.
func (m *MainView) Archive() *ArchiveMark { return m.head.archive }

// forkLabel is the prompt card's fork action.
const forkLabel = "Fork from here"

// newForkAction returns a prompt card's "Fork from here" action.
func newForkAction(c *card) *tapText {
	return newTapText(forkLabel, c.onFork)
}

// onFork sends ForkSession for the prompt the card shows.
func (c *card) onFork() {
	t := c.t
	if c.id < 0 || c.id >= len(t.rows.rows) || t.rows.rows[c.id].event < 0 || t.actions == nil || t.ref.IsTeam() {
		return // a team session is read-only: pull it to fork it
	}
	e := &t.rows.events[t.rows.rows[c.id].event]
	t.actions.ForkSession(t.ref, e.Seq, e.Event.Content)
}

// ForkOrigin is where the session shown was forked from; a zero Parent
// means it is not a fork (or its parent is gone).
type ForkOrigin struct {
	Parent     SessionRef
	ParentName string // the parent's display name
	ParentSeq  int64  // the parent's prompt the fork was made before
}

// newForkLink returns the header's link back to a fork's parent, hidden.
func newForkLink(m *MainView, a Actions) *widget.Hyperlink {
	l := widget.NewHyperlink("", nil)
	l.OnTapped = func() {
		if m.origin.Parent.ID != 0 {
			a.SelectSession(m.origin.Parent)
		}
	}
	l.Hide()
	return l
}

// SetForkOrigin shows, under the header's title, a link back to the
// parent of the session shown; a zero origin hides it.
func (m *MainView) SetForkOrigin(o ForkOrigin) {
	m.origin = o
	if o.Parent.ID == 0 {
		m.forkLink.Hide()
	} else {
		m.forkLink.SetText("⑂ forked from " + o.ParentName + " before its prompt at seq " + strconv.FormatInt(o.ParentSeq, 10))
		m.forkLink.Show()
	}
	m.right.Refresh()
}

// ForkOrigin returns what SetForkOrigin set.
func (m *MainView) ForkOrigin() ForkOrigin { return m.origin }

// SetDraft places text in the prompt box of ref: in the entry when ref is
// the box's session, else as ref's draft, shown when ref is set.
func (p *PromptBox) SetDraft(ref SessionRef, text string) {
	if p.hasSession && p.ref == ref {
		p.entry.SetText(text)
		p.update()
		return
	}
	p.drafts[ref] = text
}

// sessionOrder is one session of a sidebar group in the order shown: its
// index in the group and how deep it is among forks (0: not a fork of a
// session of the group).
type sessionOrder struct{ index, depth int }

// forkOrder lists g's sessions with each fork right after its parent (and
// the parent's earlier forks), pinned sessions first among their siblings,
// then by their last activity, the time each row shows (activityKey),
// newest first, else in g's order (the store's: by the last event
// written). A fork whose parent is not in the group is listed at the top
// level.
func forkOrder(g WorktreeGroup) []sessionOrder {
	pos := make(map[int64]int, len(g.Sessions))
	for i, s := range g.Sessions {
		pos[s.ID] = i
	}
	children := map[int64][]int{}
	var roots []int
	for i, s := range g.Sessions {
		if p, ok := g.Forks[s.ID]; ok && p != s.ID {
			if _, in := pos[p]; in {
				children[p] = append(children[p], i)
				continue
			}
		}
		roots = append(roots, i)
	}
	active := make([]string, len(g.Sessions))
	for i := range g.Sessions {
		active[i] = activityKey(&g.Sessions[i])
	}
	pinnedFirst := func(list []int) {
		slices.SortStableFunc(list, func(a, b int) int {
			pa, pb := g.Pinned[g.Sessions[a].ID], g.Pinned[g.Sessions[b].ID]
			switch {
			case pa != pb && pa:
				return -1
			case pa != pb:
				return 1
			}
			return strings.Compare(active[b], active[a]) // the latest activity first
		})
	}
	pinnedFirst(roots)
	out := make([]sessionOrder, 0, len(g.Sessions))
	seen := make([]bool, len(g.Sessions))
	var walk func(i, depth int)
	walk = func(i, depth int) {
		if seen[i] {
			return
		}
		seen[i] = true
		out = append(out, sessionOrder{i, depth})
		kids := children[g.Sessions[i].ID]
		pinnedFirst(kids)
		for _, c := range kids {
			walk(c, depth+1)
		}
	}
	for _, i := range roots {
		walk(i, 0)
	}
	for i := range g.Sessions { // a cycle of links (a damaged table) reaches no root
		walk(i, 0)
	}
	return out
}

// activityKey is what a row is ordered by: the session's last activity
// (store.Session.LastActive, else its created time) in the store's UTC
// TimeFormat, which sorts as text; "" (last) when neither is a time. It
// is the time the row shows (sessionRow), so the two always agree: the
// store's own order, by the last event written, follows the order of an
// import rather than when its sessions ran.
func activityKey(s *store.Session) string {
	for _, t := range []string{s.LastActive, s.Created} {
		if _, err := time.Parse(createdLayout, t); err == nil {
			return t
		}
	}
	return ""
}

// forkTitle is the sidebar title of a session depth forks deep, marked ★
// when pinned.
func forkTitle(name string, depth int, pinned bool) string {
	if pinned {
		name = "★ " + name
	}
	if depth == 0 {
		return name
	}
	return strings.Repeat("   ", depth-1) + "↳ " + name
}

// Text returns the text in the prompt box's entry.
func (p *PromptBox) Text() string { return p.entry.Text }

// ForkSession does nothing: a read-only transcript (the team's) offers no
// fork.
func (readOnly) ForkSession(SessionRef, int64, string) {}

// ArchiveSession does nothing: a read-only transcript has no marks.
func (readOnly) ArchiveSession(SessionRef, bool) {}

// canFork reports whether the transcript's prompt cards offer "Fork from
// here": not in a read-only transcript.
func (cs *cardSet) canFork() bool {
	_, ro := cs.t.actions.(readOnly)
	return cs.t.actions != nil && !ro && !cs.readOnly
}
