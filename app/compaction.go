package app

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/display"
	"github.com/lazuli-app/lazuli/project"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// bannerAfter is how long a running session at ≥ 90 % of the threshold may
// stay silent before the window says it may be compacting.
const bannerAfter = 30 * time.Second

// compactions owns compacting the window's sessions: the compaction
// worker (one job per session at a time), the runs waiting for a
// compaction they asked for, compacting on request (Session › Compact
// session now) and the "may be compacting" banner.
type compactions struct {
	pw *projectWindow

	mu            sync.Mutex
	compactor     *agents.Compactor           // nil in read-only windows
	compactModels map[views.SessionRef]string // model of each queued compaction
	// compactWaiters are the run workflows waiting for a session's
	// compaction (compactForRun).
	compactWaiters map[views.SessionRef][]chan agents.CompactNotice
	banner         string // the banner text shown
}

// errNotCompactable reports a session that failed to compact at its
// current size before; the worker does not try again until it grows.
var errNotCompactable = errors.New("it could not be compacted at this size before")

func newCompactions(pw *projectWindow) *compactions {
	return &compactions{pw: pw, compactModels: map[views.SessionRef]string{},
		compactWaiters: map[views.SessionRef][]chan agents.CompactNotice{}}
}

// startCompactor starts the compaction worker of a window that can write.
func (cp *compactions) startCompactor() {
	cp.compactor = agents.NewCompactor(cp.pw.store, cp.compactOptions, cp.onCompactNotice)
	cp.pw.wg.Go(func() { _ = cp.compactor.Run(cp.pw.ctx) })
}

// compactForRun is the run workflow's compaction for a session of the
// store at storePath: a job of the
// window's compaction worker (so no session is compacted twice at once),
// waited for.
func (cp *compactions) compactForRun(storePath string) func(context.Context, agents.CompactRequest) (agents.CompactOutcome, error) {
	return func(ctx context.Context, req agents.CompactRequest) (agents.CompactOutcome, error) {
		ref := views.SessionRef{StorePath: storePath, ID: req.SessionID}
		if cp.pw.readOnly || cp.compactor == nil {
			return agents.CompactOutcome{}, errReadOnly
		}
		done := make(chan agents.CompactNotice, 1)
		cp.mu.Lock()
		cp.compactWaiters[ref] = append(cp.compactWaiters[ref], done)
		cp.mu.Unlock()
		defer cp.dropCompactWaiter(ref, done)
		queued := cp.requestCompaction(ref, "after turn", req.AutoContinue, req.ContextChars, req.Model)
		if !queued && !cp.compactor.Busy(ref.StorePath, ref.ID) {
			select {
			case n := <-done: // it ended just now
				return n.Outcome, n.Err
			default:
				return agents.CompactOutcome{}, errNotCompactable
			}
		}
		select {
		case n := <-done:
			return n.Outcome, n.Err
		case <-ctx.Done():
			return agents.CompactOutcome{}, ctx.Err()
		}
	}
}

