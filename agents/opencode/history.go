package opencode

import (
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// Format is OpenCode's history as DB.Lines reads it from its database.
const Format parse.Format = "opencode"

// Parser parses the lines DB.Lines returns for one session: an Init with
// the session's folder and its first assistant message's model, each
// prompt, each assistant message's parts (reasoning as thinking, text,
// tool calls with their results, each step's usage and cost), the error
// OpenCode recorded on a failed message, and a Complete after the last
// message of each turn.
type Parser struct {
	stats  parse.Stats
	usage  parse.UsageLog
	cwd    string
	inited bool
	model  string
	out    []codec.Event
	turn   turn
}

// turn is the state of the turn in progress.
type turn struct {
	open    bool
	started int64 // the prompt's time, Unix ms
	cost    float64
}

// NewParser returns an OpenCode history parser; it needs no options.
func NewParser(parse.Options) *Parser { return &Parser{} }

// Stats reports the lines seen so far.
func (p *Parser) Stats() parse.Stats { return p.stats }

// Usage returns the usage of the steps fed so far, one row per step.
func (p *Parser) Usage() []parse.UsageRow { return p.usage.Rows() }

// Feed parses one line.
func (p *Parser) Feed(line []byte) []codec.Event {
	o, ok := p.stats.Line(line)
	if !ok {
		return nil
	}
	p.out = nil
	switch o.Str("type") {
	case LineSession:
		p.cwd = o.Str("directory")
	case LineMessage:
		p.message(o.Obj("info"), o.Objs("parts"))
	default:
		p.stats.Ignored++
	}
	return p.out
}

// emit outputs evs.
func (p *Parser) emit(evs ...codec.Event) {
	p.usage.Saw(evs...)
	p.out = append(p.out, evs...)
}

// init outputs the session's Init before its first content.
func (p *Parser) init(model string) {
	if !p.inited {
		p.inited, p.model = true, model
		p.emit(codec.Init(p.cwd, model))
		return
	}
	if model != "" && model != p.model {
		p.model = model
		p.emit(codec.ModelSwitch(model))
	}
}

// message maps one message and its parts.
func (p *Parser) message(info parse.Object, parts []parse.Object) {
	switch info.Str("role") {
	case "user":
		p.endTurn(false, 0) // a turn left without its answer
		p.init(info.Obj("model").Str("modelID"))
		created, _ := info.Obj("time").Integer("created")
		p.turn = turn{open: true, started: created}
		if text := promptText(parts); strings.TrimSpace(text) != "" {
			p.emit(codec.UserMessage(text))
		}
	case "assistant":
		p.assistant(info, parts)
	default:
		p.stats.Ignored++
	}
}

// assistant maps an assistant message: its parts in order, its error, and
// the end of the turn when it is the turn's last message.
func (p *Parser) assistant(info parse.Object, parts []parse.Object) {
	p.init(info.Str("modelID"))
	for _, part := range parts {
		p.part(part, info)
	}
	if cost, ok := info.F64("cost"); ok {
		p.turn.cost += cost
	}
	completed, _ := info.Obj("time").Integer("completed")
	if e := info.Obj("error"); e != nil {
		msg := e.Obj("data").Str("message")
		if msg == "" {
			msg = e.Str("name")
		}
		p.emit(codec.AssistantText("Error: " + msg))
		if completed == 0 {
			completed, _ = info.Obj("time").Integer("created")
		}
		p.endTurn(false, completed)
		return
	}
	switch info.Str("finish") {
	case "", "tool-calls", "unknown":
	default: // stop, length, content-filter: the turn's answer
		p.endTurn(true, completed)
	}
}

// part maps one part of an assistant message.
func (p *Parser) part(part, info parse.Object) {
	if part.Str("type") == "step-finish" {
		p.usage.Add(stepUsage(part, info))
		return
	}
	p.emit(partEvents(part)...)
}

// stepUsage is one step's tokens and cost.
func stepUsage(part, info parse.Object) store.Usage {
	t := part.Obj("tokens")
	cost, ok := part.F64("cost")
	u := store.Usage{Source: string(Format), Backend: "opencode", Model: info.Str("modelID"),
		Tokens: store.Tokens{Input: parse.NonNeg(t, "input"), Output: parse.NonNeg(t, "output"),
			Reasoning: parse.NonNeg(t, "reasoning"), CacheRead: parse.NonNeg(t.Obj("cache"), "read"),
			CacheWrite: parse.NonNeg(t.Obj("cache"), "write"), CostUSD: cost},
		HasCost: ok && cost > 0}
	if ms, ok := info.Obj("time").Integer("completed"); ok && ms > 0 {
		u.At = time.UnixMilli(ms).UTC().Format(store.TimeFormat)
	}
	return u
}

// endTurn ends the open turn at completed (Unix ms; 0 when unknown).
func (p *Parser) endTurn(ok bool, completed int64) {
	if !p.turn.open {
		return
	}
	var ms uint64
	if completed > p.turn.started && p.turn.started > 0 {
		ms = uint64(completed - p.turn.started)
	}
	if !ok && completed == 0 {
		p.turn = turn{}
		return // no answer and no error: an interrupted turn, nothing to say
	}
	p.emit(codec.Complete(ok, ms, p.turn.cost))
	p.turn = turn{}
}

// Finish returns nothing: each turn ends at its last message.
func (p *Parser) Finish() []codec.Event { return nil }
