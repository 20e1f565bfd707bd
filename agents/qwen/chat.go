package qwen

// This file parses Qwen Code's chat files: one record per line, appended
// (a resumed session, --continue, goes on in the same file), each with
// uuid, parentUuid, sessionId, timestamp, cwd and type: user (a prompt,
// provenance real_user), assistant (message.parts: thought text, text,
// functionCall; usageMetadata), tool_result (functionResponse parts and
// toolCallResult.status) and system (telemetry: api_error marks the turn
// failed; the rest is not mapped). A turn ends at the next prompt or the
// end of the input, with a Complete timed from its records.

import (
	"bytes"
	"iter"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// ChatParser parses a Qwen Code chat file.
type ChatParser struct {
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

// NewChatParser returns a parser of a chat file.
func NewChatParser() *ChatParser { return &ChatParser{tools: map[string]codec.Event{}} }

// SessionID is the session's id ("" before the first record).
func (p *ChatParser) SessionID() string { return p.sessionID }

// Cwd is the folder the session ran in ("" before the first record).
func (p *ChatParser) Cwd() string { return p.cwd }

// Started is the first record's time; zero before it.
func (p *ChatParser) Started() time.Time { return p.started }

// Usage returns the token usage of the replies fed so far.
func (p *ChatParser) Usage() []parse.UsageRow { return p.usage.Rows() }

// Stats reports what was seen so far.
func (p *ChatParser) Stats() parse.Stats { return p.stats }

// Held returns the events held until the Init.
func (p *ChatParser) Held() []codec.Event { return p.init.Held() }

// SkipLine counts a line too long to parse as malformed.
func (p *ChatParser) SkipLine() {
	p.stats.Lines++
	p.stats.NoteMalformed()
}

// The keys the parser reads, by object: a line's objects are picked as
// parse.Fields, without a map of every member (each record carries ids,
// a parent and the session's metadata besides what is mapped).
var (
	lineKeys     = []string{"type", "sessionId", "timestamp", "cwd", "message", "model", "usageMetadata", "toolCallResult", "systemPayload"}
	partsKey     = []string{"parts"}
	partKeys     = []string{"text", "thought", "functionCall", "functionResponse"}
	callKeys     = []string{"name", "args", "id"}
	responseKeys = []string{"id", "name", "response"}
	outputKeys   = []string{"output", "error"}
	statusKey    = []string{"status"}
	tokenKeys    = []string{"promptTokenCount", "cachedContentTokenCount", "thoughtsTokenCount", "candidatesTokenCount"}
	uiEventKey   = []string{"uiEvent"}
	apiErrorKeys = []string{"event.name", "error_message", "error_type"}
)

// pick is the members of raw under keys; ok is false when raw is not an
// object.
func pick(raw []byte, keys []string) (*parse.Fields, bool) {
	f, ok := parse.PickFields(raw, keys)
	return &f, ok
}

// parts yields the objects among the parts of a record's message, each
// picked under partKeys (valid until the next).
func parts(o *parse.Fields) iter.Seq[*parse.Fields] {
	return func(yield func(*parse.Fields) bool) {
		m, _ := pick(o.Raw("message"), partsKey)
		for _, r := range parse.Elements(m.Raw("parts")) {
			if f, ok := parse.PickFields(r, partKeys); ok && !yield(&f) {
				return
			}
		}
	}
}

// Feed parses one line.
func (p *ChatParser) Feed(line []byte) []codec.Event {
	f, ok := p.stats.LineFields(line, lineKeys)
	if !ok {
		return nil
	}
	o := &f
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
	typ := o.Str("type")
	switch typ {
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
	if p.open && typ != "user" {
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
	if p.open {
		out = append(out, p.turnEnd()...)
	}
	return out
}

// turnEnd is the open turn's end: its API error, then Complete.
func (p *ChatParser) turnEnd() []codec.Event {
	var ms uint64
	if d := p.turnAt.Sub(p.turnStart); d > 0 && !p.turnStart.IsZero() {
		ms = uint64(d.Milliseconds())
	}
	if p.apiError != "" {
		return []codec.Event{codec.AssistantText("API Error: " + p.apiError), codec.Complete(false, ms, 0)}
	}
	return []codec.Event{codec.Complete(true, ms, 0)}
}

func (p *ChatParser) endTurn() []codec.Event {
	if !p.open {
		return nil
	}
	evs := p.turnEnd()
	p.open, p.apiError = false, ""
	return evs
}

// user maps a prompt (a record of text parts); it ends the open turn.
func (p *ChatParser) user(o *parse.Fields) []codec.Event {
	var texts []string
	for part := range parts(o) {
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
func (p *ChatParser) assistant(o *parse.Fields) ([]codec.Event, string, *store.Usage) {
	var evs []codec.Event
	for part := range parts(o) {
		if fc, ok := pick(part.Raw("functionCall"), callKeys); ok {
			name, input := MapTool(fc.Str("name"), fc.Raw("args"))
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
	um, ok := pick(o.Raw("usageMetadata"), tokenKeys)
	if !ok {
		return evs, model, nil
	}
	in, cached := um.NonNeg("promptTokenCount"), um.NonNeg("cachedContentTokenCount")
	cached = min(cached, in)
	thoughts := um.NonNeg("thoughtsTokenCount")
	u := store.Usage{Backend: Backend, Model: model, At: o.UsageTime(), Source: string(FormatChat), Tokens: store.Tokens{
		Input: in - cached, CacheRead: cached, Output: um.NonNeg("candidatesTokenCount") + thoughts, Reasoning: thoughts,
	}}
	return evs, model, &u
}

// toolResult maps each functionResponse of a tool_result record; an
// error response or a status other than success marks it failed.
func (p *ChatParser) toolResult(o *parse.Fields) []codec.Event {
	st, _ := pick(o.Raw("toolCallResult"), statusKey)
	status := st.Str("status")
	var evs []codec.Event
	for part := range parts(o) {
		fr, ok := pick(part.Raw("functionResponse"), responseKeys)
		if !ok {
			continue
		}
		id := fr.Str("id")
		resp, _ := pick(fr.Raw("response"), outputKeys)
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
func (p *ChatParser) system(o *parse.Fields) {
	// Most system lines are telemetry with large payloads: only one that
	// names an API error (literally, or behind a \u escape) is split.
	raw := o.Raw("systemPayload")
	if !bytes.Contains(raw, []byte("api_error")) && !bytes.Contains(raw, []byte(`\u`)) {
		return
	}
	payload, _ := pick(raw, uiEventKey)
	ev, _ := pick(payload.Raw("uiEvent"), apiErrorKeys)
	if ev.Str("event.name") == "qwen-code.api_error" && p.open {
		p.apiError = ev.Str("error_message")
		if p.apiError == "" {
			p.apiError = ev.Str("error_type")
		}
	}
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
