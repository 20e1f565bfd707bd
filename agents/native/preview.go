package native

// This file previews one native transcript from its first lines: ids, the
// folder the agent ran in, branch, start time and the first prompt, which
// the parsers themselves find, as they do on import.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/agents/claude"
	"github.com/lazuli-app/lazuli/agents/codex"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// Limits of a preview: it reads complete lines from the head of a file until
// it knows the first prompt, or until one of these is reached.
const (
	previewMaxBytes = 1 << 20
	previewMaxLines = 400
)

// previewFile previews one transcript file of agent under root.
func previewFile(agent, root, path string) (Session, error) {
	f, err := openRegular(path)
	if err != nil {
		return Session{}, fmt.Errorf("cannot read it: %s", errReason(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return Session{}, fmt.Errorf("cannot read it: %s", errReason(err))
	}
	n := Session{Agent: agent, Path: path, Size: fi.Size(), ModTime: fi.ModTime(), Inode: inodeOf(fi)}
	h := sourceOf(agent).preview(&n, root)
	lines, err := readHead(f, h.line)
	if err != nil {
		return Session{}, fmt.Errorf("cannot read it: %s", errReason(err))
	}
	if err := h.finish(lines); err != nil {
		return Session{}, err
	}
	if strings.HasPrefix(filepath.Base(n.Cwd), "lazuli-compact-") {
		n.Own = "a Lazuli compaction run"
	}
	return n, nil
}

// previewer reads the head of one agent's transcript.
type previewer interface {
	// line takes one complete line and reports whether the preview is done.
	line(b []byte) bool
	// finish completes the preview after lines complete lines; an error
	// means the file is not a transcript of the agent.
	finish(lines int) error
}

// headReaders keeps readHead's readers (a 64 KiB buffer each) between
// files: a scan previews every file, and a new buffer for each came to
// 64 MiB (zeroed) for a thousand files. The previewers keep nothing of a
// line (the parsers decode a copy).
var headReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 64<<10) }}

// readHead feeds the complete lines at the head of r to fn until fn is
// done or a preview limit is reached, and returns how many it fed. A line
// longer than the byte limit ends the head.
func readHead(r io.Reader, fn func([]byte) bool) (int, error) {
	br := headReaders.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil) // the file is not kept
		headReaders.Put(br)
	}()
	var long []byte
	n, read := 0, 0
	for n < previewMaxLines && read < previewMaxBytes {
		chunk, err := br.ReadSlice('\n')
		read += len(chunk)
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return n, err
		}
		if len(chunk) == 0 || chunk[len(chunk)-1] != '\n' {
			return n, nil // the end, or a line still being written
		}
		line := chunk
		if long != nil {
			line, long = append(long, chunk...), nil
		}
		n++
		if fn(bytes.TrimRight(line, "\r\n")) {
			return n, nil
		}
	}
	return n, nil
}

// claudePreview previews a Claude transcript: a main session
// (<project>/<id>.jsonl), a sub-agent of Claude 2.1.2 and later
// (<project>/<id>/subagents/agent-<x>.jsonl) or an older one
// (<project>/agent-<x>.jsonl, which names its parent in sessionId).
type claudePreview struct {
	n         *Session
	p         *claude.TranscriptParser
	flat      bool   // an older sub-agent file
	sessionID string // the first sessionId
	valid     bool   // some line had a Claude transcript's shape
	typed     bool   // FirstPrompt is a typed prompt, not a command
}

func newClaudePreview(n *Session, root string) *claudePreview {
	stem := strings.TrimSuffix(filepath.Base(n.Path), ".jsonl")
	dir := filepath.Dir(n.Path)
	c := &claudePreview{n: n, p: claude.NewTranscriptParser(parse.Options{ClaudeHome: os.DevNull})}
	n.ID = stem
	switch {
	case filepath.Base(dir) == "subagents" && filepath.Dir(dir) != root:
		n.ParentID = filepath.Base(filepath.Dir(dir))
		n.ID, n.AgentName = n.ParentID+"/"+stem, strings.TrimPrefix(stem, "agent-")
		dir = filepath.Dir(filepath.Dir(dir))
	case strings.HasPrefix(stem, "agent-"):
		c.flat = true
		n.AgentName = strings.TrimPrefix(stem, "agent-")
	}
	if dir != root {
		n.project = filepath.Base(dir)
	}
	return c
}

// line reads what the preview needs from one line and feeds it to the
// parser, which finds the first prompt as it does on import.
func (c *claudePreview) line(b []byte) bool {
	o, ok := parse.DecodeObject(claude.TrimLine(b))
	if !ok {
		c.p.Feed(b) // counted as malformed
		return false
	}
	c.valid = c.valid || parse.DetectLine(o) == parse.FormatClaudeTranscript
	c.fields(o)
	c.p.Feed(b)
	if !c.typed {
		c.n.FirstPrompt, c.typed = firstPrompt(c.p.Events())
	}
	// gitBranch, when Claude records it, is on the same lines as cwd.
	return c.typed && c.n.Cwd != "" && !c.n.Started.IsZero()
}

