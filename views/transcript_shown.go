package views

import (
	"slices"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/store"
)

// keptSessions is how many sessions' laid-out rows the transcript keeps
// besides the one shown.
const keptSessions = 4

// keptRows keeps the rows of the last few sessions shown, with their
// list laid out and their cards bound and measured, so that showing one
// of them again builds and measures nothing: switching back and forth
// between sessions is the commonest move in the window. A kept session is
// used again only when the app loads the same events and compactions for
// it (nothing appended, compacted or loaded earlier since), and all are
// dropped when the theme changes.
type keptRows struct {
	entries []shownEntry // the most recently left first
}

// shownEntry is one kept session.
type shownEntry struct {
	ref     SessionRef // as MainView.ShowSession named it
	session store.Session
	state   rowState
	full    map[int64]string
	turns   []TurnUsage
	earlier int
}

func (k *keptRows) clear() { k.entries = nil }

// keep adds e in front, dropping the entry of the same session and the
// oldest beyond keptSessions.
func (k *keptRows) keep(e shownEntry) {
	k.entries = slices.DeleteFunc(k.entries, func(o shownEntry) bool { return sameSession(o.session, e.session) })
	k.entries = slices.Insert(k.entries, 0, e)
	if len(k.entries) > keptSessions {
		clear(k.entries[keptSessions:])
		k.entries = k.entries[:keptSessions]
	}
}

// take removes and returns the kept entry of s when it holds exactly these
// events (sorted compactions) and this many earlier ones.
func (k *keptRows) take(s store.Session, events []store.StoredEvent, comps []store.Compaction, earlier int) (shownEntry, bool) {
	i := slices.IndexFunc(k.entries, func(o shownEntry) bool { return sameSession(o.session, s) })
	if i < 0 {
		return shownEntry{}, false
	}
	e := k.entries[i]
	k.entries = slices.Delete(k.entries, i, i+1)
	if e.earlier != earlier || !sameEvents(e.state.events, events) || !slices.Equal(e.state.compactions, comps) {
		return shownEntry{}, false
	}
	return e, true
}

// sameSession reports whether a and b are the same session of the same
// store: an id is reused after a delete, so its created time is compared
// too, and two worktrees' stores have sessions with the same ids.
func sameSession(a, b store.Session) bool {
	return a.ID == b.ID && a.Created == b.Created && a.Worktree == b.Worktree
}

// sameEvents reports whether two loads of a session gave the same events.
// AZUREAL's events are only ever appended (a session is deleted whole), so
// the same number with the same first and last rows are the same events.
func sameEvents(a, b []store.StoredEvent) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) == 0 {
		return true
	}
	last := len(a) - 1
	return a[0].ID == b[0].ID && a[0].Seq == b[0].Seq && a[last].ID == b[last].ID && a[last].Seq == b[last].Seq
}

// keepShown keeps the session shown, unless none is.
func (t *Transcript) keepShown() {
	if t.session.ID == 0 || t.rows.list == nil || len(t.rows.rows) == 0 {
		return
	}
	t.shown.keep(shownEntry{ref: t.sessionRef, session: t.session, state: t.rows.rowState, full: t.cards.full, turns: t.cards.turns,
		earlier: t.load.earlier})
}

// KeptSession is what the transcript kept of a session it showed before:
// what SetSessionTail was given for it.
type KeptSession struct {
	Session     store.Session
	Events      []store.StoredEvent
	Compactions []store.Compaction
	Earlier     int
}

// Kept returns what the transcript keeps of session ref, laid out, if it
// does: showing it again with these (MainView.ShowSession) builds and
// measures nothing, and the app may do so at once, before its load
// confirms them (a later SetSessionTail with the same events changes
// nothing).
func (t *Transcript) Kept(ref SessionRef) (KeptSession, bool) {
	for _, e := range t.shown.entries {
		if e.ref == ref {
			return KeptSession{Session: e.session, Events: e.state.events, Compactions: e.state.compactions, Earlier: e.earlier}, true
		}
	}
	return KeptSession{}, false
}

// restore shows a kept session's rows again: its list, as it was laid
// out, with the heights of the rows it measured. Rows shown at a width
// they were not measured at (the window was resized meanwhile) are
// measured first, as a new list's are.
func (t *Transcript) restore(e shownEntry) {
	r := t.rows
	r.rowState = e.state
	t.cards.full, t.cards.turns = e.full, e.turns
	r.pending = make(map[int]float32)
	r.scroll.target = -1
	r.built.drop()
	t.find.forget()
	r.premeasureTail()
	r.installing = true
	r.body.Objects = []fyne.CanvasObject{r.list}
	r.body.Refresh()
	r.installing = false
	t.find.reset()
}
