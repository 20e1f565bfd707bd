package app

import (
	"errors"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// errReadOnly is shown when a read-only window is asked to write.
var errReadOnly = errors.New("this store is open read-only; merge it into your project to change it")

// SelectSession loads ref and shows it.
func (pw *projectWindow) SelectSession(ref views.SessionRef) {
	pw.mu.Lock()
	pw.loadGen++
	gen := pw.loadGen
	pw.mu.Unlock()
	pw.ui.rememberSession(ref)
	pw.go_(func() { pw.loadSession(ref, gen) })
}

// tailFirstEvents is the session size from which loadSession shows the
// newest tailRows rows first and the whole session when it is decoded: the
// newest rows of a 50,000-event session take a few milliseconds, the whole
// session a few hundred on a 1 GB store.
const (
	tailFirstEvents = 5_000
	tailRows        = 1_000
)

// loadSession reads a whole session and shows it, unless the user has
// switched to another session meanwhile. A big session shows its newest
// rows first (see tailFirstEvents).
func (pw *projectWindow) loadSession(ref views.SessionRef, gen int) {
	st, err := pw.store(ref.StorePath)
	if err != nil {
		pw.showError("open store", err)
		return
	}
	s, err := st.GetSession(pw.ctx, ref.ID)
	if err != nil {
		pw.showError("open session", err)
		return
	}
	if s.EventCount >= tailFirstEvents {
		pw.showTail(st, ref, s, gen)
	}
	events, err := st.LoadEvents(pw.ctx, ref.ID)
	if err != nil {
		pw.showError("load session", err)
		return
	}
	comps, err := st.Compactions(pw.ctx, ref.ID)
	if err != nil {
		pw.showError("load compactions", err)
		return
	}
	pw.mu.Lock()
	if gen != pw.loadGen {
		pw.mu.Unlock()
		return
	}
	pw.current, pw.lastSeq, pw.compCount = ref, lastSeqOf(events), len(comps)
	pw.currentChars = s.CharsSinceCompaction
	running := pw.runs[ref] != nil
	focus := pw.focusPrompt == ref
	pw.focusPrompt = views.SessionRef{}
	pw.mu.Unlock()
	model := agents.SessionModel(events)
	fyne.Do(func() {
		pw.mv.ShowSession(ref, s, events, comps)
		pw.showPendingEvent(ref)
		pw.mv.PromptBox().SetSession(ref, !pw.readOnly, model)
		pw.mv.PromptBox().SetRunning(running)
		if focus {
			pw.mv.PromptBox().Focus(pw.win.Canvas())
		}
	})
	pw.updateBanner()
	if !running && s.CharsSinceCompaction >= store.CompactionThreshold {
		pw.requestCompaction(ref, "on load", false, s.CharsSinceCompaction, model)
	}
}

// showTail shows the newest rows of a big session while the whole session
// loads. The rows are only shown: the window's bookkeeping (current
// session, last seq, prompt box) follows the whole load. Errors are left to
// the whole load, which reports them.
func (pw *projectWindow) showTail(st *store.Store, ref views.SessionRef, s store.Session, gen int) {
	from := max(s.EventCount-tailRows+1, 1) // seqs are dense in AZUREAL's format; a gap only shows more or fewer rows
	events, err := st.LoadEventsRange(pw.ctx, ref.ID, from, 0)
	if err != nil || len(events) == 0 {
		return
	}
	comps, err := st.Compactions(pw.ctx, ref.ID)
	if err != nil {
		return
	}
	pw.mu.Lock()
	current := gen == pw.loadGen
	pw.mu.Unlock()
	if current {
		fyne.Do(func() { pw.mv.ShowSession(ref, s, events, comps) })
	}
}

func lastSeqOf(events []store.StoredEvent) int64 {
	if len(events) == 0 {
		return 0
	}
	return events[len(events)-1].Seq
}

// NewSession creates an unnamed session (shown as S{id}) and selects it.
func (pw *projectWindow) NewSession(storePath, worktree string) {
	if pw.readOnly {
		pw.showError("new session", errReadOnly)
		return
	}
	pw.go_(func() {
		st, err := pw.store(storePath)
		if err != nil {
			pw.showError("open store", err)
			return
		}
		s, err := st.CreateSession(pw.ctx, worktree, "")
		if err != nil {
			pw.showError("create session", err)
			return
		}
		pw.refresh()
		ref := views.SessionRef{StorePath: storePath, ID: s.ID}
		pw.mu.Lock()
		pw.focusPrompt = ref
		pw.mu.Unlock()
		fyne.Do(func() { pw.SelectSession(ref) })
	})
}

// RenameSession renames ref.
func (pw *projectWindow) RenameSession(ref views.SessionRef, name string) {
	pw.write("rename session", func(st *store.Store) error {
		return st.RenameSession(pw.ctx, ref.ID, name)
	}, ref)
}

// DeleteSession deletes ref with its events and compactions.
func (pw *projectWindow) DeleteSession(ref views.SessionRef) {
	pw.write("delete session", func(st *store.Store) error {
		if err := st.DeleteSession(pw.ctx, ref.ID); err != nil {
			return err
		}
		pw.mu.Lock()
		shown := pw.current == ref
		if shown {
			pw.current, pw.lastSeq = views.SessionRef{}, 0
		}
		pw.mu.Unlock()
		if shown {
			fyne.Do(pw.mv.ClearSession)
		}
		return nil
	}, ref)
}

// write runs a write against ref's store in the background, then refreshes.
func (pw *projectWindow) write(what string, fn func(*store.Store) error, ref views.SessionRef) {
	if pw.readOnly {
		pw.showError(what, errReadOnly)
		return
	}
	pw.go_(func() {
		st, err := pw.store(ref.StorePath)
		if err == nil {
			err = fn(st)
		}
		if err != nil {
			pw.showError(what, err)
			return
		}
		pw.refresh()
		pw.reloadCurrentHeader(ref)
	})
}

// reloadCurrentHeader re-shows the current session if ref is it (its name
// may have changed).
func (pw *projectWindow) reloadCurrentHeader(ref views.SessionRef) {
	pw.mu.Lock()
	shown := pw.current == ref
	pw.mu.Unlock()
	if shown {
		fyne.Do(func() { pw.SelectSession(ref) })
	}
}
