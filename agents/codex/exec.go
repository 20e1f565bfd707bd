package codex

// This file parses format C, the stdout of `codex exec --json` (spec §5.5),
// and the item.* shapes that both Codex parsers accept.

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// codexDefaultModel names the model in an Init when the real one is not
// known; AZUREAL writes the same literal and maps it to its default Codex
// model when a session is loaded.
const codexDefaultModel = "codex"

// ExecParser parses `codex exec --json` stdout. It emits one Init per
// process, like AZUREAL. Its Complete events have duration 0: the stream
// carries no times, so the runner, which knows when it started the process,
// fills in the wall-clock duration before storing them.
type ExecParser struct {
	stats    parse.Stats
	model    string
	initDone bool
	items    codexItems
	hist     codexHistory
	usage    parse.UsageLog
}

// Usage returns the usage of the turn.completed lines fed so far.
func (p *ExecParser) Usage() []parse.UsageRow { return p.usage.Rows() }

// NewExecParser returns a parser whose Init reports opts.Model.
func NewExecParser(opts parse.Options) *ExecParser {
	model := opts.Model
	if model == "" {
		model = codexDefaultModel
	}
	return &ExecParser{model: model}
}

// Feed parses one line of `codex exec --json` output.
func (p *ExecParser) Feed(line []byte) []codec.Event {
	o, ok := codexDecodeLine(&p.stats, line)
	if !ok {
		return nil
	}
	evs, known := p.dispatch(o)
	if !known {
		p.stats.Ignored++
	}
	p.hist.observe(evs)
	p.usage.Saw(evs...)
	if o.Str("type") == "turn.completed" && o.Has("usage") {
		u := codexUsage(o.Obj("usage"))
		u.At, u.Source, u.Model = parse.UsageTime(o), string(parse.FormatCodexExec), p.model
		p.usage.Add(u)
	}
	return evs
}

// dispatch maps one decoded line; known is false for unmapped types.
func (p *ExecParser) dispatch(o parse.Object) (evs []codec.Event, known bool) {
	switch o.Str("type") {
	case "thread.started":
		return p.emitInit(""), true
	case "session_meta":
		return p.emitInit(o.Obj("payload").Str("cwd")), true
	case "turn_context":
		if m := o.Obj("payload").Str("model"); m != "" && !p.initDone {
			p.model = m
		}
		return nil, true
	case "turn.started":
		p.hist.lastErr = ""
		return nil, true
	case "item.updated":
		return nil, true
	case "item.started":
		return p.items.start(o.Obj("item")), true
	case "item.completed":
		return p.items.complete(o.Obj("item"))
	case "turn.completed":
		u := o.Obj("usage")
		cost := estimateCodexCost(codexTokens(u, "input_tokens"), codexTokens(u, "output_tokens"))
		return []codec.Event{codec.Complete(true, 0, cost)}, true
	case "turn.failed":
		return p.turnFailed(o), true
	case "error":
		return p.streamError(o), true
	case "response_item":
		return p.hist.responseItem(o.Obj("payload"))
	case "event_msg":
		return p.hist.eventMsg(o.Obj("payload"))
	}
	return nil, false
}

// emitInit returns the process's Init the first time it is called.
func (p *ExecParser) emitInit(cwd string) []codec.Event {
	if p.initDone {
		return nil
	}
	p.initDone = true
	return []codec.Event{codec.Init(cwd, p.model)}
}

// turnFailed maps turn.failed: its error text, unless the error event
// before it showed the same text, then a failed Complete.
func (p *ExecParser) turnFailed(o parse.Object) []codec.Event {
	msg, ok := o.Obj("error").StrOK("message")
	if !ok {
		msg = "Turn failed"
	}
	return append(p.hist.errorText(msg), codec.Complete(false, 0, 0))
}

// streamError maps a top-level error event. Retry notices
// ("Reconnecting... 1/5 …") are progress, not content, and are dropped.
func (p *ExecParser) streamError(o parse.Object) []codec.Event {
	msg, ok := o.StrOK("message")
	if !ok {
		msg = "Unknown error"
	}
	if strings.HasPrefix(msg, "Reconnecting...") {
		return nil
	}
	return p.hist.errorText(msg)
}

// Finish returns nothing: the exec parser holds no events back.
func (p *ExecParser) Finish() []codec.Event { return nil }

// Stats reports the lines seen so far.
func (p *ExecParser) Stats() parse.Stats { return p.stats }

// SkipLine counts a line too long to parse as malformed.
func (p *ExecParser) SkipLine() {
	p.stats.Lines++
	p.stats.NoteMalformed()
}

// codexDecodeLine counts line and decodes it as a JSON object. ok is false
// for a blank line and for a malformed one, which is also counted.
func codexDecodeLine(s *parse.Stats, line []byte) (parse.Object, bool) {
	s.Lines++
	line = bytes.TrimSpace(bytes.TrimPrefix(line, parse.BOM))
	if len(line) == 0 {
		return nil, false
	}
	o, ok := parse.DecodeObject(line)
	if !ok {
		s.NoteMalformed()
	}
	return o, ok
}

