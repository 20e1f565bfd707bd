package app

import (
	"context"
	"errors"
	"fmt"
	"log"

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
	tr := pw.mv.Transcript()
	tr.ShowLoading(fmt.Sprintf("Loading S%d…", ref.ID))
	pw.wg.Go(func() {
		pw.loadSession(ref, gen)
		fyne.Do(func() { // a load that failed, or was overtaken, shows nothing
			pw.mu.Lock()
			latest := pw.loadGen == gen
			pw.mu.Unlock()
			if latest {
				tr.HideLoading()
			}
		})
	})
}

// A session of tailFirstEvents events or more is shown from its end: the
// newest windowEvents first, earlier ones in batches of windowEvents as the
// user asks for them (views.Transcript.SetSessionTail). The newest rows of a
// 50,000-event session load in a few milliseconds, and the window holds a
// few megabytes of it rather than a hundred.
const (
	tailFirstEvents = 5_000
	windowEvents    = 2_000
)

// loadSession reads a session and shows it, unless the user has switched
// to another session meanwhile. A long one is shown from its end (see
// tailFirstEvents).
func (pw *projectWindow) loadSession(ref views.SessionRef, gen int) {
	st, err := pw.store(ref.StorePath)
	if err != nil {
		pw.showError("open store", err)
		return
	}
	s, err := st.GetSession(pw.ctx, ref.ID)
	if errors.Is(err, store.ErrNotFound) {
		pw.sessionGone(st, ref, gen)
		return
	}
	if err != nil {
		pw.showError("open session", err)
		return
	}
	var (
		events  []store.StoredEvent
		earlier int
	)
	if s.EventCount >= tailFirstEvents {
		events, earlier, err = loadBefore(pw.ctx, st, ref.ID, 0, false)
	} else {
		events, err = st.LoadEvents(pw.ctx, ref.ID)
	}
	if err != nil {
		pw.showError("load session", err)
		return
	}
	comps, err := st.Compactions(pw.ctx, ref.ID)
	if err != nil {
		pw.showError("load compactions", err)
		return
	}
	full, err := st.FullTexts(pw.ctx, ref.ID)
	if err != nil {
		pw.showError("load full tool output", err)
		return
	}
	fullText := make(map[int64]string, len(full))
	for seq, f := range full {
		fullText[seq] = f.Text
	}
	origin := pw.forkOrigin(st, ref)
	parent := pw.parentName(st, ref.ID)
	model := agents.SessionModel(events)
	if earlier > 0 {
		if model, err = agents.StoredSessionModel(pw.ctx, st, ref.ID); err != nil {
			pw.showError("load session", err)
			return
		}
	}
	pw.mu.Lock()
	if gen != pw.loadGen {
		pw.mu.Unlock()
		return
	}
	pw.current, pw.lastSeq, pw.compCount = ref, lastSeqOf(events), len(comps)
	pw.firstSeq = firstSeqOf(events)
	pw.currentChars = s.CharsSinceCompaction
	running := pw.runs[ref] != nil
	focus := pw.focusPrompt == ref
	pw.focusPrompt = views.SessionRef{}
	pw.mu.Unlock()
	fyne.Do(func() {
		pw.clearStaleStatus(ref)
		pw.mv.ShowSession(ref, s, events, comps, earlier)
		pw.mv.SetForkOrigin(origin)
		pw.mv.Transcript().SetFullText(fullText)
		pw.mv.SetParentLink(parent)
		pw.showPendingEvent(ref)
		pw.mv.PromptBox().SetSession(ref, !pw.readOnly, model)
		pw.mv.PromptBox().SetRunning(running)
		if focus {
			pw.mv.PromptBox().Focus(pw.win.Canvas())
		}
	})
	pw.showSessionUsage(ref)
	pw.updateBanner()
	if !running && s.CharsSinceCompaction >= store.CompactionThreshold {
		pw.requestCompaction(ref, "on load", false, s.CharsSinceCompaction, model)
	}
}

