package qwen

// The chat parser as it was before it read Fields (parse.Object for every
// object of a line): the oracle of TestChatParserOracle and
// FuzzChatParserOracle, which feed both the same lines and compare what
// they give.

import (
	"bytes"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// oracleChatParser parses a Qwen Code chat file.
type oracleChatParser struct {
	stats parse.Stats
	usage parse.UsageLog

	sessionID string
	cwd       string
	started   time.Time
	init      parse.InitHold         // events held until the model is known
	tools     map[string]codec.Event // calls by id, for their results

	open              bool // a turn is open
	turnStart, turnAt time.Time
	apiError          string // the turn's last API error; "" when none
}

// newOracleChatParser returns a parser of a chat file.
func newOracleChatParser() *oracleChatParser {
	return &oracleChatParser{tools: map[string]codec.Event{}}
}

// SessionID is the session's id ("" before the first record).
func (p *oracleChatParser) SessionID() string { return p.sessionID }

// Cwd is the folder the session ran in ("" before the first record).
func (p *oracleChatParser) Cwd() string { return p.cwd }

// Started is the first record's time; zero before it.
func (p *oracleChatParser) Started() time.Time { return p.started }

// Usage returns the token usage of the replies fed so far.
func (p *oracleChatParser) Usage() []parse.UsageRow { return p.usage.Rows() }

// Stats reports what was seen so far.
func (p *oracleChatParser) Stats() parse.Stats { return p.stats }

// Held returns the events held until the Init.
func (p *oracleChatParser) Held() []codec.Event { return p.init.Held() }

// SkipLine counts a line too long to parse as malformed.
func (p *oracleChatParser) SkipLine() {
	p.stats.Lines++
	p.stats.NoteMalformed()
}

// Feed parses one line.
func (p *oracleChatParser) Feed(line []byte) []codec.Event {
	o, ok := p.stats.Line(line)
	if !ok {
		return nil
	}
	if !o.Has("type") {
		p.stats.NoteMalformed()
		return nil
	}
	if p.sessionID == "" {
		p.sessionID = o.Str("sessionId")
		if t, err := time.Parse(time.RFC3339Nano, o.Str("timestamp")); err == nil {
			p.started = t.UTC()
		}
	}
	if c := o.Str("cwd"); p.cwd == "" && c != "" {
		p.cwd = c
	}
	var evs []codec.Event
	var model string
	var usage *store.Usage
	switch o.Str("type") {
	case "user":
		evs = p.user(o)
	case "assistant":
		evs, model, usage = p.assistant(o)
	case "tool_result":
		evs = p.toolResult(o)
	case "system":
		p.system(o)
	default:
		p.stats.Ignored++
	}
	if p.open && o.Str("type") != "user" {
		if t, err := time.Parse(time.RFC3339Nano, o.Str("timestamp")); err == nil && t.After(p.turnAt) {
			p.turnAt = t
		}
	}
	out := p.init.Release(&p.usage, p.cwd, evs, model)
	if usage != nil {
		p.usage.Add(*usage)
	}
	return out
}

// Finish returns, at the end of the input, the held events and the open
// turn's end.
func (p *oracleChatParser) Finish() []codec.Event {
	out := p.init.Release(&p.usage, p.cwd, p.endTurn(), "")
	if p.init.Pending() {
		out = p.init.Flush(&p.usage, p.cwd, "")
	}
	return out
}

// Tail returns what Finish would return now, without ending anything.
func (p *oracleChatParser) Tail() []codec.Event {
	out := p.init.Peek(p.cwd)
	if p.open {
		out = append(out, p.turnEnd()...)
	}
	return out
}

// turnEnd is the open turn's end: its API error, then Complete.
func (p *oracleChatParser) turnEnd() []codec.Event {
	var ms uint64
	if d := p.turnAt.Sub(p.turnStart); d > 0 && !p.turnStart.IsZero() {
		ms = uint64(d.Milliseconds())
	}
	if p.apiError != "" {
		return []codec.Event{codec.AssistantText("API Error: " + p.apiError), codec.Complete(false, ms, 0)}
	}
	return []codec.Event{codec.Complete(true, ms, 0)}
}

func (p *oracleChatParser) endTurn() []codec.Event {
	if !p.open {
		return nil
	}
	evs := p.turnEnd()
	p.open, p.apiError = false, ""
	return evs
}

// user maps a prompt (a record of text parts); it ends the open turn.
func (p *oracleChatParser) user(o parse.Object) []codec.Event {
	var texts []string
	for _, part := range o.Obj("message").Objs("parts") {
		if s, ok := part.StrOK("text"); ok {
			texts = append(texts, s)
		}
	}
	text := strings.Join(texts, "\n")
	if strings.TrimSpace(text) == "" {
		p.stats.Ignored++
		return nil
	}
	evs := p.endTurn()
	p.open = true
	p.turnStart, p.turnAt = time.Time{}, time.Time{}
	if t, err := time.Parse(time.RFC3339Nano, o.Str("timestamp")); err == nil {
		p.turnStart, p.turnAt = t, t
	}
	return append(evs, codec.UserMessage(text))
}

// assistant maps a reply: thinking, text and tool calls, in part order,
// and its usage.
func (p *oracleChatParser) assistant(o parse.Object) ([]codec.Event, string, *store.Usage) {
	var evs []codec.Event
	for _, part := range o.Obj("message").Objs("parts") {
		if fc := part.Obj("functionCall"); fc != nil {
			name, input := MapTool(fc.Str("name"), fc["args"])
			call := codec.ToolCall(fc.Str("id"), name, filePath(input), input)
			p.tools[call.ToolUseID] = call
			evs = append(evs, call)
			continue
		}
		text, ok := part.StrOK("text")
		if !ok || strings.TrimSpace(text) == "" {
			continue
		}
		if th, _ := part.Boolean("thought"); th {
			evs = append(evs, store.Thinking(strings.TrimSpace(text)))
		} else {
			evs = append(evs, codec.AssistantText(text))
		}
	}
	model := o.Str("model")
	um := o.Obj("usageMetadata")
	if um == nil {
		return evs, model, nil
	}
	in, cached := parse.NonNeg(um, "promptTokenCount"), parse.NonNeg(um, "cachedContentTokenCount")
	cached = min(cached, in)
	thoughts := parse.NonNeg(um, "thoughtsTokenCount")
	u := store.Usage{Backend: Backend, Model: model, At: parse.UsageTime(o), Source: string(FormatChat), Tokens: store.Tokens{
		Input: in - cached, CacheRead: cached, Output: parse.NonNeg(um, "candidatesTokenCount") + thoughts, Reasoning: thoughts,
	}}
	return evs, model, &u
}

// toolResult maps each functionResponse of a tool_result record; an
// error response or a status other than success marks it failed.
func (p *oracleChatParser) toolResult(o parse.Object) []codec.Event {
	status := o.Obj("toolCallResult").Str("status")
	var evs []codec.Event
	for _, part := range o.Obj("message").Objs("parts") {
		fr := part.Obj("functionResponse")
		if fr == nil {
			continue
		}
		id := fr.Str("id")
		resp := fr.Obj("response")
		out, failed := resp.Str("output"), status != "" && status != "success"
		if e, ok := resp.StrOK("error"); ok {
			out, failed = joinNonEmpty(out, e), true
		}
		call, ok := p.tools[id]
		name := call.ToolName
		if !ok {
			name = toolName(fr.Str("name"))
		}
		evs = append(evs, codec.ToolResult(id, name, call.FilePath, out, failed))
	}
	return evs
}

// system reads Qwen's telemetry records for API errors.
func (p *oracleChatParser) system(o parse.Object) {
	// Most system lines are telemetry with large payloads: only one that
	// names an API error (literally, or behind a \u escape) is split.
	if raw := o["systemPayload"]; !bytes.Contains(raw, []byte("api_error")) && !bytes.Contains(raw, []byte(`\u`)) {
		return
	}
	ev := o.Obj("systemPayload").Obj("uiEvent")
	if ev.Str("event.name") == "qwen-code.api_error" && p.open {
		p.apiError = ev.Str("error_message")
		if p.apiError == "" {
			p.apiError = ev.Str("error_type")
		}
	}
}
