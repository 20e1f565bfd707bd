package claude

import (
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// This file holds the parser for format A, the stdout of
// `claude -p … --verbose --output-format stream-json` (spec §5.3).
// claude_transcript.go holds format B, claude_shared.go what both share.
// Deliberate differences from AZUREAL are listed in docs/compatibility.md.

// claudeSummaryPrefix starts the user message Claude Code writes after it
// compacted a conversation.
const claudeSummaryPrefix = "This session is being continued from a previous conversation"

// StreamParser parses Claude Code's stream-json stdout line by line, as
// the process writes it. Every line's events are returned at once; nothing is
// held back, and a run without a final result line simply has no Complete.
//
// A sub-agent's lines (parent_tool_use_id set) stay out of the main
// thread's events: each sub-agent gets a parser of its own, and its events
// are handed out by TakeSubagents, to be stored as a session of its own.
type StreamParser struct {
	stats  parse.Stats
	tools  claudeTools
	agents map[string]bool // open Agent/Task calls, by tool_use id
	model  string          // the init line's model, for a result without modelUsage
	usage  parse.UsageLog

	asked map[string]string        // what each Agent/Task call asked, by tool_use id; shared with sub-parsers
	subs  map[string]*StreamParser // the parsers of sub-agents, by their call's tool_use id
	order []string                 // sub-agent call ids in the order their work began
	ready map[string][]codec.Event // sub-agent events not yet taken, by call id
	start map[string]time.Time     // each sub-agent's first line timestamp, by call id
	echo  string                   // a sub-parser's prompt, dropped when the stream repeats it
}

// NewStreamParser returns a stream parser; it needs no options.
func NewStreamParser(parse.Options) *StreamParser {
	return &StreamParser{tools: claudeTools{}, agents: map[string]bool{}, asked: map[string]string{},
		subs: map[string]*StreamParser{}, ready: map[string][]codec.Event{}, start: map[string]time.Time{}}
}

// TakeSubagents implements SubagentSource.
func (p *StreamParser) TakeSubagents() []parse.SubagentEvents {
	if len(p.ready) == 0 {
		return nil
	}
	var out []parse.SubagentEvents
	for _, id := range p.order {
		if evs := p.ready[id]; len(evs) > 0 {
			out = append(out, parse.SubagentEvents{ToolUseID: id, Asked: p.asked[id], Events: store.FilterInjectedEvents(evs),
				Started: p.start[id]})
		}
	}
	clear(p.ready)
	return out
}

// subagentLine parses a line of the sub-agent started by call id.
func (p *StreamParser) subagentLine(id string, o parse.Object) {
	sub := p.subs[id]
	if sub == nil {
		sub = NewStreamParser(parse.Options{})
		sub.asked = p.asked // a sub-agent's own Agent calls are sub-agents too
		sub.echo = p.asked[id]
		p.subs[id] = sub
		p.order = append(p.order, id)
		if sub.echo != "" {
			p.ready[id] = append(p.ready[id], codec.UserMessage(sub.echo))
		}
	}
	if _, ok := p.start[id]; !ok {
		if ts := Timestamp(o); ts.Ok {
			p.start[id] = ts.T.UTC()
		}
	}
	events, _ := sub.dispatch(o)
	p.ready[id] = append(p.ready[id], events...)
}

// Feed parses one stdout (or stderr) line.
func (p *StreamParser) Feed(line []byte) []codec.Event {
	events, o := p.feed(line)
	p.usage.Saw(events...)
	for _, e := range events {
		if e.Kind == codec.KindInit {
			p.model = e.Model
		}
	}
	if o.Str("type") == "result" {
		for _, u := range claudeResultUsage(o, p.model) {
			p.usage.Add(u)
		}
	}
	return events
}

// Usage returns the usage of the result lines fed so far.
func (p *StreamParser) Usage() []parse.UsageRow { return p.usage.Rows() }

// feed parses one line and returns its events and, for a JSON line, the
// decoded object.
func (p *StreamParser) feed(line []byte) ([]codec.Event, parse.Object) {
	p.stats.Lines++
	line = TrimLine(line)
	if len(line) == 0 {
		return nil, nil
	}
	if line[0] != '{' {
		// Not JSON: stderr text, which may still announce a hook.
		p.stats.NoteMalformed()
		return claudeTextHook(string(line)), nil
	}
	o, ok := parse.DecodeObject(line)
	if !ok {
		p.stats.NoteMalformed()
		return nil, nil
	}
	if id := claudeSubagentOf(o); id != "" {
		p.subagentLine(id, o) // its usage is in the result line's, which counts the whole run
		return nil, nil
	}
	events, mapped := p.dispatch(o)
	if !mapped {
		p.stats.Ignored++
	}
	return events, o
}

// Finish returns nothing: the stream parser holds nothing back.
func (p *StreamParser) Finish() []codec.Event { return nil }

// Stats reports the lines seen so far.
func (p *StreamParser) Stats() parse.Stats { return p.stats }

// SkipLine counts an over-long line as malformed.
func (p *StreamParser) SkipLine() {
	p.stats.Lines++
	p.stats.NoteMalformed()
}

// dispatch maps one JSON line by its type; mapped is false for types the
// parser does not know.
func (p *StreamParser) dispatch(o parse.Object) (events []codec.Event, mapped bool) {
	typ, _ := o.StrOK("type")
	switch typ {
	case "system":
		return p.system(o)
	case "user":
		return p.user(o), true
	case "assistant":
		return p.assistant(o), true
	case "result":
		return claudeStreamResult(o), true
	case "progress":
		return claudeProgressHook(o), true
	case "hook", "hook_result", "hook_response":
		return []codec.Event{claudeTopLevelHook(o)}, true
	}
	return nil, false
}

// system maps a system line: init, hook responses and API retries.
func (p *StreamParser) system(o parse.Object) ([]codec.Event, bool) {
	sub, _ := o.StrOK("subtype")
	switch sub {
	case "init":
		cwd, _ := o.StrOK("cwd")
		model, ok := o.StrOK("model")
		if !ok {
			model = "unknown"
		}
		return []codec.Event{codec.Init(cwd, model)}, true
	case "hook_response":
		name, _ := o.FirstStr("hook_name", "name", "hook")
		out, _ := o.FirstStr("output", "stdout")
		if out = strings.TrimSpace(out); name == "" || out == "" {
			return nil, true
		}
		return []codec.Event{codec.Hook(name, out)}, true
	case "api_retry":
		return []codec.Event{claudeStreamRetryHook(o)}, true
	}
	return nil, false
}

// user maps a user line: tool results, and prompts. The API puts text
// after the tool results, so the prompt of an array comes last.
func (p *StreamParser) user(o parse.Object) []codec.Event {
	msg := o.Obj("message")
	if s, ok := msg.StrOK("content"); ok {
		return p.prompt(s)
	}
	var events []codec.Event
	var text claudePromptText
	for _, b := range msg.Objs("content") {
		if typ, _ := b.StrOK("type"); typ == "tool_result" {
			events = append(events, p.toolResult(b)...)
		} else {
			text.add(b)
		}
	}
	return append(events, p.prompt(text.String())...)
}

// prompt maps user text (spec §5.3, string content). Blank prompts are dropped.
func (p *StreamParser) prompt(raw string) []codec.Event {
	s, ok := codec.SanitizeUserMessage(raw)
	if !ok || strings.TrimSpace(s) == "" {
		return nil
	}
	if p.echo != "" && strings.TrimSpace(s) == strings.TrimSpace(p.echo) {
		p.echo = "" // the sub-agent's prompt, stored when it began
		return nil
	}
	switch {
	case strings.HasPrefix(s, claudeSummaryPrefix):
		return []codec.Event{codec.Unit(codec.KindCompacting)}
	case strings.Contains(s, "<local-command-stdout>"):
		return claudeCompacted(s)
	case strings.Contains(s, "<local-command-caveat>"), len(p.agents) > 0:
		// A caveat, or the prompt of a running sub-agent.
		return nil
	}
	return append(claudeReminderHooks(s, false), codec.UserMessage(s))
}

// toolResult maps a tool_result block, closing an Agent/Task call.
func (p *StreamParser) toolResult(b parse.Object) []codec.Event {
	r := claudeResultOf(b)
	delete(p.agents, r.id)
	events := claudeReminderHooks(r.content, false)
	if r.content == "" {
		return events
	}
	name, path := p.tools.lookup(r.id)
	return append(events, codec.ToolResult(r.id, name, path, r.content, r.isError))
}

// assistant maps an assistant line (one content block per line in practice).
func (p *StreamParser) assistant(o parse.Object) []codec.Event {
	msg := o.Obj("message")
	if _, ok := msg.StrOK("id"); !ok {
		return nil
	}
	if claudeIsSynthetic(o, msg) {
		return claudeSyntheticEvents(o, msg)
	}
	var events []codec.Event
	for _, b := range msg.Objs("content") {
		switch typ, _ := b.StrOK("type"); typ {
		case "thinking":
			t, _ := b.StrOK("thinking")
			events = append(events, claudeThinking(t)...)
		case "text":
			if t, ok := b.StrOK("text"); ok && strings.TrimSpace(t) != "" {
				events = append(events, codec.AssistantText(t))
			}
		case "tool_use":
			name, okName := b.StrOK("name")
			id, okID := b.StrOK("id")
			input, okInput := b["input"]
			if okName && okID && okInput {
				events = append(events, p.toolCall(id, name, input))
			}
		}
	}
	return events
}

// toolCall records and maps a tool_use block.
func (p *StreamParser) toolCall(id, name string, input []byte) codec.Event {
	path := claudeToolPath(input)
	p.tools[id] = claudeToolRef{name, path}
	if claudeIsAgentTool(name) {
		p.agents[id] = true
		p.asked[id] = claudeAgentAsked(input)
	}
	return codec.ToolCall(id, name, path, input)
}

// claudeStreamResult maps the result line that ends a run. Early builds wrote
// the cost as total_cost or cost_usd.
func claudeStreamResult(o parse.Object) []codec.Event {
	if _, ok := o.StrOK("session_id"); !ok {
		return nil
	}
	isError, _ := o.Boolean("is_error")
	duration, _ := o.U64("duration_ms")
	cost, _ := o.FirstFloat("total_cost_usd", "total_cost", "cost_usd")
	return []codec.Event{codec.Complete(!isError, duration, cost)}
}

// claudeStreamRetryHook turns a system/api_retry line into a Hook, so the
// retry stays visible without posing as model prose.
func claudeStreamRetryHook(o parse.Object) codec.Event {
	msg, _ := o.StrOK("error")
	if status, ok := o.U64("error_status"); ok {
		msg = strings.TrimSpace(itoa(status) + " " + msg)
	}
	attempt, _ := o.U64("attempt")
	retries, _ := o.U64("max_retries")
	return codec.Hook(claudeAPIErrorHook, claudeRetryText(msg, attempt, retries))
}

// claudeTopLevelHook maps a top-level hook, hook_result or hook_response line.
func claudeTopLevelHook(o parse.Object) codec.Event {
	name, ok := o.FirstStr("hook_name", "name", "hook")
	if !ok {
		name = "hook"
	}
	out, _ := o.FirstStr("output", "result", "message")
	return codec.Hook(name, out)
}

// claudeTextHook applies AZUREAL's heuristics to a non-JSON output line.
func claudeTextHook(line string) []codec.Event {
	line = strings.TrimSpace(line)
	for _, marker := range []string{" hook success:", " hook failed:"} {
		if i := strings.Index(line, marker); i >= 0 {
			return []codec.Event{codec.Hook(line[:i], strings.TrimSpace(line[i+len(marker):]))}
		}
	}
	for _, suffix := range []string{" hook success", " hook failed"} {
		if strings.HasSuffix(line, suffix) {
			name := line
			for strings.HasSuffix(name, suffix) {
				name = strings.TrimSuffix(name, suffix)
			}
			return []codec.Event{codec.Hook(name, "")}
		}
	}
	if strings.Contains(line, " hook ") || strings.Contains(line, "Hook") {
		if i := strings.Index(line, " hook"); i >= 0 {
			return []codec.Event{codec.Hook(line[:i], line[i:])}
		}
	}
	return nil
}

// claudeSubagentOf returns the call whose sub-agent wrote a stream line
// (its parent_tool_use_id), or "" for a line of the main thread.
func claudeSubagentOf(o parse.Object) string {
	return o.Str("parent_tool_use_id")
}

// claudeAgentAsked returns what an Agent/Task call asks its sub-agent:
// its prompt, else its description.
func claudeAgentAsked(input []byte) string {
	in, ok := parse.DecodeObject(input)
	if !ok {
		return ""
	}
	s, _ := in.FirstStr("prompt", "description")
	return s
}
