package gemini

// This file parses Gemini CLI's chat files. A file is a header line
// (sessionId, projectHash, startTime, kind), then message records and
// $set patches, appended as the session goes: a record whose id was
// seen replaces it (a reply is written again with its toolCalls once they
// ran), and {"$set":{"messages":[…]}} restates the whole list (on a
// resume) or rolls it back (after an API error, dropping the prompt that
// failed). Events are emitted as records come and only grow: a record
// seen again adds only its new tool calls, and a roll-back keeps what was
// emitted and ends the turn as failed. Gemini's own <session_context>
// message is not a prompt and is left out.

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// ChatParser parses a Gemini CLI chat file.
type ChatParser struct {
	stats parse.Stats
	usage parse.UsageLog

	sessionID string
	cwd       string
	started   time.Time
	init      parse.InitHold // events held until the model is known

	seen     map[string]*chatMessage // by record id
	resuming bool                    // a header line began a resume: its $set restates the list
	// The open turn: its prompt's id and time, and the time of its last
	// record; lastUser is "" when no turn is open.
	lastUser          string
	turnStart, turnAt time.Time
}

// chatMessage is what was emitted of one record.
type chatMessage struct {
	calls map[string]bool // tool call ids emitted
}

// NewChatParser returns a parser of a chat file.
func NewChatParser() *ChatParser { return &ChatParser{seen: map[string]*chatMessage{}} }

// SessionID is the session's id from the header ("" before it).
func (p *ChatParser) SessionID() string { return p.sessionID }

// Cwd is the folder the session ran in, from Gemini's session context
// ("Workspace Directories"); "" when not known yet.
func (p *ChatParser) Cwd() string { return p.cwd }

// Started is the header's startTime; zero before it.
func (p *ChatParser) Started() time.Time { return p.started }

// Usage returns the token usage of the replies fed so far.
func (p *ChatParser) Usage() []parse.UsageRow { return p.usage.Rows() }

// Stats reports what was seen so far.
func (p *ChatParser) Stats() parse.Stats { return p.stats }

// SkipLine counts a line too long to parse as malformed.
func (p *ChatParser) SkipLine() {
	p.stats.Lines++
	p.stats.NoteMalformed()
}

// Pending reports whether events are held for an Init not yet emitted.
func (p *ChatParser) Pending() bool { return p.init.Pending() }

// Held returns the events held until the Init.
func (p *ChatParser) Held() []codec.Event { return p.init.Held() }

// batch is what one line produced: events, the model of a reply among
// them, and the usage of each new reply.
type batch struct {
	evs   []codec.Event
	model string
	usage []store.Usage
}

// Feed parses one line.
func (p *ChatParser) Feed(line []byte) []codec.Event {
	o, ok := p.stats.Line(line)
	if !ok {
		return nil
	}
	var b batch
	switch {
	case o.Has("$set"):
		p.set(&b, o.Obj("$set"))
	case o.Has("projectHash"):
		if p.sessionID == "" {
			p.sessionID = o.Str("sessionId")
			if t, err := time.Parse(time.RFC3339Nano, o.Str("startTime")); err == nil {
				p.started = t.UTC()
			}
			// A sub-agent's file (kind subagent) has no session context:
			// its header lists its workspace, the first its folder.
			if dirs := o.List("directories"); p.cwd == "" && len(dirs) > 0 {
				_ = json.Unmarshal(dirs[0], &p.cwd) // not a string: no folder
			}
		} else {
			p.resuming = true // Gemini restates the list, first with its context alone
		}
	case o.Has("id") && chatTypes[o.Str("type")]:
		p.record(&b, o)
	default:
		p.stats.Ignored++
	}
	out := p.init.Release(&p.usage, p.cwd, b.evs, b.model)
	for _, u := range b.usage {
		p.usage.Add(u)
	}
	return out
}

