package native

import (
	"context"
	"os"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/store"
)

// ImportMeta is how a transcript imported from a file (lazuli import,
// File › Import, a dropped file) names and dates its session, the way
// import-native does: the name is the first line of the first prompt,
// shortened (else the agent and the date), and created is when it ran —
// the transcript's first timestamp, or for an output stream without
// timestamps the file's modification time — in store.TimeFormat, UTC.
// events are the file's parsed events; f its detected format.
func ImportMeta(path string, f parse.Format, events []store.Event) (name, created string) {
	agent := Claude
	if f == parse.FormatCodexExec || f == parse.FormatCodexRollout {
		agent = Codex
	}
	n := Session{Agent: agent, Path: path}
	if f == parse.FormatClaudeTranscript || f == parse.FormatCodexRollout {
		if p, err := previewFile(agent, "", path); err == nil {
			n = p
		}
	}
	if n.ModTime.IsZero() {
		if fi, err := os.Stat(path); err == nil {
			n.ModTime = fi.ModTime()
		}
	}
	n.FirstPrompt, _ = firstPrompt(events)
	n.ParentID = "" // a file imported on its own is named as a main session
	if n.start().IsZero() {
		return n.Title(), ""
	}
	return n.Title(), n.start().UTC().Format(store.TimeFormat)
}

// ImportedFile says what ImportTranscript did with one file.
type ImportedFile struct {
	Session   store.Session
	Events    int  // rows stored; 0 for a duplicate
	Duplicate bool // the same transcript was imported before, into Session: nothing was stored
}

// ImportTranscript stores one parsed transcript file (see ReadTranscript)
// as a new session of worktree, named and dated by ImportMeta, with a
// session of its own for each sub-agent (StoreTranscript); a non-empty
// name wins over the derived one. When the store already holds the same
// transcript (same name, time and stored events, as importing the same
// file twice gives) nothing is stored and the result says which session
// holds it, as a merge skips an exact duplicate. The transcript's usage
// is stored with it.
func ImportTranscript(ctx context.Context, st *store.Store, worktree, name, path string, t agents.Transcript) (ImportedFile, error) {
	derived, created := ImportMeta(path, t.Format, t.Events)
	if name == "" {
		name = derived
	}
	if s, ok, err := st.FindImported(ctx, worktree, name, created, t.Events); err != nil {
		return ImportedFile{}, err
	} else if ok {
		return ImportedFile{Session: s, Duplicate: true}, nil
	}
	id, n, err := agents.StoreTranscriptAt(ctx, st, t, 0, worktree, name, created)
	if err != nil {
		return ImportedFile{}, err
	}
	s, err := st.GetSession(ctx, id)
	return ImportedFile{Session: s, Events: n}, err
}
