package native

// Copilot CLI keeps, beside its event logs (session-state/<id>/events.jsonl),
// a SQLite session store (~/.copilot/session-store.db) with each session's
// summary, folder and branch. It is read as a second source, read-only
// (copilot.ReadStore), for what a log's head lacks: a log cut before its
// first prompt was written gets the store's summary as its name, and its
// folder and branch when the log does not say them. The store is never
// written.

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lazuli-app/lazuli/agents/copilot"
)

// copilotStoreName is the session store's file, beside session-state.
const copilotStoreName = "session-store.db"

// fillFromCopilotStore completes the previews of sessions found under dir
// (the session-state folder) from the session store beside it: the
// summary when a preview has no first prompt, the folder and the branch
// when it has none. A missing store changes nothing; a store that cannot
// be read is returned as a Skip and changes nothing.
func fillFromCopilotStore(ctx context.Context, dir string, sessions []Session) *Skip {
	path := filepath.Join(filepath.Dir(dir), copilotStoreName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	missing := false
	for _, n := range sessions {
		if n.FirstPrompt == "" || n.Cwd == "" || n.Branch == "" {
			missing = true
		}
	}
	if !missing {
		return nil // nothing to complete: the store is not opened
	}
	stored, err := copilot.ReadStore(ctx, path)
	if err != nil {
		return &Skip{Path: path, Reason: "not read as Copilot's session store: " + errReason(err)}
	}
	byID := make(map[string]copilot.StoreSession, len(stored))
	for _, s := range stored {
		byID[s.ID] = s
	}
	for i := range sessions {
		n := &sessions[i]
		s, ok := byID[n.ID]
		if !ok {
			continue
		}
		if n.FirstPrompt == "" {
			n.FirstPrompt = s.Summary
		}
		if n.Cwd == "" {
			n.Cwd = s.Cwd
		}
		if n.Branch == "" {
			n.Branch = s.Branch
		}
	}
	return nil
}
