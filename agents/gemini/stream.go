package gemini

// This file parses the stdout of `gemini -p … --output-format
// stream-json`: init (session_id, model), message (role user, or
// assistant text in delta pieces), tool_use (tool_name, tool_id,
// parameters), tool_result (tool_id, status, output or error), error,
// and result (status, error, stats with tokens per model and the
// duration).

import (
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// StreamParser parses Gemini CLI's stream-json output.
type StreamParser struct {
	stats     parse.Stats
	usage     parse.UsageLog
	model     string // asked for; the init line's wins unless it says "auto"
	sessionID string
	initDone  bool
	text      strings.Builder // assistant deltas not emitted yet
	tools     map[string]codec.Event
}

// NewStreamParser returns a parser whose Init reports model when the
// stream names none.
func NewStreamParser(model string) *StreamParser {
	return &StreamParser{model: model, tools: map[string]codec.Event{}}
}

// SessionID is the session id of the init line ("" before it).
func (p *StreamParser) SessionID() string { return p.sessionID }

// Usage returns the usage of the result lines fed so far.
func (p *StreamParser) Usage() []parse.UsageRow { return p.usage.Rows() }

// Stats reports what was seen so far.
func (p *StreamParser) Stats() parse.Stats { return p.stats }

// SkipLine counts a line too long to parse as malformed.
func (p *StreamParser) SkipLine() {
	p.stats.Lines++
	p.stats.NoteMalformed()
}

// Feed parses one line of output.
func (p *StreamParser) Feed(line []byte) []codec.Event {
	o, ok := p.stats.Line(line)
	if !ok {
		return nil
	}
	typ := o.Str("type")
	var evs []codec.Event
	if typ != "message" || o.Str("role") != "assistant" {
		evs = p.flushText()
	}
	switch typ {
	case "init":
		p.sessionID = o.Str("session_id")
		if m := o.Str("model"); m != "" && m != "auto" {
			p.model = m
		}
		if !p.initDone {
			p.initDone = true
			evs = append(evs, codec.Init("", p.model))
		}
	case "message":
		if o.Str("role") == "user" {
			evs = append(evs, codec.UserMessage(o.Str("content")))
		} else {
			p.text.WriteString(o.Str("content"))
		}
	case "tool_use":
		id := o.Str("tool_id")
		call := toolCall(id, o.Str("tool_name"), o.Obj("parameters"), o["parameters"])
		p.tools[id] = call
		evs = append(evs, call)
	case "tool_result":
		evs = append(evs, p.result(o))
	case "error":
		evs = append(evs, codec.AssistantText("Error: "+o.Str("message")))
	case "result":
		evs = append(evs, p.complete(o)...)
	default:
		p.stats.Ignored++
	}
	p.usage.Saw(evs...)
	if typ == "result" {
		for _, u := range streamUsage(o) {
			u.At, u.Source = parse.UsageTime(o), string(FormatStream)
			p.usage.Add(u)
		}
	}
	return evs
}

// Finish returns the assistant text not emitted yet.
func (p *StreamParser) Finish() []codec.Event {
	evs := p.flushText()
	p.usage.Saw(evs...)
	return evs
}

func (p *StreamParser) flushText() []codec.Event {
	if p.text.Len() == 0 {
		return nil
	}
	t := p.text.String()
	p.text.Reset()
	if strings.TrimSpace(t) == "" {
		return nil
	}
	return []codec.Event{codec.AssistantText(t)}
}

// result maps a tool_result; a shell step whose output names a non-zero
// exit code is an error.
func (p *StreamParser) result(o parse.Object) codec.Event {
	id := o.Str("tool_id")
	call := p.tools[id]
	output := o.Str("output")
	failed := o.Str("status") != "success"
	if e := o.Obj("error"); e != nil {
		output, failed = joinNonEmpty(output, e.Str("message")), true
	}
	if call.ToolName == "Bash" && failedShell(output) {
		failed = true
	}
	return codec.ToolResult(id, call.ToolName, call.FilePath, output, failed)
}

// complete maps the result line: an error's message, then Complete.
func (p *StreamParser) complete(o parse.Object) []codec.Event {
	var evs []codec.Event
	ok := o.Str("status") == "success"
	if e := o.Obj("error"); e != nil {
		evs = append(evs, codec.AssistantText("API Error: "+strings.TrimPrefix(strings.TrimSuffix(e.Str("message"), "]"), "[API Error: ")))
	}
	dur, _ := o.Obj("stats").U64("duration_ms")
	return append(evs, codec.Complete(ok, dur, 0))
}

// streamUsage returns one usage row per model of the result's stats.
func streamUsage(o parse.Object) []store.Usage {
	models := o.Obj("stats").Obj("models")
	var out []store.Usage
	for name := range models {
		m := models.Obj(name)
		in, cached := parse.NonNeg(m, "input_tokens"), parse.NonNeg(m, "cached")
		cached = min(cached, in)
		u := store.Usage{Backend: Backend, Model: name, Tokens: store.Tokens{
			Input: in - cached, CacheRead: cached, Output: parse.NonNeg(m, "output_tokens"),
		}}
		if u.Input+u.CacheRead+u.Output > 0 {
			out = append(out, u)
		}
	}
	sortUsage(out)
	return out
}
