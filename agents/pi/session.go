package pi

import (
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// Format is Pi's session file and its `--mode json` stream: one parser
// reads both.
const Format parse.Format = "pi"

// Parser parses a Pi session file or `pi --mode json` output. It gives a
// session one Init, held back until the session's model is known (its
// model_change line, else its first assistant message), ends each turn
// with a Complete at the assistant message that stops without a tool call,
// and marks a turn whose request failed (Pi records the error and exits 0)
// with the error text and a failed Complete, once its retries are over.
type Parser struct {
	stats   parse.Stats
	usage   parse.UsageLog
	pending *codec.Event  // the Init, model not yet known
	held    []codec.Event // events after the pending Init
	out     []codec.Event // the events of the line being fed
	model   string
	asked   string          // the model a run asked for; "" for a file
	calls   map[string]call // tool calls by id, for their results
	turn    turn
}

// call is what a tool call leaves for its result.
type call struct {
	name string
	path *string
}

// turn is the state of the turn in progress.
type turn struct {
	open    bool
	started time.Time // the prompt's time
	cost    float64
	failed  string // the last error shown, while no later reply succeeded
	errTime time.Time
}

// NewParser returns a Pi parser. With opts.Model set (a run of `lazuli
// run`), the Init reports that model, the one the run asked for, whatever
// model names Pi's messages carry (their usage keeps those).
func NewParser(opts parse.Options) *Parser {
	return &Parser{calls: map[string]call{}, asked: opts.Model}
}

// Stats reports the lines seen so far.
func (p *Parser) Stats() parse.Stats { return p.stats }

// Usage returns the usage of the assistant messages fed so far, one row
// per message, with the cost Pi computed.
func (p *Parser) Usage() []parse.UsageRow { return p.usage.Rows() }

// The keys the parser reads of a line, of its message, of a message's
// content part, of its usage and of that usage's cost: each object is read
// as Fields, without a map (a Pi file is mostly small messages).
var (
	lineKeys    = []string{"type", "cwd", "modelId", "message"}
	messageKeys = []string{"role", "content", "model", "usage", "stopReason", "errorMessage", "timestamp",
		"toolCallId", "toolName", "isError", "command", "output", "exitCode", "cancelled"}
	partKeys  = []string{"type", "thinking", "text", "name", "id", "arguments"}
	usageKeys = []string{"input", "output", "cacheRead", "cacheWrite", "cost"}
	costKeys  = []string{"total"}
)

// Feed parses one line.
func (p *Parser) Feed(line []byte) []codec.Event {
	o, ok := p.stats.LineFields(line, lineKeys)
	if !ok {
		return nil
	}
	p.out = nil
	switch o.Str("type") {
	case "session":
		if p.pending == nil && p.model == "" {
			ev := codec.Init(o.Str("cwd"), "")
			p.pending = &ev
		}
	case "model_change":
		p.setModel(o.Str("modelId"))
	case "message", "message_end":
		m, _ := parse.PickFields(o.Raw("message"), messageKeys)
		p.message(&m)
	case "compaction":
		p.emit(codec.Unit(codec.KindCompacted))
	default:
		p.stats.Ignored++
	}
	return p.out
}

// emit outputs evs, or holds them while the Init waits for its model.
func (p *Parser) emit(evs ...codec.Event) {
	p.usage.Saw(evs...)
	if p.pending != nil {
		p.held = append(p.held, evs...)
		return
	}
	p.out = append(p.out, evs...)
}

// release outputs the pending Init with model, then the events held.
func (p *Parser) release(model string) {
	if p.pending == nil {
		return
	}
	ev := *p.pending
	ev.Model = model
	p.pending = nil
	p.out = append(append(p.out, ev), p.held...)
	p.usage.Saw(ev)
	p.held = nil
}

// setModel records the session's model: the pending Init gets it, a later
// change is a ModelSwitch.
func (p *Parser) setModel(model string) {
	if p.asked != "" {
		model = p.asked
	}
	if model == "" || model == p.model {
		return
	}
	first := p.model == ""
	p.model = model
	switch {
	case p.pending != nil:
		p.release(model)
	case !first:
		p.emit(codec.ModelSwitch(model))
	}
}

// message maps one message by its role.
func (p *Parser) message(m *parse.Fields) {
	switch m.Str("role") {
	case "user":
		p.endFailed()
		p.turn = turn{open: true, started: msTime(m)}
		if text := contentText(m.Raw("content")); strings.TrimSpace(text) != "" {
			p.emit(codec.UserMessage(text))
		}
	case "assistant":
		p.assistant(m)
	case "toolResult":
		c, ok := p.calls[m.Str("toolCallId")]
		if !ok {
			c = call{name: m.Str("toolName")}
		}
		isErr, _ := m.Boolean("isError")
		p.emit(codec.ToolResult(m.Str("toolCallId"), c.name, c.path, contentText(m.Raw("content")), isErr))
	case "bashExecution":
		p.bashExecution(m)
	default:
		p.stats.Ignored++
	}
}

// assistant maps an assistant message: thinking, text and tool calls in
// their order, its usage, and the turn's end when it stops without a tool
// call.
func (p *Parser) assistant(m *parse.Fields) {
	p.setModel(m.Str("model"))
	for _, raw := range parse.Elements(m.Raw("content")) {
		c, ok := parse.PickFields(raw, partKeys)
		if !ok {
			continue
		}
		switch c.Str("type") {
		case "thinking":
			if t := c.Str("thinking"); strings.TrimSpace(t) != "" {
				p.emit(store.Thinking(t))
			}
		case "text":
			if t := c.Str("text"); strings.TrimSpace(t) != "" {
				p.emit(codec.AssistantText(t))
			}
		case "toolCall":
			name, input, path := toolCall(c.Str("name"), c.Raw("arguments"))
			id := c.Str("id")
			p.calls[id] = call{name, path}
			p.emit(codec.ToolCall(id, name, path, input))
		}
	}
	p.billMessage(m)
	switch m.Str("stopReason") {
	case "toolUse":
		p.turn.failed = ""
	case "error", "aborted":
		msg := m.Str("errorMessage")
		if msg == "" {
			msg = "the request was " + m.Str("stopReason")
		}
		if msg != p.turn.failed {
			p.emit(codec.AssistantText("Error: " + msg))
		}
		p.turn.failed, p.turn.errTime = msg, msTime(m)
	default: // stop, length: the turn's answer
		p.turn.failed = ""
		p.emit(p.complete(true, msTime(m)))
	}
}

// billMessage records an assistant message's usage with Pi's cost.
func (p *Parser) billMessage(m *parse.Fields) {
	u, ok := parse.PickFields(m.Raw("usage"), usageKeys)
	if !ok {
		return
	}
	row := store.Usage{Source: string(Format), Backend: "pi", Model: m.Str("model"),
		Tokens: store.Tokens{Input: u.NonNeg("input"), Output: u.NonNeg("output"),
			CacheRead: u.NonNeg("cacheRead"), CacheWrite: u.NonNeg("cacheWrite")}}
	if row.Input+row.Output+row.CacheRead+row.CacheWrite == 0 {
		return
	}
	c, _ := parse.PickFields(u.Raw("cost"), costKeys)
	cost, ok := c.F64("total")
	row.CostUSD, row.HasCost = cost, ok
	if at := msTime(m); !at.IsZero() {
		row.At = at.UTC().Format(store.TimeFormat)
	}
	p.turn.cost += cost
	p.usage.Add(row)
}

// complete ends the open turn.
func (p *Parser) complete(ok bool, at time.Time) codec.Event {
	var ms uint64
	if !p.turn.started.IsZero() && at.After(p.turn.started) {
		ms = uint64(at.Sub(p.turn.started).Milliseconds())
	}
	ev := codec.Complete(ok, ms, p.turn.cost)
	p.turn = turn{}
	return ev
}

// endFailed ends a turn whose last request failed: Pi retried and gave up.
func (p *Parser) endFailed() {
	if p.turn.open && p.turn.failed != "" {
		p.emit(p.complete(false, p.turn.errTime))
	}
}

// bashExecution maps a command the user ran with ! as a Bash call and its
// result.
func (p *Parser) bashExecution(m *parse.Fields) {
	id := "pi-bash-" + m.Str("timestamp")
	if n, ok := m.Integer("timestamp"); ok {
		id = "pi-bash-" + time.UnixMilli(n).UTC().Format("20060102T150405.000")
	}
	input := mustCommand(m.Str("command"))
	code, hasCode := m.Integer("exitCode")
	isErr := (hasCode && code != 0) || func() bool { c, _ := m.Boolean("cancelled"); return c }()
	p.emit(codec.ToolCall(id, "Bash", nil, input), codec.ToolResult(id, "Bash", nil, m.Str("output"), isErr))
}

// Finish ends a turn left failed and releases an Init still waiting for
// its model.
func (p *Parser) Finish() []codec.Event {
	p.out = nil
	p.release(p.model)
	p.endFailed()
	return p.out
}

// msTime reads a message's timestamp (Unix milliseconds).
func msTime(m *parse.Fields) time.Time {
	n, ok := m.Integer("timestamp")
	if !ok || n <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(n)
}

// Unreleased is how many events Finish would return now: the Init still
// waiting for its model with the events held after it, and the failed
// Complete of a turn whose last request failed.
func (p *Parser) Unreleased() int {
	n := 0
	if p.pending != nil {
		n += 1 + len(p.held)
	}
	if p.turn.open && p.turn.failed != "" {
		n++
	}
	return n
}