// sessionGone handles a session to show that no longer exists (deleted,
// here or by another program, e.g. the one remembered from the last run):
// no error, the newest session of its store is shown instead, or none.
func (pw *projectWindow) sessionGone(st *store.Store, ref views.SessionRef, gen int) {
	list, _, err := st.ListSessionsQuick(pw.ctx, "")
	if err != nil {
		log.Printf("list sessions after S%d was gone: %v", ref.ID, err)
	}
	pw.mu.Lock()
	latest := gen == pw.loadGen
	pw.mu.Unlock()
	if !latest {
		return
	}
	fyne.Do(func() {
		if len(list) > 0 {
			pw.SelectSession(views.SessionRef{StorePath: ref.StorePath, ID: list[0].ID})
			return
		}
		pw.ui.forgetSession()
		pw.mu.Lock()
		pw.current = views.SessionRef{}
		pw.mu.Unlock()
		pw.mv.ClearSession()
	})
}

// parentName is the display name of the session that started sub-agent
// session id, "" when id is no sub-agent's (or the link cannot be read:
// the session is shown without it).
func (pw *projectWindow) parentName(st *store.Store, id int64) string {
	link, ok, err := st.SubagentParent(pw.ctx, id)
	if err != nil || !ok {
		if err != nil {
			log.Printf("sub-agent link of S%d: %v", id, err)
		}
		return ""
	}
	p, err := st.GetSession(pw.ctx, link.ParentID)
	if err != nil {
		return ""
	}
	return p.DisplayName()
}

// OpenSubagent opens the session holding the work of the sub-agent that
// parent's call toolUseID started.
func (pw *projectWindow) OpenSubagent(parent views.SessionRef, toolUseID string) {
	pw.wg.Go(func() {
		st, err := pw.store(parent.StorePath)
		if err != nil {
			pw.showError("open sub-agent", err)
			return
		}
		id, ok, err := st.SubagentSession(pw.ctx, parent.ID, toolUseID)
		switch {
		case err != nil:
			pw.showError("open sub-agent", err)
		case !ok:
			pw.setStatus(parent, "No session holds this sub-agent's work: it was stored before Lazuli kept sub-agents, or its transcript did not carry them.", false)
		default:
			pw.SelectSession(views.SessionRef{StorePath: parent.StorePath, ID: id})
		}
	})
}

// OpenParent opens the session whose sub-agent's work ref holds.
func (pw *projectWindow) OpenParent(ref views.SessionRef) {
	pw.wg.Go(func() {
		st, err := pw.store(ref.StorePath)
		if err != nil {
			pw.showError("open parent session", err)
			return
		}
		link, ok, err := st.SubagentParent(pw.ctx, ref.ID)
		switch {
		case err != nil:
			pw.showError("open parent session", err)
		case ok:
			pw.SelectSession(views.SessionRef{StorePath: ref.StorePath, ID: link.ParentID})
		}
	})
}

// loadBefore loads the session's events before seq beforeSeq (beforeSeq
// ≤ 0: to its end): the last windowEvents of them, or all with all set.
// earlier is how many events come before those loaded.
func loadBefore(ctx context.Context, st *store.Store, id, beforeSeq int64, all bool) (_ []store.StoredEvent, earlier int, _ error) {
	var from int64
	if !all {
		var err error
		if from, earlier, err = st.TailStart(ctx, id, beforeSeq, windowEvents); err != nil {
			return nil, 0, err
		}
		if from <= 0 { // no bound, or seqs a damaged file numbered from 0 or below
			from, earlier = 0, 0
		}
	}
	to := beforeSeq - 1
	if beforeSeq <= 0 {
		to = 0 // no bound
	} else if to <= 0 {
		return nil, 0, nil // nothing before the first possible seq
	}
	events, err := st.LoadEventsRange(ctx, id, from, to)
	return events, earlier, err
}

