package copilot

// The parser as it was before it read Fields (parse.Object for every
// object of a line): the oracle of TestParserOracle and FuzzParserOracle,
// which feed both the same lines and compare everything they give.

import (
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// Parser parses a Copilot CLI event log or JSON stream. Events with an
// agentId are a sub-agent's: they are kept apart (TakeSubagents) under the
// task call that started it. A turn ends with a Complete at the main
// agent's message that asks for no tool, or failed at a session.error.
type oracleParser struct {
	stats  parse.Stats
	usage  parse.UsageLog
	out    []codec.Event
	model  string
	asked  string // the model a run asked for; "" for a file
	cwd    string // the session's folder, a sub-agent's too
	inited bool
	calls  map[string]call
	turn   turn
	subs   map[string]*sub // by agentId
	order  []string        // agentIds in the order they began
	handed int             // subagents already handed out
}

// NewParser returns a Copilot CLI parser. With opts.Model set (a run of
// `lazuli run`), the Init reports that model, the one the run asked for,
// whatever model the events name (their usage keeps those).
func newOracleParser(opts parse.Options) *oracleParser {
	return &oracleParser{model: opts.Model, asked: opts.Model, calls: map[string]call{}, subs: map[string]*sub{}}
}

// Stats reports the lines seen so far.
func (p *oracleParser) Stats() parse.Stats { return p.stats }

// Usage returns the usage records fed so far, the sub-agents' included
// (Copilot bills them to the session), one row per model call. Copilot
// reports its cost in premium requests, not dollars, so rows carry none
// and the insight index prices them by model.
func (p *oracleParser) Usage() []parse.UsageRow { return p.usage.Rows() }

// Feed parses one line.
func (p *oracleParser) Feed(line []byte) []codec.Event {
	o, ok := p.stats.Line(line)
	if !ok {
		return nil
	}
	p.out = nil
	if agent := o.Str("agentId"); agent != "" {
		p.subagent(agent, o)
		return nil
	}
	d := o.Obj("data")
	switch o.Str("type") {
	case "session.start":
		p.start(d.Obj("context").Str("cwd"), d.Str("selectedModel"))
	case "session.resume":
		p.start(d.Obj("context").Str("cwd"), d.Str("selectedModel"))
	case "session.model_change":
		p.setModel(d.FirstStr("newModel", "model"))
	case "session.tools_updated":
		if m := d.Str("model"); m != "" && !p.inited && p.asked == "" {
			p.model = m
		}
	case "user.message":
		if !p.inited {
			p.start("", p.model)
		}
		p.turn = turn{open: true, started: oracleLineTime(o)}
		if text := d.Str("content"); strings.TrimSpace(text) != "" {
			p.emit(codec.UserMessage(text))
		}
	case "assistant.message":
		p.assistant(d, o)
	case "tool.execution_complete":
		p.emit(oracleResult(p.calls, d))
	case "session.usage_record":
		p.bill(d.Obj("usage"), o)
	case "session.error":
		p.sessionError(d, o)
	case "session.compaction_complete":
		p.emit(codec.Unit(codec.KindCompacted))
	case LineStoreSession:
		p.start(d.Str("cwd"), "")
	case LineStoreTurn:
		p.storeTurn(d)
	default:
		p.stats.Ignored++
	}
	return p.out
}

// setModel records a model change (ok false or an empty model changes
// nothing): a ModelSwitch once the session has its Init.
func (p *oracleParser) setModel(model string, ok bool) {
	if p.asked != "" {
		return
	}
	if !ok || model == "" || model == p.model {
		return
	}
	p.model = model
	if p.inited {
		p.emit(codec.ModelSwitch(model))
	}
}

// emit outputs evs.
func (p *oracleParser) emit(evs ...codec.Event) {
	p.usage.Saw(evs...)
	p.out = append(p.out, evs...)
}

// start gives the session its Init (a resume adds none, and switches
// the model when it changed).
func (p *oracleParser) start(cwd, model string) {
	if p.inited {
		p.setModel(model, true)
		return
	}
	if model == "" || p.asked != "" {
		model = p.model
	}
	p.inited, p.model, p.cwd = true, model, cwd
	p.emit(codec.Init(cwd, model))
}

// assistant maps one assistant message: thinking, text, tool calls, and
// the turn's end when it asks for no tool.
func (p *oracleParser) assistant(d, o parse.Object) {
	if !p.inited {
		p.start("", d.Str("model"))
	}
	p.emit(oracleMessageEvents(d, p.calls)...)
	if len(d.List("toolRequests")) == 0 && p.turn.open {
		p.emit(p.complete(true, oracleLineTime(o)))
	}
}

// messageEvents maps an assistant message's thinking, text and tool calls,
// recording the calls for their results.
func oracleMessageEvents(d parse.Object, calls map[string]call) []codec.Event {
	var out []codec.Event
	if t := d.Str("reasoningText"); strings.TrimSpace(t) != "" {
		out = append(out, store.Thinking(t))
	}
	if t := d.Str("content"); strings.TrimSpace(t) != "" {
		out = append(out, codec.AssistantText(t))
	}
	for _, r := range d.Objs("toolRequests") {
		id := r.Str("toolCallId")
		name, input, path := parse.MapTool(copilotTools, r.Str("name"), r["arguments"])
		calls[id] = call{name, path}
		out = append(out, codec.ToolCall(id, name, path, input))
	}
	return out
}

// result maps a tool.execution_complete: the text the model got, an error
// when the tool failed or a shell command exited non-zero.
func oracleResult(calls map[string]call, d parse.Object) codec.Event {
	id := d.Str("toolCallId")
	c := calls[id]
	ok, _ := d.Boolean("success")
	text := d.Obj("result").Str("content")
	if !ok {
		if e, isStr := d.StrOK("error"); isStr {
			text = e
		} else if m := d.Obj("error").Str("message"); m != "" {
			text = m
		}
	}
	isErr := !ok
	if code, has := d.Obj("shellExecution").Integer("exitCode"); has && code != 0 {
		isErr = true
	}
	return codec.ToolResult(id, c.name, c.path, text, isErr)
}

// bill records one model call's tokens.
func (p *oracleParser) bill(u, o parse.Object) {
	if u == nil {
		return
	}
	p.usage.Add(store.Usage{Source: string(Format), Backend: "copilot", Model: u.Str("model"), At: parse.UsageTime(o),
		Tokens: store.Tokens{Input: parse.NonNeg(u, "inputTokens"), Output: parse.NonNeg(u, "outputTokens"),
			CacheRead: parse.NonNeg(u, "cacheReadTokens"), CacheWrite: parse.NonNeg(u, "cacheWriteTokens"),
			Reasoning: parse.NonNeg(u, "reasoningTokens")}})
}

// sessionError shows an error the session recorded and fails the turn.
func (p *oracleParser) sessionError(d, o parse.Object) {
	msg := d.Str("message")
	if msg == "" {
		msg = d.Str("errorType")
	}
	p.emit(codec.AssistantText("Error: " + msg))
	if p.turn.open {
		p.emit(p.complete(false, oracleLineTime(o)))
	}
}

// complete ends the open turn at t.
func (p *oracleParser) complete(ok bool, t time.Time) codec.Event {
	var ms uint64
	if !p.turn.started.IsZero() && t.After(p.turn.started) {
		ms = uint64(t.Sub(p.turn.started).Milliseconds())
	}
	p.turn = turn{}
	return codec.Complete(ok, ms, 0)
}

// subagent files one line of a sub-agent's work under it.
func (p *oracleParser) subagent(agent string, o parse.Object) {
	s := p.subs[agent]
	if s == nil {
		s = &sub{calls: map[string]call{}}
		s.ev.Started = oracleLineTime(o)
		p.subs[agent] = s
		p.order = append(p.order, agent)
	}
	d := o.Obj("data")
	switch o.Str("type") {
	case "subagent.started":
		s.ev.ToolUseID = d.Str("toolCallId")
		s.ev.Asked = d.Str("agentDescription")
		s.ev.Events = append(s.ev.Events, codec.Init(p.cwd, d.Str("model")))
	case "user.message":
		if t := d.Str("content"); strings.TrimSpace(t) != "" {
			s.ev.Asked = t
			s.ev.Events = append(s.ev.Events, codec.UserMessage(t))
		}
	case "assistant.message":
		s.ev.Events = append(s.ev.Events, oracleMessageEvents(d, s.calls)...)
	case "tool.execution_complete":
		s.ev.Events = append(s.ev.Events, oracleResult(s.calls, d))
	case "session.usage_record":
		p.bill(d.Obj("usage"), o) // Copilot bills a sub-agent's calls to the session
	case "subagent.completed", "subagent.failed":
		ok := o.Str("type") == "subagent.completed"
		ms, _ := d.U64("durationMs")
		s.ev.Events = append(s.ev.Events, codec.Complete(ok, ms, 0))
		s.done = true
	}
}

// TakeSubagents returns the sub-agents begun since the last call, each
// with the events seen so far; call it again after Finish for the rest.
func (p *oracleParser) TakeSubagents() []parse.SubagentEvents {
	var out []parse.SubagentEvents
	for p.handed < len(p.order) {
		s := p.subs[p.order[p.handed]]
		if !s.done {
			break
		}
		out = append(out, s.ev)
		p.handed++
	}
	return out
}

// SubagentMarks returns, by the call that started it (TakeSubagents'
// ToolUseID), how many events each sub-agent begun so far has: an import
// that goes on from this line drops that many of each sub-agent's events,
// stored before.
func (p *oracleParser) SubagentMarks() map[string]int {
	out := make(map[string]int, len(p.order))
	for _, a := range p.order {
		s := p.subs[a]
		out[s.ev.ToolUseID] = len(s.ev.Events)
	}
	return out
}

// Finish hands the unfinished sub-agents over and ends nothing else: an
// open turn without an answer was interrupted.
func (p *oracleParser) Finish() []codec.Event {
	for _, a := range p.order {
		p.subs[a].done = true
	}
	return nil
}

// lineTime is a line's timestamp; zero when it has none.
func oracleLineTime(o parse.Object) time.Time {
	t, err := time.Parse(time.RFC3339Nano, o.Str("timestamp"))
	if err != nil {
		return time.Time{}
	}
	return t
}

// storeTurn maps a LineStoreTurn: the prompt, the answer and a Complete
// (failed when the store has no answer). The store keeps no tool calls,
// thinking or usage.
func (p *oracleParser) storeTurn(d parse.Object) {
	if !p.inited {
		p.start("", p.model)
	}
	if u := d.Str("userMessage"); strings.TrimSpace(u) != "" {
		p.emit(codec.UserMessage(u))
	}
	a := d.Str("assistantResponse")
	if strings.TrimSpace(a) != "" {
		p.emit(codec.AssistantText(a))
	}
	p.turn = turn{}
	p.emit(codec.Complete(strings.TrimSpace(a) != "", 0, 0))
}