// codexItems maps the item.started / item.completed events of format C,
// remembering which command items were announced by item.started.
type codexItems struct {
	started map[string]bool
}

// start maps item.started: a command_execution becomes its ToolCall.
func (c *codexItems) start(item parse.Object) []codec.Event {
	if item.Str("type") != "command_execution" {
		return nil
	}
	id := item.Str("id")
	if c.started == nil {
		c.started = make(map[string]bool)
	}
	c.started[id] = true
	return []codec.Event{codexBashCall(id, item.Str("command"))}
}

// complete maps item.completed; known is false for unmapped item types.
func (c *codexItems) complete(item parse.Object) ([]codec.Event, bool) {
	switch item.Str("type") {
	case "reasoning", "agent_message":
		if text := item.Str("text"); text != "" {
			return []codec.Event{codec.AssistantText(text)}, true
		}
		return nil, true
	case "command_execution":
		return c.command(item), true
	case "file_change":
		return codexFileChanges(item), true
	case "mcp_tool_call":
		return codexMCPCall(item), true
	}
	return nil, false
}

// command maps a finished command_execution item: its ToolCall when no
// item.started announced it, then its ToolResult.
func (c *codexItems) command(item parse.Object) []codec.Event {
	id := item.Str("id")
	var evs []codec.Event
	if !c.started[id] {
		evs = append(evs, codexBashCall(id, item.Str("command")))
	}
	delete(c.started, id)
	content, isErr := codexCommandResult(item)
	return append(evs, codec.ToolResult(id, "Bash", nil, content, isErr))
}

// codexBashCall is the ToolCall of a shell command.
func codexBashCall(id, command string) codec.Event {
	return codec.ToolCall(id, "Bash", nil, cxObject(cxField{"command", cxString(command)}))
}

// codexCommandResult is the text and error flag of a command_execution.
// A non-zero exit code is kept as an "Exit code: N" line after the output;
// a declined or failed command without one is an error too.
func codexCommandResult(item parse.Object) (string, bool) {
	out := item.Str("aggregated_output")
	code, hasCode := item.Integer("exit_code")
	status := item.Str("status")
	failed := status == "failed" || status == "declined"
	switch {
	case hasCode && code != 0:
		return codexWithExit(out, code), true
	case out != "":
		return out, failed && !hasCode
	case hasCode || !failed:
		return "Exit code: 0", false
	}
	return "Command " + status, true
}

// codexFileChanges maps a file_change item to an Edit call and result per
// changed file (paths that are empty are skipped).
func codexFileChanges(item parse.Object) []codec.Event {
	id := item.Str("id")
	failed := item.Str("status") == "failed"
	var evs []codec.Event
	for _, raw := range item.List("changes") {
		ch, _ := parse.DecodeObject(raw)
		path := ch.Str("path")
		if path == "" {
			continue
		}
		kind, ok := ch.StrOK("kind")
		if !ok {
			kind = "update"
		}
		fields := []cxField{{"file_path", cxString(path)}, {"kind", cxString(kind)}}
		summary := "File " + kind + ": " + path
		if mv, ok := ch.StrOK("move_path"); ok {
			fields = append(fields, cxField{"move_path", cxString(mv)})
			summary += " -> " + mv
		}
		if diff := ch.Str("unified_diff"); diff != "" {
			fields = append(fields, cxField{"unified_diff", cxString(diff)})
		}
		callID := id + "-" + path
		evs = append(evs,
			codec.ToolCall(callID, "Edit", new(path), cxObject(fields...)),
			codec.ToolResult(callID, "Edit", new(path), summary, failed))
	}
	return evs
}

// codexMCPCall maps an mcp_tool_call item to its call and result. Unlike
// AZUREAL it reads the real result shape ({content: [{text}]}) and error
// shape ({message}), not only plain strings.
func codexMCPCall(item parse.Object) []codec.Event {
	server, ok := item.StrOK("server")
	if !ok {
		server = "mcp"
	}
	tool, ok := item.StrOK("tool")
	if !ok {
		tool = "unknown"
	}
	id, name := item.Str("id"), server+":"+tool
	input := item["arguments"]
	if len(input) == 0 {
		input = json.RawMessage("null")
	}
	content, isErr := codexMCPResult(item)
	return []codec.Event{
		codec.ToolCall(id, name, nil, input),
		codec.ToolResult(id, name, nil, content, isErr),
	}
}

// codexMCPResult is the text and error flag of an mcp_tool_call.
func codexMCPResult(item parse.Object) (string, bool) {
	if item.Has("error") {
		if msg, ok := item.Obj("error").StrOK("message"); ok {
			return msg, true
		}
		return codexOutputText(item["error"]), true
	}
	if res := item.Obj("result"); res.List("content") == nil && res.Has("structured_content") {
		return codexOutputText(res["structured_content"]), false
	}
	return codexOutputText(item["result"]), false
}