// Finish returns, at the end of the input, the held events (with an Init
// of unknown model) and the open turn's Complete.
func (p *ChatParser) Finish() []codec.Event {
	out := p.init.Release(&p.usage, p.cwd, p.endTurn(), "")
	if p.init.Pending() {
		out = p.init.Flush(&p.usage, p.cwd, "")
	}
	return out
}

// Tail returns what Finish would return now, without ending anything.
func (p *ChatParser) Tail() []codec.Event {
	out := p.init.Peek(p.cwd)
	if p.lastUser != "" {
		out = append(out, p.complete(true))
	}
	return out
}

// endTurn ends the open turn, if any, with a successful Complete timed
// from its prompt to its last record.
func (p *ChatParser) endTurn() []codec.Event {
	if p.lastUser == "" {
		return nil
	}
	e := p.complete(true)
	p.lastUser = ""
	return []codec.Event{e}
}

// complete is the open turn's Complete.
func (p *ChatParser) complete(ok bool) codec.Event {
	var ms uint64
	if d := p.turnAt.Sub(p.turnStart); d > 0 && !p.turnStart.IsZero() {
		ms = uint64(d.Milliseconds())
	}
	return codec.Complete(ok, ms, 0)
}

// note records a record's time as the open turn's last.
func (p *ChatParser) note(o parse.Object) {
	if t, err := time.Parse(time.RFC3339Nano, o.Str("timestamp")); err == nil && t.After(p.turnAt) {
		p.turnAt = t
	}
}

// set applies a $set patch: a messages list adds the records it has that
// were not seen, and one that lacks the last prompt seen is a roll-back.
func (p *ChatParser) set(b *batch, s parse.Object) {
	if !s.Has("messages") {
		return
	}
	// The list mostly restates records seen: only an unseen one is mapped.
	msgs := s.Objs("messages")
	ids := make(map[string]bool, len(msgs))
	for _, o := range msgs {
		id := o.Str("id")
		ids[id] = true
		if _, seen := p.seen[id]; !seen {
			p.record(b, o)
		}
	}
	if p.resuming {
		p.resuming = len(ids) <= 1 // the context alone; the full list follows
		return
	}
	if p.lastUser != "" && !ids[p.lastUser] {
		// Gemini rolled the turn back: it ended in an error (the error
		// itself is only on stdout).
		b.evs = append(b.evs, p.complete(false))
		p.lastUser = ""
	}
}

// record maps one message record, or what is new in a record seen before.
func (p *ChatParser) record(b *batch, o parse.Object) {
	id := o.Str("id")
	m, seen := p.seen[id]
	if !seen {
		m = &chatMessage{calls: map[string]bool{}}
		p.seen[id] = m
		if p.lastUser != "" && o.Str("type") != "user" {
			p.note(o)
		}
	}
	switch o.Str("type") {
	case "user":
		if !seen {
			b.evs = append(b.evs, p.user(id, o)...)
		}
	case "gemini":
		p.reply(b, m, seen, o)
	case "error":
		if text := contentText(o); !seen && text != "" {
			b.evs = append(b.evs, codec.AssistantText("Error: "+text))
		}
	}
}

// user maps a prompt; the records that only carry tool responses (the
// results fed back to the model) and Gemini's session context are not
// prompts.
func (p *ChatParser) user(id string, o parse.Object) []codec.Event {
	text := contentText(o)
	if text == "" {
		return nil
	}
	if strings.HasPrefix(strings.TrimSpace(text), "<session_context>") {
		if p.cwd == "" {
			p.cwd = workspaceDir(text)
		}
		return nil
	}
	evs := p.endTurn()
	p.lastUser, p.resuming = id, false
	p.turnStart, p.turnAt = time.Time{}, time.Time{}
	if t, err := time.Parse(time.RFC3339Nano, o.Str("timestamp")); err == nil {
		p.turnStart, p.turnAt = t, t
	}
	return append(evs, codec.UserMessage(text))
}

