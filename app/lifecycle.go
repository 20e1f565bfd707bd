package app

// This file implements the intents of a session's lifecycle
// (views.LifecycleActions) and feeds the views what they show of it: forks
// under their parent in the sidebar, and the header's link back.

import (
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
	pw.go_(func() {
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
		pw.refresh()
		fork := views.SessionRef{StorePath: ref.StorePath, ID: f.ID}
		pw.mu.Lock()
		pw.focusPrompt = fork
		pw.mu.Unlock()
		fyne.Do(func() {
			pw.mv.PromptBox().SetDraft(fork, prompt)
			pw.SelectSession(fork)
		})
	})
}

// markForks sets each group's Forks from its store's fork links, so the
// sidebar lists forks under their parent. A store whose links cannot be
// read is shown without them, and the error is reported.
func (pw *projectWindow) markForks(groups []views.WorktreeGroup) {
	links := map[string]map[int64]store.ForkLink{}
	for i := range groups {
		path := groups[i].StorePath
		l, ok := links[path]
		if !ok {
			st, err := pw.store(path)
			if err == nil {
				l, err = st.Forks(pw.ctx)
			}
			if err != nil {
				pw.showError("read forks", err)
			}
			links[path] = l
		}
		if len(l) == 0 {
			continue
		}
		forks := map[int64]int64{}
		for _, s := range groups[i].Sessions {
			if link, ok := l[s.ID]; ok {
				forks[s.ID] = link.ParentID
			}
		}
		groups[i].Forks = forks
	}
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
