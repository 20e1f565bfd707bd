package app

import (
	"sync"

	"github.com/lazuli-app/lazuli/views"
)

// statusLine owns the prompt box's one-line status and the session it is
// about, so that a status never outlives what it is about.
type statusLine struct {
	pw *projectWindow

	mu        sync.Mutex
	statusRef views.SessionRef // the session the status is about
}

// set shows a one-line status about session ref in the prompt box.
// It stays until another status replaces it or a session other than ref
// is shown (clearStale): a status never outlives what it is about.
func (sb *statusLine) set(ref views.SessionRef, text string, isError bool) {
	sb.mu.Lock()
	sb.statusRef = ref
	sb.mu.Unlock()
	onUI(func() { sb.pw.mv.PromptBox().SetStatus(text, isError) })
}

// setRef makes the status about ref, for a status the caller shows itself
// (with an action: PromptBox.SetStatusAction).
func (sb *statusLine) setRef(ref views.SessionRef) {
	sb.mu.Lock()
	sb.statusRef = ref
	sb.mu.Unlock()
}

// clearStale clears the status when it is about a session other than
// ref, which is being shown. It runs on the Fyne goroutine.
func (sb *statusLine) clearStale(ref views.SessionRef) {
	sb.mu.Lock()
	stale := sb.statusRef != ref
	if stale {
		sb.statusRef = views.SessionRef{}
	}
	sb.mu.Unlock()
	if stale {
		sb.pw.mv.PromptBox().SetStatus("", false)
	}
}

// moved follows a new session stored as ref: a status about old is about
// ref now.
func (sb *statusLine) moved(old, ref views.SessionRef) {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.statusRef == old {
		sb.statusRef = ref
	}
}
