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

// ForkSession forks ref before its prompt at atSeq (store.Fork), shows the
// fork and places prompt, that prompt's text, in its prompt box.
func (pw *projectWindow) ForkSession(ref views.SessionRef, atSeq int64, prompt string) {
	if pw.readOnly {
		pw.showError("fork session", errReadOnly)
		return
	}
	pw.wg.Go(func() {
		st, err := pw.store(ref.StorePath)
		if err != nil {
			pw.showError("open store", err)
			return
		}
		f, err := st.Fork(pw.ctx, ref.ID, atSeq, "")
		if err != nil {
			pw.showError("fork session", err)
			return
		}
		// One goroutine, in order: the list, then the fork's transcript.
		pw.refreshList()
		fork := views.SessionRef{StorePath: ref.StorePath, ID: f.ID}
		pw.mu.Lock()
		pw.loadGen++
		gen := pw.loadGen
		pw.focusPrompt = fork
		pw.mu.Unlock()
		pw.ui.rememberSession(fork)
		fyne.Do(func() { pw.mv.PromptBox().SetDraft(fork, prompt) })
		pw.loadSession(fork, gen)
	})
}

// markLifecycle sets each group's Forks, Pinned and Archived from its
// store's fork links and marks, and leaves out archived sessions unless
// the user asked to see them. A store whose links or marks cannot be read
// is shown without them, and the error is reported.
func (pw *projectWindow) markLifecycle(groups []views.WorktreeGroup) {
	type marks struct {
		forks map[int64]store.ForkLink
		flags map[int64]store.Flags
	}
	pw.mu.Lock()
	show := pw.showArchived
	pw.mu.Unlock()
	byStore := map[string]marks{}
	for i := range groups {
		g := &groups[i]
		m, ok := byStore[g.StorePath]
		if !ok {
			st, err := pw.store(g.StorePath)
			if err == nil {
				m.forks, err = st.Forks(pw.ctx)
			}
			if err == nil {
				m.flags, err = st.SessionFlags(pw.ctx)
			}
			if err != nil {
				pw.showError("read session marks", err)
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
func (pw *projectWindow) lifecycleMenuItems() []*fyne.MenuItem {
	show := &fyne.MenuItem{Label: "Show archived sessions"}
	show.Action = func() {
		pw.mu.Lock()
		pw.showArchived = !pw.showArchived
		show.Checked = pw.showArchived
		pw.mu.Unlock()
		if m := pw.win.MainMenu(); m != nil {
			m.Refresh()
		}
		pw.refresh()
	}
	return []*fyne.MenuItem{
		{Label: "Pin or unpin session", Action: func() { pw.toggleMark("pin session", store.Flags.Pinned, (*store.Store).SetPinned) }},
		{Label: "Archive or unarchive session", Action: func() {
			pw.toggleMark("archive session", store.Flags.Archived, (*store.Store).SetArchived)
		}},
		show,
	}
}

// toggleMark flips one mark of the session shown: is reads it, set
// writes it.
func (pw *projectWindow) toggleMark(what string, is func(store.Flags) bool, set func(*store.Store, context.Context, int64, bool) error) {
	pw.mu.Lock()
	ref := pw.current
	pw.mu.Unlock()
	if ref.ID == 0 {
		return
	}
	if pw.readOnly {
		pw.showError(what, errReadOnly)
		return
	}
	pw.wg.Go(func() {
		st, err := pw.store(ref.StorePath)
		var flags map[int64]store.Flags
		if err == nil {
			flags, err = st.SessionFlags(pw.ctx)
		}
		if err == nil {
			err = set(st, pw.ctx, ref.ID, !is(flags[ref.ID]))
		}
		if err != nil {
			pw.showError(what, err)
			return
		}
		pw.refreshList() // the header shows neither mark: nothing else to show
	})
}

// forkOrigin returns where ref was forked from; a zero origin when it is
// not a fork, its parent is gone, or the links cannot be read (the header
// then shows no link; the error is reported).
func (pw *projectWindow) forkOrigin(st *store.Store, ref views.SessionRef) views.ForkOrigin {
	links, err := st.Forks(pw.ctx)
	if err != nil {
		pw.showError("read forks", err)
		return views.ForkOrigin{}
	}
	l, ok := links[ref.ID]
	if !ok {
		return views.ForkOrigin{}
	}
	parent, err := st.GetSession(pw.ctx, l.ParentID)
	if err != nil {
		pw.showError("read forks", err)
		return views.ForkOrigin{}
	}
	return views.ForkOrigin{Parent: views.SessionRef{StorePath: ref.StorePath, ID: l.ParentID},
		ParentName: parent.DisplayName(), ParentSeq: l.ParentSeq}
}
