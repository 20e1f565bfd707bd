package app

// This file implements the intents of a session's lifecycle
// (views.LifecycleActions) and feeds the views what they show of it: forks
// under their parent in the sidebar, and the header's link back.

import (
	"context"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// ForkSession forks ref before its prompt at atSeq (store.ForkService.Create), shows the
// fork and places prompt, that prompt's text, in its prompt box.
func (sh *shownSession) ForkSession(ref views.SessionRef, atSeq int64, prompt string) {
	if sh.pw.readOnly {
		sh.pw.showError("fork session", errReadOnly)
		return
	}
	sh.pw.wg.Go(func() {
		st, err := sh.pw.store(ref.StorePath)
		if err != nil {
			sh.pw.showError("open store", err)
			return
		}
		f, err := st.Forks().Create(sh.pw.ctx, ref.ID, atSeq, "")
		if err != nil {
			sh.pw.showError("fork session", err)
			return
		}
		// One goroutine, in order: the list, then the fork's transcript.
		sh.pw.list.refreshList()
		fork := views.SessionRef{StorePath: ref.StorePath, ID: f.ID}
		sh.mu.Lock()
		sh.loadGen++
		gen := sh.loadGen
		sh.focusPrompt = fork
		sh.mu.Unlock()
		sh.pw.ui.rememberSession(fork)
		onUI(func() { sh.pw.mv.PromptBox().SetDraft(fork, prompt) })
		sh.loadSession(fork, gen)
	})
}

// markLifecycle sets each group's Forks, Pinned and Archived from its
// store's fork links and marks, and leaves out archived sessions unless
// the user asked to see them. A store whose links or marks cannot be read
// is shown without them, and the error is reported.
func (sl *sessionList) markLifecycle(groups []views.WorktreeGroup) {
	type marks struct {
		forks map[int64]store.ForkLink
		flags map[int64]store.Flags
	}
	sl.mu.Lock()
	show := sl.showArchived
	sl.mu.Unlock()
	byStore := map[string]marks{}
	for i := range groups {
		g := &groups[i]
		m, ok := byStore[g.StorePath]
		if !ok {
			st, err := sl.pw.store(g.StorePath)
			if err == nil {
				m.forks, err = st.Forks().All(sl.pw.ctx)
			}
			if err == nil {
				m.flags, err = st.Flags().All(sl.pw.ctx)
			}
			if err != nil {
				sl.pw.showError("read session marks", err)
			}
			byStore[g.StorePath] = m
		}
		if len(m.forks) == 0 && len(m.flags) == 0 {
			continue
		}
		g.Forks, g.Pinned, g.Archived = map[int64]int64{}, map[int64]bool{}, map[int64]bool{}
		kept := g.Sessions[:0:0]
		for _, s := range g.Sessions {
			f := m.flags[s.ID]
			if f.Archived() && !show {
				continue
			}
			kept = append(kept, s)
			if link, ok := m.forks[s.ID]; ok {
				g.Forks[s.ID] = link.ParentID
			}
			if f.Pinned() {
				g.Pinned[s.ID] = true
			}
			if f.Archived() {
				g.Archived[s.ID] = true
			}
		}
		g.Sessions = kept
	}
}

// lifecycleMenuItems are the Session menu's Pin, Archive and Show archived
// items. Pin and Archive toggle the mark of the session shown.
func (sl *sessionList) lifecycleMenuItems() []*fyne.MenuItem {
	show := &fyne.MenuItem{Label: "Show archived sessions"}
	show.Action = func() {
		sl.mu.Lock()
		sl.showArchived = !sl.showArchived
		show.Checked = sl.showArchived
		sl.mu.Unlock()
		if m := sl.pw.win.MainMenu(); m != nil {
			m.Refresh()
		}
		sl.refresh()
	}
	return []*fyne.MenuItem{
		{Label: "Pin or unpin session", Action: func() { sl.toggleMark("pin session", store.Flags.Pinned, store.FlagService.SetPinned, nil) }},
		{Label: "Archive or unarchive session", Action: func() {
			sl.toggleMark("archive session", store.Flags.Archived, store.FlagService.SetArchived, sl.archived)
		}},
		show,
	}
}

// markSetter writes one mark of a session.
type markSetter func(store.FlagService, context.Context, int64, bool) error

// toggleMark flips one mark of the session shown: is reads it, set
// writes it; then done, if any, is told the mark's new value.
func (sl *sessionList) toggleMark(what string, is func(store.Flags) bool, set markSetter, done func(views.SessionRef, bool)) {
	ref := sl.pw.shown.ref()
	if ref.ID == 0 {
		return
	}
	sl.setMark(what, ref, func(f store.Flags) bool { return !is(f) }, set, done)
}

// setMark writes one mark of ref, to the value to gives its flags, off the
// Fyne goroutine, then refreshes the list and tells done.
func (sl *sessionList) setMark(what string, ref views.SessionRef, to func(store.Flags) bool, set markSetter, done func(views.SessionRef, bool)) {
	if sl.pw.readOnly {
		sl.pw.showError(what, errReadOnly)
		return
	}
	sl.pw.wg.Go(func() {
		st, err := sl.pw.store(ref.StorePath)
		var flags map[int64]store.Flags
		if err == nil {
			flags, err = st.Flags().All(sl.pw.ctx)
		}
		on := to(flags[ref.ID])
		if err == nil {
			err = set(st.Flags(), sl.pw.ctx, ref.ID, on)
		}
		if err != nil {
			sl.pw.showError(what, err)
			return
		}
		sl.refreshList()
		if done != nil {
			done(ref, on)
		}
	})
}

// ArchiveSession sets or clears ref's archived mark (the header's
// Unarchive, the status's Undo).
func (sl *sessionList) ArchiveSession(ref views.SessionRef, archived bool) {
	if ref.ID == 0 {
		return
	}
	what := "archive session"
	if !archived {
		what = "unarchive session"
	}
	sl.setMark(what, ref, func(store.Flags) bool { return archived }, store.FlagService.SetArchived, sl.archived)
}

// archived shows ref's new archived mark: in the header while it is shown
// (an archived session stays open, marked, though the sidebar may no
// longer list it), and in the status, with Undo after archiving.
func (sl *sessionList) archived(ref views.SessionRef, on bool) {
	name := store.DisplayName(ref.ID, "")
	sl.pw.status.setRef(ref)
	onUI(func() {
		sl.pw.mv.Archive().Set(ref, on)
		if on {
			sl.pw.mv.PromptBox().SetStatusAction("Archived "+name, "Undo", func() { sl.ArchiveSession(ref, false) })
		} else {
			sl.pw.mv.PromptBox().SetStatus("Unarchived "+name, false)
		}
	})
}

// showArchiveMark marks ref in the header when it is archived; it runs
// off the Fyne goroutine after ref is shown. An unreadable mark is shown
// as none (the list reports the error).
func (sl *sessionList) showArchiveMark(ref views.SessionRef) {
	st, err := sl.pw.store(ref.StorePath)
	if err != nil {
		return
	}
	flags, err := st.Flags().All(sl.pw.ctx)
	if err != nil {
		return
	}
	on := flags[ref.ID].Archived()
	onUI(func() { sl.pw.mv.Archive().Set(ref, on) })
}

// forkOrigin returns where ref was forked from; a zero origin when it is
// not a fork, its parent is gone, or the links cannot be read (the header
// then shows no link; the error is reported).
func (sh *shownSession) forkOrigin(st *store.Store, ref views.SessionRef) views.ForkOrigin {
	links, err := st.Forks().All(sh.pw.ctx)
	if err != nil {
		sh.pw.showError("read forks", err)
		return views.ForkOrigin{}
	}
	l, ok := links[ref.ID]
	if !ok {
		return views.ForkOrigin{}
	}
	parent, err := st.Sessions().Get(sh.pw.ctx, l.ParentID)
	if err != nil {
		sh.pw.showError("read forks", err)
		return views.ForkOrigin{}
	}
	return views.ForkOrigin{Parent: views.SessionRef{StorePath: ref.StorePath, ID: l.ParentID},
		ParentName: parent.DisplayName(), ParentSeq: l.ParentSeq}
}