// reply maps a model reply: thinking, text, then each tool call with its
// result; a record seen before adds only the tool calls not emitted yet.
func (p *ChatParser) reply(b *batch, m *chatMessage, seen bool, o parse.Object) {
	if !seen {
		for _, t := range o.Objs("thoughts") {
			if text := strings.TrimSpace(joinNonEmpty(t.Str("subject"), t.Str("description"))); text != "" {
				b.evs = append(b.evs, store.Thinking(text))
			}
		}
		if text := contentText(o); strings.TrimSpace(text) != "" {
			b.evs = append(b.evs, codec.AssistantText(text))
		}
		if model := o.Str("model"); model != "" {
			b.model = model
		}
		if tok := o.Obj("tokens"); tok != nil {
			u := chatUsage(tok)
			u.At, u.Source, u.Model = parse.UsageTime(o), string(FormatChat), o.Str("model")
			b.usage = append(b.usage, u)
		}
	}
	for _, tc := range o.Objs("toolCalls") {
		id := tc.Str("id")
		if m.calls[id] {
			continue
		}
		m.calls[id] = true
		b.evs = append(b.evs, toolEvents(tc)...)
	}
}

// toolEvents maps one toolCalls entry: the call and its result.
func toolEvents(tc parse.Object) []codec.Event {
	id, name := tc.Str("id"), tc.Str("name")
	call := toolCall(id, name, tc.Obj("args"), tc["args"])
	output, errText := responseText(tc)
	status := tc.Str("status")
	failed := status != "" && status != "success"
	if errText != "" {
		output, failed = errText, true
	}
	if name == "run_shell_command" && failedShell(output) {
		failed = true
	}
	if status == "" && output == "" {
		return []codec.Event{call}
	}
	return []codec.Event{call, codec.ToolResult(id, call.ToolName, call.FilePath, output, failed)}
}

// responseText returns a tool call's output and error from its result
// functionResponse parts (else its resultDisplay text).
func responseText(tc parse.Object) (output, errText string) {
	var outs, errs []string
	for _, r := range tc.Objs("result") {
		resp := r.Obj("functionResponse").Obj("response")
		if s, ok := resp.StrOK("output"); ok {
			outs = append(outs, s)
		}
		if s, ok := resp.StrOK("error"); ok {
			errs = append(errs, s)
		}
	}
	if len(outs) == 0 && len(errs) == 0 {
		if s, ok := tc.StrOK("resultDisplay"); ok {
			outs = append(outs, s)
		}
	}
	return strings.Join(outs, "\n"), strings.Join(errs, "\n")
}

// contentText is a record's content: a string, or its text parts joined.
func contentText(o parse.Object) string {
	if s, ok := o.StrOK("content"); ok {
		return s
	}
	var parts []string
	for _, part := range o.Objs("content") {
		if th, _ := part.Boolean("thought"); th {
			continue
		}
		if s, ok := part.StrOK("text"); ok {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// workspaceDir is the first of the Workspace Directories Gemini's session
// context lists.
func workspaceDir(ctx string) string {
	_, rest, ok := strings.Cut(ctx, "**Workspace Directories:**\n")
	if !ok {
		return ""
	}
	line, _, _ := strings.Cut(rest, "\n")
	return strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "- "))
}

// chatUsage maps a reply's tokens: cached input moves from Input to
// CacheRead, thoughts count as output and as reasoning.
func chatUsage(t parse.Object) store.Usage {
	in, cached := parse.NonNeg(t, "input"), parse.NonNeg(t, "cached")
	cached = min(cached, in)
	thoughts := parse.NonNeg(t, "thoughts")
	return store.Usage{Backend: Backend, Tokens: store.Tokens{
		Input: in - cached, CacheRead: cached, Output: parse.NonNeg(t, "output") + thoughts, Reasoning: thoughts,
	}}
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