// LoadEarlier loads the next batch of ref's earlier events (or all of them)
// and adds them above those shown.
func (pw *projectWindow) LoadEarlier(ref views.SessionRef, all bool) {
	pw.mu.Lock()
	gen, first, shown := pw.loadGen, pw.firstSeq, pw.current == ref
	pw.mu.Unlock()
	if !shown {
		return
	}
	pw.wg.Go(func() {
		pw.prependEarlier(ref, gen, first, func(st *store.Store) ([]store.StoredEvent, int, error) {
			return loadBefore(pw.ctx, st, ref.ID, first, all)
		}, nil)
	})
}

// loadFrom loads the session's events from seq from to before seq
// beforeSeq, and says how many come before them.
func loadFrom(ctx context.Context, st *store.Store, id, from, beforeSeq int64) (_ []store.StoredEvent, earlier int, _ error) {
	// The last event before from, and the count before that one.
	last, before, err := st.TailStart(ctx, id, from, 1)
	if err != nil {
		return nil, 0, err
	}
	if last > 0 {
		earlier = before + 1
	}
	if beforeSeq-1 < from {
		return nil, earlier, nil
	}
	events, err := st.LoadEventsRange(ctx, id, max(from, 1), beforeSeq-1)
	return events, earlier, err
}

// prependEarlier loads events of ref from before seq first with load and
// shows them above those shown, then runs then on the Fyne goroutine.
func (pw *projectWindow) prependEarlier(ref views.SessionRef, gen int, first int64,
	load func(*store.Store) ([]store.StoredEvent, int, error), then func()) {
	st, err := pw.store(ref.StorePath)
	if err != nil {
		pw.showError("open store", err)
		return
	}
	events, earlier, err := load(st)
	if err != nil {
		pw.showError("load earlier events", err)
		fyne.Do(func() { pw.mv.Transcript().PrependEvents(nil, pw.mv.Transcript().Earlier()) }) // enable the buttons again
		return
	}
	pw.mu.Lock()
	if gen != pw.loadGen || pw.current != ref || pw.firstSeq != first {
		pw.mu.Unlock()
		return // another session, or these were loaded meanwhile
	}
	if len(events) > 0 {
		pw.firstSeq = events[0].Seq
	}
	pw.mu.Unlock()
	fyne.Do(func() {
		pw.mv.Transcript().PrependEvents(events, earlier)
		if then != nil {
			then()
		}
	})
}

func firstSeqOf(events []store.StoredEvent) int64 {
	if len(events) == 0 {
		return 0
	}
	return events[0].Seq
}

func lastSeqOf(events []store.StoredEvent) int64 {
	if len(events) == 0 {
		return 0
	}
	return events[len(events)-1].Seq
}

// NewSession shows a new session of worktree in the store at storePath,
// ready for its first prompt. Nothing is stored yet: the session is created
// when the agent of its first prompt has started (SendPrompt), so a prompt
// that cannot be sent leaves no empty session behind.
func (pw *projectWindow) NewSession(storePath, worktree string) {
	if pw.readOnly {
		pw.showError("new session", errReadOnly)
		return
	}
	ref := views.SessionRef{StorePath: storePath}
	pw.mu.Lock()
	pw.loadGen++ // a session still loading is not shown over it
	pw.current, pw.lastSeq, pw.firstSeq, pw.compCount, pw.currentChars = ref, 0, 0, 0, 0
	pw.newWorktree = worktree
	running := pw.runs[ref] != nil
	pw.mu.Unlock()
	pw.clearStaleStatus(ref)
	pw.mv.ShowNewSession(ref, worktree)
	pw.mv.PromptBox().SetRunning(running)
	pw.mv.PromptBox().Focus(pw.win.Canvas())
	pw.updateBanner()
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
	pw.wg.Go(func() {
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
