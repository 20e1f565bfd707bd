package native

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/gemini"
	"github.com/lazuli-app/lazuli/agents/opencode"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/agents/qwen"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// ImportMeta is how a transcript imported from a file (lazuli import,
// File › Import, a dropped file) names and dates its session, the way
// import-native does: the name is the first line of the first prompt,
// shortened (else the agent and the date; for a Claude stream capture, which
// holds no prompt unless user lines were replayed, the prompt of the
// session its init line names, found in Claude's history), and created is
// when it ran —
// the transcript's first timestamp, or for an output stream without
// timestamps the file's modification time — in store.TimeFormat, UTC. (A
// Claude stream capture's first timestamp is that of its main thread's
// first stamped line.)
// events are the file's parsed events; f its detected format.
func ImportMeta(path string, f parse.Format, events []codec.Event) (name, created string) {
	agent := Claude
	src, native := sourceForFormat(f)
	switch {
	case native:
		agent = src.Agent
	case f == parse.FormatCodexExec:
		agent = Codex
	case streamAgents[f] != "":
		agent = streamAgents[f]
	}
	n := Session{Agent: agent, Path: path}
	if native {
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
	if f == parse.FormatClaudeStream {
		id, first := streamHead(path)
		n.Started = first // newer CLIs stamp their lines; zero otherwise
		if n.FirstPrompt == "" {
			// `claude -p` prints no prompt; the session its init line
			// names may still be in Claude's history.
			if s, ok := nativeClaudeSession(id); ok {
				n.FirstPrompt = s.FirstPrompt
				if n.Started.IsZero() {
					n.Started = s.Started
				}
			}
		}
	}
	n.ParentID = "" // a file imported on its own is named as a main session
	if n.start().IsZero() {
		return n.Title(), ""
	}
	return n.Title(), n.start().UTC().Format(store.TimeFormat)
}

// streamAgents are the agents of the run output formats no native source
// reads: a capture of one without a prompt is named after its agent.
var streamAgents = map[parse.Format]string{gemini.FormatStream: Gemini, qwen.FormatStream: Qwen, opencode.FormatRun: OpenCode}

// streamHead reads the head of a Claude stream capture: the session id
// its init line names and the first timestamp of a line of the main thread
// (not a sub-agent's); "" and zero when it has none.
func streamHead(path string) (id string, first time.Time) {
	f, err := os.Open(path)
	if err != nil {
		return "", time.Time{}
	}
	defer f.Close()
	_, _ = readHead(f, func(line []byte) bool {
		o, ok := parse.DecodeObject(line)
		if !ok {
			return false
		}
		if id == "" && o.Str("type") == "system" && o.Str("subtype") == "init" {
			id = o.Str("session_id")
		}
		if first.IsZero() && o.Str("parent_tool_use_id") == "" {
			if t, err := time.Parse(time.RFC3339Nano, o.Str("timestamp")); err == nil {
				first = t.UTC()
			}
		}
		return id != "" && !first.IsZero()
	})
	return id, first
}

// nativeClaudeSession previews the native Claude transcript of session id
// when Claude's projects folder still holds it with a prompt.
func nativeClaudeSession(id string) (Session, bool) {
	if !sessionIDPattern().MatchString(id) {
		return Session{}, false
	}
	dirs, err := DefaultDirs()
	if err != nil {
		return Session{}, false
	}
	dir := dirs[Claude]
	matches, _ := filepath.Glob(filepath.Join(dir, "*", id+".jsonl"))
	for _, m := range matches {
		if n, err := previewFile(Claude, dir, m); err == nil && n.FirstPrompt != "" {
			return n, true
		}
	}
	return Session{}, false
}

// sessionIDPattern is what a Claude session id may look like to be used in
// a file name: letters, digits and dashes.
var sessionIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,127}$`) })

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
	if s, ok, err := st.Transfer().FindImported(ctx, worktree, name, created, t.Events); err != nil {
		return ImportedFile{}, err
	} else if ok {
		return ImportedFile{Session: s, Duplicate: true}, nil
	}
	id, n, err := agents.StoreTranscriptAt(ctx, st, t, 0, worktree, name, created)
	if err != nil {
		return ImportedFile{}, err
	}
	s, err := st.Sessions().Get(ctx, id)
	return ImportedFile{Session: s, Events: n}, err
}