// fields takes cwd, branch, start time and ids from the first lines that
// have them.
func (c *claudePreview) fields(o parse.Object) {
	n := c.n
	if s, _ := o.StrOK("cwd"); n.Cwd == "" && s != "" {
		n.Cwd = s
	}
	if s, _ := o.StrOK("gitBranch"); n.Branch == "" && s != "" && s != "HEAD" {
		n.Branch = s
	}
	if t := claude.Timestamp(o); n.Started.IsZero() && t.Ok {
		n.Started = t.T.UTC()
	}
	if s, _ := o.StrOK("sessionId"); c.sessionID == "" && s != "" {
		c.sessionID = s
	}
	if s, _ := o.StrOK("agentId"); n.AgentName == "" && s != "" {
		n.AgentName = s
	}
	if typ, _ := o.StrOK("type"); typ == "user" && n.Own == "" && bytes.Contains(o["message"], []byte("azureal-session-context")) {
		for _, t := range claude.MessageTexts(o.Obj("message")) {
			if strings.Contains(t, codec.ContextOpenTag) {
				n.Own = ownContext
			}
		}
	}
}

func (c *claudePreview) finish(lines int) error {
	if !c.valid && lines > 0 {
		return errors.New("not a Claude Code transcript")
	}
	if c.flat {
		c.n.ParentID = c.sessionID
		if c.sessionID != "" {
			c.n.ID = c.sessionID + "/" + filepath.Base(strings.TrimSuffix(c.n.Path, ".jsonl"))
		}
	}
	return nil
}

// codexPreview previews a Codex rollout from its session_meta line and
// its first prompt.
type codexPreview struct {
	n     *Session
	p     *codex.RolloutParser
	out   []codec.Event
	valid bool
	typed bool // FirstPrompt is a typed prompt, not a command
}

func (c *codexPreview) line(b []byte) bool {
	o, ok := parse.DecodeObject(bytes.TrimPrefix(b, parse.BOM))
	if ok && parse.DetectLine(o) == parse.FormatCodexRollout {
		c.valid = true
	}
	if ok && o.Str("type") == "session_meta" && c.n.ID == "" {
		c.meta(o)
	}
	if ok && c.n.Own == "" && strings.Contains(codexRawPrompt(o), codec.ContextOpenTag) {
		c.n.Own = ownContext
	}
	c.out = append(c.out, c.p.Feed(b)...)
	if !c.typed {
		c.n.FirstPrompt, c.typed = firstPrompt(slices.Concat(c.out, c.p.Held()))
	}
	return c.typed && c.n.ID != ""
}

// meta reads a session_meta line: ids, cwd, start time, branch, and the
// parent thread of a sub-agent.
func (c *codexPreview) meta(o parse.Object) {
	pl := o.Obj("payload")
	n := c.n
	n.ID, n.Cwd = pl.Str("id"), pl.Str("cwd")
	n.Branch = pl.Obj("git").Str("branch")
	for _, ts := range []string{pl.Str("timestamp"), o.Str("timestamp")} {
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil {
			n.Started = t.UTC()
			break
		}
	}
	if sub := pl.Obj("source").Obj("subagent"); sub != nil {
		n.ParentID = pl.Str("parent_thread_id")
		if n.ParentID == "" {
			n.ParentID = sub.Obj("thread_spawn").Str("parent_thread_id")
		}
		n.AgentName = pl.Str("agent_nickname")
		if n.AgentName == "" {
			n.AgentName = sub.Obj("thread_spawn").Str("agent_nickname")
		}
	}
}

// ownContext is Session.Own for a turn whose prompt carries the
// context block that AZUREAL and Lazuli inject (spec §6.3).
const ownContext = "its prompts carry the session context of AZUREAL or Lazuli"

// codexRawPrompt returns the raw text of a rollout line that is a user
// message, else "".
func codexRawPrompt(o parse.Object) string {
	pl := o.Obj("payload")
	switch {
	case o.Str("type") == "response_item" && pl.Str("type") == "message" && pl.Str("role") == "user":
		return codex.MessageText(pl["content"])
	case o.Str("type") == "event_msg" && pl.Str("type") == "user_message":
		return pl.Str("message")
	}
	return ""
}

func (c *codexPreview) finish(lines int) error {
	if !c.valid && lines > 0 {
		return errors.New("not a Codex rollout")
	}
	if c.n.ID == "" {
		c.n.ID = codexIDFromName(filepath.Base(c.n.Path))
	}
	return nil
}

// codexIDFromName returns the thread id at the end of a rollout file name
// (rollout-<time>-<uuid>.jsonl), or the name without .jsonl.
func codexIDFromName(name string) string {
	stem := strings.TrimSuffix(name, ".jsonl")
	if len(stem) > 36 && stem[len(stem)-37] == '-' && strings.Count(stem[len(stem)-36:], "-") == 4 {
		return stem[len(stem)-36:]
	}
	return stem
}

// firstPrompt returns the first prompt the user typed among events, as the
// context filter keeps it and cleaned for display (see agents.PromptText), and
// else the first slash or shell command, with ok false.
func firstPrompt(events []codec.Event) (text string, ok bool) {
	var fallback string
	for _, e := range store.FilterInjectedEvents(events) {
		if e.Kind != codec.KindUserMessage {
			continue
		}
		t, typed := agents.PromptText(e.Content)
		if typed {
			return t, true
		}
		if fallback == "" {
			fallback = t
		}
	}
	return fallback, false
}
