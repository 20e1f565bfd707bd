package app

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/trace"
	"github.com/lazuli-app/lazuli/views"
)

// errReadOnly is shown when a read-only window is asked to write.
var errReadOnly = errors.New("this store is open read-only; merge it into your project to change it")

// shownSession owns the session shown in the transcript: which it is, how
// far it is loaded, its header (fork and parent links, usage), following
// its new events, and navigating to a session or an event (sub-agents,
// search hits, deep links, forks).
type shownSession struct {
	pw *projectWindow

	mu           sync.Mutex
	current      views.SessionRef // the session shown
	lastSeq      int64            // the last seq shown of current
	firstSeq     int64            // the first seq shown of current (earlier ones load on request)
	compCount    int              // compactions shown of current
	loadGen      int              // bumps on every session switch
	currentChars int64            // context characters of current
	focusPrompt  views.SessionRef // a new session whose prompt box gets the focus
	showEvent    *eventTarget     // the event a search hit shows once its session is loaded
	heads        shownHeads       // the last sessions' headers, for showKept (Fyne goroutine only)
	// newWorktree is the worktree of the new session shown (current has id
	// 0, see NewSession): it is stored when its first prompt's agent starts.
	newWorktree string
}

// ref returns the session shown; its ID is 0 when none is.
func (sh *shownSession) ref() views.SessionRef {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.current
}

// refAndChars returns the session shown and its context characters.
func (sh *shownSession) refAndChars() (views.SessionRef, int64) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.current, sh.currentChars
}

// forget stops showing ref, when it is shown, and reports whether it was.
func (sh *shownSession) forget(ref views.SessionRef) bool {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.current != ref {
		return false
	}
	sh.current, sh.lastSeq = views.SessionRef{}, 0
	return true
}

// SelectSession loads ref and shows it.
func (sh *shownSession) SelectSession(ref views.SessionRef) {
	sh.mu.Lock()
	sh.loadGen++
	gen := sh.loadGen
	sh.mu.Unlock()
	tr := sh.pw.mv.Transcript()
	switch {
	case ref.IsTeam():
		tr.Loader().Show(fmt.Sprintf("Loading team session %d…", ref.ID))
	case sh.showKept(ref):
		sh.pw.ui.rememberSession(ref) // shown from the rows kept laid out; the load below confirms them
	default:
		sh.pw.ui.rememberSession(ref)
		tr.Loader().Show(fmt.Sprintf("Loading S%d…", ref.ID))
	}
	sh.pw.wg.Go(func() {
		if ref.IsTeam() {
			sh.pw.team.show(ref, gen)
		} else {
			sh.loadSession(ref, gen)
		}
		onUI(func() { // a load that failed, or was overtaken, shows nothing
			sh.mu.Lock()
			latest := sh.loadGen == gen
			sh.mu.Unlock()
			if latest {
				tr.Loader().Hide()
				sh.pw.mv.Backdrop().Thaw() // frozen when a search hit was opened
			}
		})
	})
}

// showKept shows session ref at once, from the rows the transcript kept
// laid out and the header its last load gave, when both are at hand: going
// back to a session left moments ago then waits for no load, nor for the
// frame the click painted meanwhile. The load SelectSession starts anyway
// confirms it (the same events change nothing) or brings what changed.
func (sh *shownSession) showKept(ref views.SessionRef) bool {
	tr := sh.pw.mv.Transcript()
	k, ok := tr.Kept(ref)
	head, known := sh.heads.get(ref)
	if !ok || !known || sh.pendingSeq(ref) > 0 {
		return false // a search hit is shown from its load, laid out at the hit
	}
	sh.mu.Lock()
	sh.current, sh.lastSeq, sh.compCount = ref, lastSeqOf(k.Events), len(k.Compactions)
	sh.firstSeq = firstSeqOf(k.Events)
	sh.currentChars = k.Session.CharsSinceCompaction
	sh.mu.Unlock()
	trace.Markf("stage", "kept S%d", ref.ID)
	sh.pw.mv.ShowSession(ref, k.Session, k.Events, k.Compactions, k.Earlier)
	sh.pw.mv.SetForkOrigin(head.origin)
	sh.pw.mv.Header().SetParentLink(head.parent)
	tr.TraceSettled(fmt.Sprintf("show S%d", ref.ID))
	sh.pw.mv.PromptBox().SetSession(ref, !sh.pw.readOnly, head.model)
	sh.pw.mv.PromptBox().SetRunning(sh.pw.runner.isRunning(ref))
	return true
}

