package copilot

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// Format is Copilot CLI's event log (events.jsonl) and its `-p
// --output-format json` stream: one parser reads both.
const Format parse.Format = "copilot"

// Parser parses a Copilot CLI event log or JSON stream. Events with an
// agentId are a sub-agent's: they are kept apart (TakeSubagents) under the
// task call that started it. A turn ends with a Complete at the main
// agent's message that asks for no tool, or failed at a session.error.
type Parser struct {
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

// call is what a tool call leaves for its result.
type call struct {
	name string
	path *string
}

// turn is the state of the turn in progress.
type turn struct {
	open    bool
	started time.Time
}

// sub is one sub-agent's work.
type sub struct {
	ev    parse.SubagentEvents
	calls map[string]call
	done  bool
}

// NewParser returns a Copilot CLI parser. With opts.Model set (a run of
// `lazuli run`), the Init reports that model, the one the run asked for,
// whatever model the events name (their usage keeps those).
func NewParser(opts parse.Options) *Parser {
	return &Parser{model: opts.Model, asked: opts.Model, calls: map[string]call{}, subs: map[string]*sub{}}
}

// Stats reports the lines seen so far.
func (p *Parser) Stats() parse.Stats { return p.stats }

// Usage returns the usage records fed so far, the sub-agents' included
// (Copilot bills them to the session), one row per model call. Copilot
// reports its cost in premium requests, not dollars, so rows carry none
// and the insight index prices them by model.
func (p *Parser) Usage() []parse.UsageRow { return p.usage.Rows() }

// The keys the parser reads, by object: a line's objects are picked as
// parse.Fields, without a map of every member (Copilot's events carry ids,
// parents and telemetry the parser never reads).
var (
	lineKeys     = []string{"agentId", "type", "data", "timestamp"}
	startKeys    = []string{"context", "selectedModel"}
	cwdKeys      = []string{"cwd"}
	modelKeys    = []string{"newModel", "model"}
	contentKeys  = []string{"content"}
	messageKeys  = []string{"model", "reasoningText", "content", "toolRequests"}
	requestKeys  = []string{"toolCallId", "name", "arguments"}
	resultKeys   = []string{"toolCallId", "success", "result", "error", "shellExecution"}
	messageKey   = []string{"message"}
	exitKeys     = []string{"exitCode"}
	usageKey     = []string{"usage"}
	usageKeys    = []string{"model", "inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens"}
	errorKeys    = []string{"message", "errorType"}
	subStartKeys = []string{"toolCallId", "agentDescription", "model"}
	durationKeys = []string{"durationMs"}
	turnKeys     = []string{"userMessage", "assistantResponse"}
)

// pick is the members of raw under keys; none when raw is not an object.
func pick(raw []byte, keys []string) *parse.Fields {
	f, _ := parse.PickFields(raw, keys)
	return &f
}

// Feed parses one line.
func (p *Parser) Feed(line []byte) []codec.Event {
	o, ok := p.stats.LineFields(line, lineKeys)
	if !ok {
		return nil
	}
	p.out = nil
	if agent := o.Str("agentId"); agent != "" {
		p.subagent(agent, &o)
		return nil
	}
	data := o.Raw("data")
	switch o.Str("type") {
	case "session.start", "session.resume":
		d := pick(data, startKeys)
		p.start(pick(d.Raw("context"), cwdKeys).Str("cwd"), d.Str("selectedModel"))
	case "session.model_change":
		p.setModel(pick(data, modelKeys).FirstStr("newModel", "model"))
	case "session.tools_updated":
		if m := pick(data, modelKeys).Str("model"); m != "" && !p.inited && p.asked == "" {
			p.model = m
		}
	case "user.message":
		if !p.inited {
			p.start("", p.model)
		}
		p.turn = turn{open: true, started: lineTime(&o)}
		if text := pick(data, contentKeys).Str("content"); strings.TrimSpace(text) != "" {
			p.emit(codec.UserMessage(text))
		}
	case "assistant.message":
		p.assistant(pick(data, messageKeys), &o)
	case "tool.execution_complete":
		p.emit(result(p.calls, pick(data, resultKeys)))
	case "session.usage_record":
		p.bill(pick(data, usageKey).Raw("usage"), &o)
	case "session.error":
		p.sessionError(pick(data, errorKeys), &o)
	case "session.compaction_complete":
		p.emit(codec.Unit(codec.KindCompacted))
	case LineStoreSession:
		p.start(pick(data, cwdKeys).Str("cwd"), "")
	case LineStoreTurn:
		p.storeTurn(pick(data, turnKeys))
	default:
		p.stats.Ignored++
	}
	return p.out
}

// setModel records a model change (ok false or an empty model changes
// nothing): a ModelSwitch once the session has its Init.
func (p *Parser) setModel(model string, ok bool) {
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
func (p *Parser) emit(evs ...codec.Event) {
	p.usage.Saw(evs...)
	p.out = append(p.out, evs...)
}

// start gives the session its Init (a resume adds none, and switches
// the model when it changed).
func (p *Parser) start(cwd, model string) {
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
func (p *Parser) assistant(d, o *parse.Fields) {
	if !p.inited {
		p.start("", d.Str("model"))
	}
	reqs := parse.Elements(d.Raw("toolRequests"))
	p.emit(messageEvents(d, reqs, p.calls)...)
	if len(reqs) == 0 && p.turn.open {
		p.emit(p.complete(true, lineTime(o)))
	}
}

// messageEvents maps an assistant message's thinking, text and tool calls
// (reqs, its toolRequests), recording the calls for their results.
func messageEvents(d *parse.Fields, reqs []json.RawMessage, calls map[string]call) []codec.Event {
	var out []codec.Event
	if t := d.Str("reasoningText"); strings.TrimSpace(t) != "" {
		out = append(out, store.Thinking(t))
	}
	if t := d.Str("content"); strings.TrimSpace(t) != "" {
		out = append(out, codec.AssistantText(t))
	}
	for _, raw := range reqs {
		r, ok := parse.PickFields(raw, requestKeys)
		if !ok {
			continue
		}
		id := r.Str("toolCallId")
		name, input, path := parse.MapTool(copilotTools, r.Str("name"), r.Raw("arguments"))
		calls[id] = call{name, path}
		out = append(out, codec.ToolCall(id, name, path, input))
	}
	return out
}

// result maps a tool.execution_complete: the text the model got, an error
// when the tool failed or a shell command exited non-zero.
func result(calls map[string]call, d *parse.Fields) codec.Event {
	id := d.Str("toolCallId")
	c := calls[id]
	ok, _ := d.Boolean("success")
	text := pick(d.Raw("result"), contentKeys).Str("content")
	if !ok {
		if e, isStr := d.StrOK("error"); isStr {
			text = e
		} else if m := pick(d.Raw("error"), messageKey).Str("message"); m != "" {
			text = m
		}
	}
	isErr := !ok
	if code, has := pick(d.Raw("shellExecution"), exitKeys).Integer("exitCode"); has && code != 0 {
		isErr = true
	}
	return codec.ToolResult(id, c.name, c.path, text, isErr)
}

// bill records one model call's tokens (usage, the record's object).
func (p *Parser) bill(usage []byte, o *parse.Fields) {
	u, ok := parse.PickFields(usage, usageKeys)
	if !ok {
		return
	}
	p.usage.Add(store.Usage{Source: string(Format), Backend: "copilot", Model: u.Str("model"), At: o.UsageTime(),
		Tokens: store.Tokens{Input: u.NonNeg("inputTokens"), Output: u.NonNeg("outputTokens"),
			CacheRead: u.NonNeg("cacheReadTokens"), CacheWrite: u.NonNeg("cacheWriteTokens"),
			Reasoning: u.NonNeg("reasoningTokens")}})
}

// sessionError shows an error the session recorded and fails the turn.
func (p *Parser) sessionError(d, o *parse.Fields) {
	msg := d.Str("message")
	if msg == "" {
		msg = d.Str("errorType")
	}
	p.emit(codec.AssistantText("Error: " + msg))
	if p.turn.open {
		p.emit(p.complete(false, lineTime(o)))
	}
}

// complete ends the open turn at t.
func (p *Parser) complete(ok bool, t time.Time) codec.Event {
	var ms uint64
	if !p.turn.started.IsZero() && t.After(p.turn.started) {
		ms = uint64(t.Sub(p.turn.started).Milliseconds())
	}
	p.turn = turn{}
	return codec.Complete(ok, ms, 0)
}

// subagent files one line of a sub-agent's work under it.
func (p *Parser) subagent(agent string, o *parse.Fields) {
	s := p.subs[agent]
	if s == nil {
		s = &sub{calls: map[string]call{}}
		s.ev.Started = lineTime(o)
		p.subs[agent] = s
		p.order = append(p.order, agent)
	}
	data := o.Raw("data")
	switch typ := o.Str("type"); typ {
	case "subagent.started":
		d := pick(data, subStartKeys)
		s.ev.ToolUseID = d.Str("toolCallId")
		s.ev.Asked = d.Str("agentDescription")
		s.ev.Events = append(s.ev.Events, codec.Init(p.cwd, d.Str("model")))
	case "user.message":
		if t := pick(data, contentKeys).Str("content"); strings.TrimSpace(t) != "" {
			s.ev.Asked = t
			s.ev.Events = append(s.ev.Events, codec.UserMessage(t))
		}
	case "assistant.message":
		d := pick(data, messageKeys)
		s.ev.Events = append(s.ev.Events, messageEvents(d, parse.Elements(d.Raw("toolRequests")), s.calls)...)
	case "tool.execution_complete":
		s.ev.Events = append(s.ev.Events, result(s.calls, pick(data, resultKeys)))
	case "session.usage_record":
		p.bill(pick(data, usageKey).Raw("usage"), o) // Copilot bills a sub-agent's calls to the session
	case "subagent.completed", "subagent.failed":
		ms, _ := pick(data, durationKeys).U64("durationMs")
		s.ev.Events = append(s.ev.Events, codec.Complete(typ == "subagent.completed", ms, 0))
		s.done = true
	}
}

// TakeSubagents returns the sub-agents begun since the last call, each
// with the events seen so far; call it again after Finish for the rest.
func (p *Parser) TakeSubagents() []parse.SubagentEvents {
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
func (p *Parser) SubagentMarks() map[string]int {
	out := make(map[string]int, len(p.order))
	for _, a := range p.order {
		s := p.subs[a]
		out[s.ev.ToolUseID] = len(s.ev.Events)
	}
	return out
}

// Finish hands the unfinished sub-agents over and ends nothing else: an
// open turn without an answer was interrupted.
func (p *Parser) Finish() []codec.Event {
	for _, a := range p.order {
		p.subs[a].done = true
	}
	return nil
}

// lineTime is a line's timestamp; zero when it has none.
func lineTime(o *parse.Fields) time.Time {
	t, err := time.Parse(time.RFC3339Nano, o.Str("timestamp"))
	if err != nil {
		return time.Time{}
	}
	return t
}