// dropCompactWaiter forgets a waiter of compactForRun.
func (cp *compactions) dropCompactWaiter(ref views.SessionRef, done chan agents.CompactNotice) {
	cp.mu.Lock()
	defer cp.mu.Unlock()
	ws := cp.compactWaiters[ref]
	for i, w := range ws {
		if w == done {
			ws = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(ws) == 0 {
		delete(cp.compactWaiters, ref)
	} else {
		cp.compactWaiters[ref] = ws
	}
}

// requestCompaction queues session ref for the compaction worker and
// reports whether it was queued.
func (cp *compactions) requestCompaction(ref views.SessionRef, reason string, autoContinue bool,
	chars int64, model string) bool {
	if cp.pw.readOnly || cp.compactor == nil {
		return false
	}
	job := agents.CompactJob{StorePath: ref.StorePath, SessionID: ref.ID, Reason: reason, AutoContinue: autoContinue}
	if !cp.compactor.Request(job, chars) {
		return false
	}
	cp.mu.Lock()
	cp.compactModels[ref] = model
	cp.mu.Unlock()
	cp.updateBanner()
	return true
}

// compactOptions are the options of a compaction job.
func (cp *compactions) compactOptions(job agents.CompactJob) agents.CompactOptions {
	ref := views.SessionRef{StorePath: job.StorePath, ID: job.SessionID}
	cp.mu.Lock()
	model := cp.compactModels[ref]
	cp.mu.Unlock()
	// With no model, CompactSession uses the session's own.
	return agents.CompactOptions{Config: cp.pw.ui.agentConfig(), Model: model}
}

// onCompactNotice reports the compaction worker's progress, and its end to
// the run workflows waiting for it (compactForRun).
func (cp *compactions) onCompactNotice(n agents.CompactNotice) {
	ref := views.SessionRef{StorePath: n.Job.StorePath, ID: n.Job.SessionID}
	name := store.DisplayName(ref.ID, "")
	if n.Started {
		cp.pw.status.set(ref, fmt.Sprintf("Compacting %s with %s…", name, n.Agent), false)
		cp.updateBanner()
		return
	}
	defer func() {
		cp.mu.Lock()
		waiters := cp.compactWaiters[ref]
		delete(cp.compactWaiters, ref)
		cp.mu.Unlock()
		for _, w := range waiters {
			w <- n // buffered, one notice each
		}
	}()
	if n.Err != nil {
		log.Printf("compaction: %s of %s: %v", name, ref.StorePath, n.Err)
	} else {
		log.Printf("compaction: %s of %s by %s through seq %d, context %d → %d characters",
			name, ref.StorePath, n.Outcome.Agent, n.Outcome.AfterSeq, n.Outcome.CharsBefore, n.Outcome.CharsAfter)
	}
	cp.updateBanner()
	switch {
	case errors.Is(n.Err, context.Canceled):
		return
	case errors.Is(n.Err, agents.ErrNoBoundary):
		cp.pw.status.set(ref, fmt.Sprintf("%s was not compacted: it needs at least two prompts since its last compaction.", name), true)
		return
	case n.Err != nil:
		cp.pw.status.set(ref, fmt.Sprintf("Compacting %s failed: %s", name, project.OneLine(n.Err)), true)
		return
	}
	cp.pw.status.set(ref, fmt.Sprintf("Compacted %s with %s: context down from %s to %s characters.", name, n.Outcome.Agent,
		display.Count(n.Outcome.CharsBefore), display.Count(n.Outcome.CharsAfter)), false)
}

// updateBanner shows "may be compacting" for the session shown when it is
// being compacted, or when its agent runs at ≥ 90 % of the threshold and
// has been silent for bannerAfter.
func (cp *compactions) updateBanner() {
	ref, chars := cp.pw.shown.refAndChars()
	silent := cp.pw.runner.silentFor(ref, bannerAfter)
	text := ""
	switch {
	case ref.ID != 0 && cp.compactor != nil && cp.compactor.Busy(ref.StorePath, ref.ID):
		text = "Compacting this session's older history into a summary…"
	case silent && chars*10 >= store.CompactionThreshold*9:
		text = "This session may be compacting…"
	}
	cp.mu.Lock()
	changed := text != cp.banner
	cp.banner = text
	cp.mu.Unlock()
	if changed { // called on every watch tick
		onUI(func() { cp.pw.mv.SetBanner(text) })
	}
}

// onCompactNow compacts the session shown, whatever its size.
func (cp *compactions) onCompactNow() {
	ref, chars := cp.pw.shown.refAndChars()
	running := cp.pw.runner.isRunning(ref)
	switch {
	case ref.ID == 0:
		return
	case cp.pw.readOnly:
		cp.pw.showError("compact", errReadOnly)
		return
	case running:
		cp.pw.status.set(ref, "Wait for the agent to finish (or stop it) before compacting.", true)
		return
	}
	job := agents.CompactJob{StorePath: ref.StorePath, SessionID: ref.ID, Reason: "manual", Manual: true}
	if !cp.compactor.Request(job, chars) {
		cp.pw.status.set(ref, "This session is already being compacted.", false)
	}
}