// shownHead is what a session's load gave its header and prompt box.
type shownHead struct {
	origin views.ForkOrigin
	parent string // the parent's name, for a sub-agent's session
	model  string
}

// shownHeads keeps the last sessions' shownHead, for showKept; only on
// the Fyne goroutine.
type shownHeads struct {
	m     map[views.SessionRef]shownHead
	order []views.SessionRef // the oldest first
}

// heldHeads is how many sessions' heads are kept: more than the
// transcript keeps laid out.
const heldHeads = 8

func (h *shownHeads) put(ref views.SessionRef, head shownHead) {
	if h.m == nil {
		h.m = map[views.SessionRef]shownHead{}
	}
	if _, ok := h.m[ref]; !ok {
		h.order = append(h.order, ref)
	}
	h.m[ref] = head
	for len(h.order) > heldHeads {
		delete(h.m, h.order[0])
		h.order = h.order[1:]
	}
}

func (h *shownHeads) get(ref views.SessionRef) (shownHead, bool) {
	head, ok := h.m[ref]
	return head, ok
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
func (sh *shownSession) loadSession(ref views.SessionRef, gen int) {
	st, err := sh.pw.store(ref.StorePath)
	if err != nil {
		sh.pw.showError("open store", err)
		return
	}
	s, err := st.Sessions().Get(sh.pw.ctx, ref.ID)
	if errors.Is(err, store.ErrNotFound) {
		sh.sessionGone(st, ref, gen)
		return
	}
	if err != nil {
		sh.pw.showError("open session", err)
		return
	}
	var (
		events  []store.StoredEvent
		earlier int
	)
	if s.EventCount >= tailFirstEvents {
		var fromHit bool
		if seq := sh.pendingSeq(ref); seq > 0 {
			events, earlier, fromHit, err = loadFromHit(sh.pw.ctx, st, ref.ID, seq)
		}
		if !fromHit && err == nil {
			events, earlier, err = loadBefore(sh.pw.ctx, st, ref.ID, 0, false)
		}
	} else {
		events, err = loadShown(sh.pw.ctx, st, ref.ID, 0, 0)
	}
	if err != nil {
		sh.pw.showError("load session", err)
		return
	}
	comps, err := st.Compactions().Of(sh.pw.ctx, ref.ID)
	if err != nil {
		sh.pw.showError("load compactions", err)
		return
	}
	full, err := st.FullText().Of(sh.pw.ctx, ref.ID)
	if err != nil {
		sh.pw.showError("load full tool output", err)
		return
	}
	fullText := make(map[int64]string, len(full))
	for seq, f := range full {
		fullText[seq] = f.Text
	}
	origin := sh.forkOrigin(st, ref)
	parent := sh.parentName(st, ref.ID)
	head := shownHead{origin: origin, parent: parent}
	var model string
	if earlier > 0 { // the model may be set before the events shown
		model, err = agents.StoredSessionModel(sh.pw.ctx, st, ref.ID)
	} else {
		model, err = agents.WithUsageBackend(sh.pw.ctx, st, ref.ID, agents.SessionModel(events))
	}
	if err != nil {
		sh.pw.showError("load session", err)
		return
	}
	sh.mu.Lock()
	if gen != sh.loadGen {
		sh.mu.Unlock()
		return
	}
	sh.current, sh.lastSeq, sh.compCount = ref, lastSeqOf(events), len(comps)
	sh.firstSeq = firstSeqOf(events)
	sh.currentChars = s.CharsSinceCompaction
	focus := sh.focusPrompt == ref
	sh.focusPrompt = views.SessionRef{}
	sh.mu.Unlock()
	running := sh.pw.runner.isRunning(ref)
	trace.Markf("stage", "loaded S%d: %d events", ref.ID, len(events))
	head.model = model
	onUI(func() {
		trace.Markf("stage", "ui S%d", ref.ID)
		sh.heads.put(ref, head)
		sh.pw.status.clearStale(ref)
		sh.expectPendingEvent(ref)
		sh.pw.mv.ShowSession(ref, s, events, comps, earlier)
		trace.Markf("stage", "rows S%d", ref.ID)
		sh.pw.mv.SetForkOrigin(origin)
		sh.pw.mv.Transcript().SetFullText(fullText)
		sh.pw.mv.Header().SetParentLink(parent)
		trace.Markf("stage", "header S%d", ref.ID)
		sh.pw.mv.Transcript().TraceSettled(fmt.Sprintf("show S%d", ref.ID))
		sh.showPendingEvent(ref)
		sh.pw.mv.PromptBox().SetSession(ref, !sh.pw.readOnly, model)
		sh.pw.mv.PromptBox().SetRunning(running)
		if focus {
			sh.pw.mv.PromptBox().Focus(sh.pw.win.Canvas())
		}
	})
	sh.showSessionInsight(ref)
	sh.pw.perms.showMode(ref)
	sh.pw.list.showArchiveMark(ref)
	sh.pw.compact.updateBanner()
	if !running && s.CharsSinceCompaction >= store.CompactionThreshold {
		sh.pw.compact.requestCompaction(ref, "on load", false, s.CharsSinceCompaction, model)
	}
}

// sessionGone handles a session to show that no longer exists (deleted,
// here or by another program, e.g. the one remembered from the last run):
// no error, the newest session of its store is shown instead, or none.
func (sh *shownSession) sessionGone(st *store.Store, ref views.SessionRef, gen int) {
	list, _, err := st.Sessions().ListQuick(sh.pw.ctx, "")
	if err != nil {
		log.Printf("list sessions after S%d was gone: %v", ref.ID, err)
	}
	sh.mu.Lock()
	latest := gen == sh.loadGen
	sh.mu.Unlock()
	if !latest {
		return
	}
	onUI(func() {
		if len(list) > 0 {
			sh.SelectSession(views.SessionRef{StorePath: ref.StorePath, ID: list[0].ID})
			return
		}
		sh.pw.ui.forgetSession()
		sh.mu.Lock()
		sh.current = views.SessionRef{}
		sh.mu.Unlock()
		sh.pw.mv.ClearSession()
	})
}

// NewSession shows a new session of worktree in the store at storePath,
// ready for its first prompt. Nothing is stored yet: the session is created
// when the agent of its first prompt has started (runner.SendPrompt), so a
// prompt that cannot be sent leaves no empty session behind.
func (sh *shownSession) NewSession(storePath, worktree string) {
	if sh.pw.readOnly {
		sh.pw.showError("new session", errReadOnly)
		return
	}
	ref := views.SessionRef{StorePath: storePath}
	sh.mu.Lock()
	sh.loadGen++ // a session still loading is not shown over it
	sh.current, sh.lastSeq, sh.firstSeq, sh.compCount, sh.currentChars = ref, 0, 0, 0, 0
	sh.newWorktree = worktree
	sh.mu.Unlock()
	running := sh.pw.runner.isRunning(ref)
	sh.pw.status.clearStale(ref)
	sh.pw.mv.ShowNewSession(ref, worktree)
	sh.pw.mv.PromptBox().SetRunning(running)
	sh.pw.mv.PromptBox().Focus(sh.pw.win.Canvas())
	sh.pw.compact.updateBanner()
}

// newSessionWorktree is the worktree of the new session shown (see
// NewSession), stored with its first prompt.
func (sh *shownSession) newSessionWorktree() string {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	return sh.newWorktree
}

// stored follows the new session old, stored now as ref by its first run:
// when old is still shown, ref's prompt box gets the focus once shown, and
// stored reports true with the load generation the caller shows ref under
// (loadSession).
func (sh *shownSession) stored(old, ref views.SessionRef) (gen int, shown bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.current != old {
		return 0, false
	}
	sh.focusPrompt = ref
	sh.loadGen++
	return sh.loadGen, true
}

// parentNameRunes is how long the parent's name in a sub-agent's header
// may be, as agents.SubagentName cuts it.
const parentNameRunes = 30

// parentName is the display name of the session that started sub-agent
// session id, shortened as a sub-agent's own name shortens it (the link
// shares the header's row with the title: a long name widened the window
// past 800 px), "" when id is no sub-agent's (or the link cannot be read:
// the session is shown without it).
func (sh *shownSession) parentName(st *store.Store, id int64) string {
	link, ok, err := st.Subagents().Parent(sh.pw.ctx, id)
	if err != nil || !ok {
		if err != nil {
			log.Printf("sub-agent link of S%d: %v", id, err)
		}
		return ""
	}
	p, err := st.Sessions().Get(sh.pw.ctx, link.ParentID)
	if err != nil {
		return ""
	}
	return agents.Shorten(p.DisplayName(), parentNameRunes)
}

// OpenSubagent opens the session holding the work of the sub-agent that
// parent's call toolUseID started.
func (sh *shownSession) OpenSubagent(parent views.SessionRef, toolUseID string) {
	sh.pw.wg.Go(func() {
		st, err := sh.pw.store(parent.StorePath)
		if err != nil {
			sh.pw.showError("open sub-agent", err)
			return
		}
		id, ok, err := st.Subagents().Session(sh.pw.ctx, parent.ID, toolUseID)
		switch {
		case err != nil:
			sh.pw.showError("open sub-agent", err)
		case !ok:
			sh.pw.status.set(parent, "No session holds this sub-agent's work: it was stored before Lazuli kept sub-agents, or its transcript did not carry them.", false)
		default:
			sh.SelectSession(views.SessionRef{StorePath: parent.StorePath, ID: id})
		}
	})
}

// OpenParent opens the session whose sub-agent's work ref holds.
func (sh *shownSession) OpenParent(ref views.SessionRef) {
	sh.pw.wg.Go(func() {
		st, err := sh.pw.store(ref.StorePath)
		if err != nil {
			sh.pw.showError("open parent session", err)
			return
		}
		link, ok, err := st.Subagents().Parent(sh.pw.ctx, ref.ID)
		switch {
		case err != nil:
			sh.pw.showError("open parent session", err)
		case ok:
			sh.SelectSession(views.SessionRef{StorePath: ref.StorePath, ID: link.ParentID})
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
		if from, earlier, err = st.Events().TailStart(ctx, id, beforeSeq, windowEvents); err != nil {
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
	events, err := loadShown(ctx, st, id, from, to)
	return events, earlier, err
}

// LoadEarlier loads the next batch of ref's earlier events (or all of them)
// and adds them above those shown.
func (sh *shownSession) LoadEarlier(ref views.SessionRef, all bool) {
	sh.mu.Lock()
	gen, first, shown := sh.loadGen, sh.firstSeq, sh.current == ref
	sh.mu.Unlock()
	if !shown {
		return
	}
	sh.pw.wg.Go(func() {
		sh.prependEarlier(ref, gen, first, func(st *store.Store) ([]store.StoredEvent, int, error) {
			return loadBefore(sh.pw.ctx, st, ref.ID, first, all)
		}, nil)
	})
}

// loadFrom loads the session's events from seq from to before seq
// beforeSeq (0: to the end), and says how many come before them.
func loadFrom(ctx context.Context, st *store.Store, id, from, beforeSeq int64) (_ []store.StoredEvent, earlier int, _ error) {
	// The last event before from, and the count before that one.
	last, before, err := st.Events().TailStart(ctx, id, from, 1)
	if err != nil {
		return nil, 0, err
	}
	if last > 0 {
		earlier = before + 1
	}
	to := beforeSeq - 1 // beforeSeq 0: no bound
	if beforeSeq > 0 && to < from {
		return nil, earlier, nil
	}
	events, err := loadShown(ctx, st, id, max(from, 1), max(to, 0))
	return events, earlier, err
}

// pendingSeq returns the seq of the event a search hit waits to show in
// ref, or 0.
func (sh *shownSession) pendingSeq(ref views.SessionRef) int64 {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if t := sh.showEvent; t != nil && t.ref == ref {
		return t.seq
	}
	return 0
}

// expectPendingEvent tells the transcript, before a session is shown, the
// event a search hit or a link shows in it next (showPendingEvent): it then
// lays out the rows there only, not also the session's end.
func (sh *shownSession) expectPendingEvent(ref views.SessionRef) {
	if seq := sh.pendingSeq(ref); seq > 0 {
		sh.pw.mv.Transcript().ExpectEvent(seq)
	}
}

// loadFromHit loads a long session from the event seq a search hit shows
// when a load from its end would leave that event out: the hit is then
// shown at once, instead of the end first and then everything from the hit
// loaded again above it (a second load, and a second set of rows built and
// laid out). ok is false when the end holds the event.
func loadFromHit(ctx context.Context, st *store.Store, id, seq int64) (_ []store.StoredEvent, earlier int, ok bool, _ error) {
	from, _, err := st.Events().TailStart(ctx, id, 0, windowEvents)
	if err != nil || from <= 0 || seq >= from {
		return nil, 0, false, err
	}
	events, earlier, err := loadFrom(ctx, st, id, seq, 0)
	return events, earlier, err == nil, err
}

// loadShown loads the session's events with fromSeq ≤ seq ≤ toSeq (≤ 0: no
// bound) for the transcript: a row that could not be read stands where it
// was, as a placeholder that says so (store.WithUnreadable).
func loadShown(ctx context.Context, st *store.Store, id, fromSeq, toSeq int64) ([]store.StoredEvent, error) {
	r, err := st.Events().Load(ctx, id, fromSeq, toSeq)
	return store.WithUnreadable(r.Events, r.Unreadable), err
}

// prependEarlier loads events of ref from before seq first with load and
// shows them above those shown, then runs then on the Fyne goroutine.
func (sh *shownSession) prependEarlier(ref views.SessionRef, gen int, first int64,
	load func(*store.Store) ([]store.StoredEvent, int, error), then func()) {
	st, err := sh.pw.store(ref.StorePath)
	if err != nil {
		sh.pw.showError("open store", err)
		return
	}
	events, earlier, err := load(st)
	if err != nil {
		sh.pw.showError("load earlier events", err)
		onUI(func() { sh.pw.mv.Transcript().PrependEvents(nil, sh.pw.mv.Transcript().Loader().Earlier()) }) // enable the buttons again
		return
	}
	sh.mu.Lock()
	if gen != sh.loadGen || sh.current != ref || sh.firstSeq != first {
		sh.mu.Unlock()
		return // another session, or these were loaded meanwhile
	}
	if len(events) > 0 {
		sh.firstSeq = events[0].Seq
	}
	sh.mu.Unlock()
	onUI(func() {
		sh.pw.mv.Transcript().PrependEvents(events, earlier)
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

// reloadCurrentHeader re-shows the current session if ref is it (its name
// may have changed).
func (sh *shownSession) reloadCurrentHeader(ref views.SessionRef) {
	sh.mu.Lock()
	shown := sh.current == ref
	sh.mu.Unlock()
	if shown {
		onUI(func() { sh.SelectSession(ref) })
	}
}
