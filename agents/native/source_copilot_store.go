package native

// Copilot CLI keeps, beside its event logs (session-state/<id>/events.jsonl),
// a SQLite session store (~/.copilot/session-store.db) with each session's
// summary, folder, branch and turns (prompt and answer). It is read as a
// second source, on a private copy (copilot.ReadStore), for what the logs
// lack:
//   - a session whose event log is gone is mirrored from the store's turns
//     into Lazuli's cache (copilot.StoreSession.Lines, one folder per
//     session as in session-state) and imported from there, named by the
//     store's summary;
//   - a log with no prompt in its head gets the store's summary as its
//     name, and every log the store's folder and branch when its head does
//     not say them.
// The store is never written.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/lazuli-app/lazuli/agents/copilot"
	"github.com/lazuli-app/lazuli/store"
)

// copilotStoreName is the session store's file, beside session-state.
const copilotStoreName = "session-store.db"

// fillFromCopilotStore completes the previews of sessions found under dir
// (the session-state folder) from the session store beside it, and
// returns the stored sessions that have no event log under dir, mirrored
// into Lazuli's cache, previewed by scan and named by the store's
// summary. A missing store changes nothing; a store that cannot be read
// is returned as a Skip and changes nothing. The error is scan's (ctx's).
func fillFromCopilotStore(ctx context.Context, dir string, sessions []Session, scan func(string) ([]Session, error)) ([]Session, *Skip, error) {
	path := filepath.Join(filepath.Dir(dir), copilotStoreName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	stored, err := copilot.ReadStore(ctx, path)
	if err != nil {
		return nil, &Skip{Path: path, Reason: "not read as Copilot's session store: " + errReason(err)}, nil
	}
	fillPreviews(sessions, stored, false)
	mirror, err := mirrorCopilotStore(path, dir, stored)
	if err != nil {
		return nil, &Skip{Path: path, Reason: "its sessions without an event log were not mirrored: " + errReason(err)}, nil
	}
	if mirror == "" {
		return nil, nil, nil
	}
	more, err := scan(mirror)
	if err != nil {
		return nil, nil, err
	}
	fillPreviews(more, stored, true)
	return more, nil, nil
}

// fillPreviews completes sessions from the store's: the summary as the
// first prompt when a preview has none (always, with summary true), the
// folder and the branch when it has none.
func fillPreviews(sessions []Session, stored []copilot.StoreSession, summary bool) {
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
		if (n.FirstPrompt == "" || summary) && s.Summary != "" {
			n.FirstPrompt = s.Summary
		}
		if n.Cwd == "" {
			n.Cwd = s.Cwd
		}
		if n.Branch == "" {
			n.Branch = s.Branch
		}
	}
}

// mirrorCopilotStore writes each stored session with turns and no
// dir/<id>/events.jsonl to <cache>/native/copilot-store/<key>/<id>/events.jsonl
// (rewritten only when its lines changed) and removes the mirrors of
// sessions that no longer need one. It returns the mirror's folder, or ""
// when no session needs one.
func mirrorCopilotStore(path, dir string, stored []copilot.StoreSession) (string, error) {
	cache, err := store.CacheDir()
	if err != nil {
		return "", err
	}
	out := filepath.Join(cache, "native", "copilot-store", store.CacheKey(path))
	want := map[string]bool{}
	for _, s := range stored {
		if len(s.Turns) == 0 || !validID(s.ID) {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, s.ID, "events.jsonl")); !errors.Is(err, fs.ErrNotExist) {
			continue // the log is there (or unreadable, and the scan says why)
		}
		if err := os.MkdirAll(filepath.Join(out, s.ID), 0o700); err != nil {
			return "", fmt.Errorf("make the mirror folder: %w", err)
		}
		if err := writeMirror(filepath.Join(out, s.ID, "events.jsonl"), s.Lines(), storeSessionTime(s)); err != nil {
			return "", err
		}
		want[s.ID] = true
	}
	entries, _ := os.ReadDir(out) // a missing folder has nothing to remove
	for _, e := range entries {
		if !want[e.Name()] {
			if err := os.RemoveAll(filepath.Join(out, e.Name())); err != nil {
				return "", fmt.Errorf("remove an old mirror: %w", err)
			}
		}
	}
	if len(want) == 0 {
		return "", nil
	}
	return out, nil
}

// validID reports whether id can name a folder: not empty, no separator,
// not . or ..
func validID(id string) bool {
	return id != "" && id != "." && id != ".." && filepath.Base(id) == id && !filepath.IsAbs(id)
}

// storeSessionTime is a stored session's last change: its updated time,
// else its last turn's, else zero.
func storeSessionTime(s copilot.StoreSession) time.Time {
	t := s.Updated
	for _, turn := range s.Turns {
		if turn.At.After(t) {
			t = turn.At
		}
	}
	return t
}
