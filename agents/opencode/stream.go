package opencode

import (
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// FormatRun is the output of `opencode run --format json`: one line per
// finished part (text, reasoning with --thinking, tool_use, step_start,
// step_finish) and an error line when the request failed.
const FormatRun parse.Format = "opencode-run"

// StreamParser parses `opencode run --format json` output. The stream
// names no model and no folder: the Init carries Options.Model. A step
// that finishes for any reason but a tool call ends the turn; an error
// line ends it failed.
type StreamParser struct {
	stats   parse.Stats
	usage   parse.UsageLog
	model   string
	inited  bool
	started int64 // the first line's time, Unix ms
	cost    float64
	out     []codec.Event
}

// DefaultModel is the Init's model of a stream whose run named none: the
// model of OpenCode's own configuration (the menu's opencode-default).
const DefaultModel = "opencode-default"

// NewStreamParser returns a parser of `opencode run --format json` output;
// opts.Model is the model the run was started with ("" is DefaultModel).
func NewStreamParser(opts parse.Options) *StreamParser {
	if opts.Model == "" {
		opts.Model = DefaultModel
	}
	return &StreamParser{model: opts.Model}
}

// Stats reports the lines seen so far.
func (p *StreamParser) Stats() parse.Stats { return p.stats }

// Usage returns the usage of the steps fed so far.
func (p *StreamParser) Usage() []parse.UsageRow { return p.usage.Rows() }

// Feed parses one line.
func (p *StreamParser) Feed(line []byte) []codec.Event {
	o, ok := p.stats.Line(line)
	if !ok {
		return nil
	}
	p.out = nil
	ts, _ := o.Integer("timestamp")
	if !p.inited {
		p.inited, p.started = true, ts
		p.emit(codec.Init("", p.model))
	}
	part := o.Obj("part")
	switch o.Str("type") {
	case "text", "reasoning", "tool_use":
		p.emit(partEvents(part)...)
	case "step_finish":
		info := parse.Object{"modelID": mustString(p.model)}
		u := stepUsage(part, info)
		u.Source = string(FormatRun)
		u.At = time.UnixMilli(ts).UTC().Format(store.TimeFormat)
		p.usage.Add(u)
		p.cost += u.CostUSD
		if r := part.Str("reason"); r != "tool-calls" && r != "" {
			p.end(true, ts)
		}
	case "error":
		e := o.Obj("error")
		msg := e.Obj("data").Str("message")
		if msg == "" {
			msg = e.Str("name")
		}
		p.emit(codec.AssistantText("Error: " + msg))
		p.end(false, ts)
	case "step_start":
	default:
		p.stats.Ignored++
	}
	return p.out
}

// emit outputs evs.
func (p *StreamParser) emit(evs ...codec.Event) {
	p.usage.Saw(evs...)
	p.out = append(p.out, evs...)
}

// end ends the turn at ts (Unix ms).
func (p *StreamParser) end(ok bool, ts int64) {
	var ms uint64
	if ts > p.started && p.started > 0 {
		ms = uint64(ts - p.started)
	}
	p.emit(codec.Complete(ok, ms, p.cost))
	p.cost = 0
}

// Finish returns nothing: the turn ends at its last step or its error.
func (p *StreamParser) Finish() []codec.Event { return nil }

// partEvents maps a text, reasoning or tool part.
func partEvents(part parse.Object) []codec.Event {
	switch part.Str("type") {
	case "text":
		if t := part.Str("text"); strings.TrimSpace(t) != "" {
			if syn, _ := part.Boolean("synthetic"); !syn {
				return []codec.Event{codec.AssistantText(t)}
			}
		}
	case "reasoning":
		if t := part.Str("text"); strings.TrimSpace(t) != "" {
			return []codec.Event{store.Thinking(t)}
		}
	case "tool":
		return toolEvents(part)
	}
	return nil
}
