package native

// This file previews and feeds the transcripts of agents whose parser
// emits events as lines come (Pi, Copilot CLI): one previewer and one
// feeder over any such parse.Parser.

import (
	"bytes"
	"errors"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// streamParser is a parser that emits its events as lines come, except
// those it can still release at Finish (Unreleased says how many).
type streamParser interface {
	parse.UsageParser
	Unreleased() int
}

// eventsPreview previews a transcript by feeding its head to the
// format's parser: the Init's folder, the first timestamp, the first
// prompt; id reads the session's id from a line (or the path).
type eventsPreview struct {
	n      *Session
	format parse.Format
	p      parse.Parser
	id     func(o parse.Object, path string) string
	// parent, when set, reads a sub-agent's parent session id from a
	// line (OpenCode's session line); "" when the line says none.
	parent func(o parse.Object) string
	// started, when set, reads the session's start from a line that has
	// no timestamp (OpenCode's session line); zero when the line says none.
	started func(o parse.Object) time.Time
	out     []codec.Event
	valid   bool
	typed   bool
}

func (e *eventsPreview) line(b []byte) bool {
	o, ok := parse.DecodeObject(bytes.TrimPrefix(b, parse.BOM))
	if ok && parse.DetectLine(o) == e.format {
		e.valid = true
	}
	if ok && e.n.ID == "" {
		e.n.ID = e.id(o, e.n.Path)
	}
	if ok && e.parent != nil && e.n.ParentID == "" {
		e.n.ParentID = e.parent(o)
	}
	if ok && e.n.Started.IsZero() {
		if t, err := time.Parse(time.RFC3339Nano, o.Str("timestamp")); err == nil {
			e.n.Started = t.UTC()
		} else if e.started != nil {
			e.n.Started = e.started(o)
		}
	}
	e.out = append(e.out, e.p.Feed(b)...)
	for _, ev := range e.out {
		if ev.Kind == codec.KindInit && e.n.Cwd == "" {
			e.n.Cwd = ev.CWD
		}
		if ev.Kind == codec.KindUserMessage && e.n.Own == "" && strings.Contains(ev.Content, codec.ContextOpenTag) {
			e.n.Own = ownContext
		}
	}
	if !e.typed {
		e.n.FirstPrompt, e.typed = firstPrompt(e.out)
	}
	return e.typed && e.n.ID != "" && e.n.Cwd != ""
}

func (e *eventsPreview) finish(lines int) error {
	if !e.valid && lines > 0 {
		return errors.New("not a " + string(e.format) + " transcript")
	}
	if e.n.ID == "" {
		e.n.ID = e.id(nil, e.n.Path)
	}
	if e.n.Cwd == "" {
		for _, ev := range e.p.Finish() {
			if ev.Kind == codec.KindInit {
				e.n.Cwd = ev.CWD
			}
		}
	}
	return nil
}

// eventsFeeder feeds a transcript to a streamParser, read whole on every
// import that finds it grown.
type eventsFeeder struct {
	p   streamParser
	out []codec.Event
	// marks are the sub-agents' event counts where an earlier import
	// ended (see subagents_infile.go); nil for a parser without them.
	marks map[string]int
}

func (f *eventsFeeder) feed(line []byte, tooLong bool) {
	if tooLong {
		parse.FeedTooLong(f.p)
		return
	}
	f.out = append(f.out, f.p.Feed(line)...)
}

func (f *eventsFeeder) mark() int { return len(f.out) + f.p.Unreleased() }

// freeze: these parsers look back at no event once emitted; the
// sub-agents' counts are kept, to drop what an earlier import stored.
func (f *eventsFeeder) freeze() {
	if m, ok := f.p.(subagentMarker); ok {
		f.marks = m.SubagentMarks()
	}
}

// subagents returns the sub-agents the file holds, after events.
func (f *eventsFeeder) subagents() []inFileSub { return inFileSubagents(f.p, f.marks) }

func (f *eventsFeeder) events() []codec.Event {
	f.out = append(f.out, f.p.Finish()...)
	return f.out
}

func (f *eventsFeeder) stats() parse.Stats { return f.p.Stats() }

func (f *eventsFeeder) usage() []parse.UsageRow { return f.p.Usage() }

// resume: the file is read from its start (no parser state is kept); a
// file whose sub-agents are imported from it says so.
func (f *eventsFeeder) resume() []byte {
	if _, ok := f.p.(subagentMarker); ok {
		return []byte(inFileResumeV1)
	}
	return nil
}
