package agents

import (
	"context"
	"os"

	"github.com/lazuli-app/lazuli/store"
)

// ImportMeta is how a transcript imported from a file (lazuli import,
// File › Import, a dropped file) names and dates its session, the way
// import-native does: the name is the first line of the first prompt,
// shortened (else the agent and the date), and created is when it ran —
// the transcript's first timestamp, or for an output stream without
// timestamps the file's modification time — in store.TimeFormat, UTC.
// events are the file's parsed events; f its detected format.
func ImportMeta(path string, f Format, events []store.Event) (name, created string) {
	agent := NativeClaude
	if f == FormatCodexExec || f == FormatCodexRollout {
		agent = NativeCodex
	}
	n := NativeSession{Agent: agent, Path: path}
	if f == FormatClaudeTranscript || f == FormatCodexRollout {
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

// ImportTranscript stores one parsed transcript file (see LoadTranscript)
// as a new session of worktree, named and dated by ImportMeta; a non-empty
// name wins over the derived one. When the store already holds the same
// transcript (same name, time and stored events, as importing the same
// file twice gives) nothing is stored and the result says which session
// holds it, as a merge skips an exact duplicate.
// usage is the transcript's token usage (Loaded.Usage), stored with it.
func ImportTranscript(ctx context.Context, st *store.Store, worktree, name, path string, f Format, events []store.Event, usage ...store.Usage) (ImportedFile, error) {
	derived, created := ImportMeta(path, f, events)
	if name == "" {
		name = derived
	}
	if s, ok, err := st.FindImported(ctx, worktree, name, created, events); err != nil {
		return ImportedFile{}, err
	} else if ok {
		return ImportedFile{Session: s, Duplicate: true}, nil
	}
	s, n, err := st.CreateSessionAt(ctx, worktree, name, created, events, usage...)
	return ImportedFile{Session: s, Events: n}, err
}
