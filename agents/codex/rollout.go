package codex

// This file parses format D, Codex rollout files
// (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl, spec §5.6), and the
// response_item / event_msg shapes that both Codex parsers accept.

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// codexMaxHeld bounds the events a rollout parser holds back while it waits
// for the model of a session's Init.
const codexMaxHeld = 4096

// RolloutParser parses a Codex rollout file. It gives each distinct
// session (session_meta id) one Init whose model is the session's first
// turn_context model, holding the session's first events back until that
// model is known (or the input ends).
type RolloutParser struct {
	stats    parse.Stats
	items    codexItems
	hist     codexHistory
	sessions map[string]bool // session ids that have an Init
	pending  *codec.Event    // the current session's Init, model not yet known
	held     []codec.Event   // events after the pending Init
	usage    parse.UsageLog
	totals   codexTotals
	model    string // the last turn_context's model
}

// Usage returns the usage of the turns fed so far; call it after Finish
// to include tokens counted after the last turn's end.
func (p *RolloutParser) Usage() []parse.UsageRow { return p.usage.Rows() }

// billTurn records the tokens counted since the last turn's end.
func (p *RolloutParser) billTurn() {
	if u, ok := p.totals.bill(); ok {
		u.Source, u.Model = string(parse.FormatCodexRollout), p.model
		if u.Model == "" {
			u.Model = codexDefaultModel
		}
		p.usage.Add(u)
	}
}

// NewRolloutParser returns a rollout parser; it needs no options.
func NewRolloutParser(parse.Options) *RolloutParser {
	return &RolloutParser{sessions: make(map[string]bool)}
}

// Pending reports whether a session's Init is held back, waiting for the
// session's model.
func (p *RolloutParser) Pending() bool { return p.pending != nil }

// Held returns the events held back after a pending Init (see Pending).
// The slice is the parser's own; callers only read it.
func (p *RolloutParser) Held() []codec.Event { return p.held }

// Feed parses one rollout line.
func (p *RolloutParser) Feed(line []byte) []codec.Event {
	o, ok := codexDecodeLine(&p.stats, line)
	if !ok {
		return nil
	}
	switch o.Str("type") {
	case "session_meta":
		return p.sessionMeta(o)
	case "turn_context":
		if m := o.Obj("payload").Str("model"); m != "" {
			p.model = m
			return p.release(m)
		}
		return nil
	case "event_msg":
		if pl := o.Obj("payload"); pl.Str("type") == "token_count" {
			if t := pl.Obj("info").Obj("total_token_usage"); t != nil {
				p.totals.observe(codexUsage(t), parse.UsageTime(o))
			}
		}
	}
	p.hist.now = time.Time{}
	if t, err := time.Parse(time.RFC3339Nano, o.Str("timestamp")); err == nil {
		p.hist.now = t
	}
	evs, known := p.dispatch(o)
	if !known {
		p.stats.Ignored++
	}
	p.hist.observe(evs)
	p.usage.Saw(evs...)
	for _, e := range evs {
		if e.Kind == codec.KindComplete {
			p.billTurn()
		}
	}
	return p.hold(evs)
}

// dispatch maps the lines that carry content; known is false for unmapped
// types (token-only, world_state, compacted, …).
func (p *RolloutParser) dispatch(o parse.Object) ([]codec.Event, bool) {
	switch o.Str("type") {
	case "response_item":
		return p.hist.responseItem(o.Obj("payload"))
	case "event_msg":
		return p.hist.eventMsg(o.Obj("payload"))
	case "item.started":
		return p.items.start(o.Obj("item")), true
	case "item.completed":
		return p.items.complete(o.Obj("item"))
	}
	return nil, false
}

// sessionMeta starts a session: a new Init, pending until its model is
// known. A session_meta repeating a known id (resume, fork copy) adds none.
func (p *RolloutParser) sessionMeta(o parse.Object) []codec.Event {
	out := p.release(codexDefaultModel)
	if !o.Has("payload") {
		return out
	}
	meta := o.Obj("payload")
	id := meta.Str("id")
	if p.sessions[id] {
		return out
	}
	p.sessions[id] = true
	ev := codec.Init(meta.Str("cwd"), "")
	p.pending = &ev
	p.hist.observe([]codec.Event{ev})
	p.usage.Saw(ev)
	return out
}

// release returns the pending Init with model, then the events held after
// it; nothing when no Init is pending.
func (p *RolloutParser) release(model string) []codec.Event {
	if p.pending == nil {
		return nil
	}
	ev := *p.pending
	ev.Model = model
	out := append([]codec.Event{ev}, p.held...)
	p.pending, p.held = nil, nil
	return out
}

// hold keeps evs back while an Init is pending.
func (p *RolloutParser) hold(evs []codec.Event) []codec.Event {
	if p.pending == nil {
		return evs
	}
	p.held = append(p.held, evs...)
	if len(p.held) > codexMaxHeld {
		return p.release(codexDefaultModel)
	}
	return nil
}

// Finish returns the events still held back; a session that never named
// its model gets the model "codex", as in AZUREAL.
func (p *RolloutParser) Finish() []codec.Event {
	p.billTurn()
	return p.release(codexDefaultModel)
}

// Stats reports the lines seen so far.
func (p *RolloutParser) Stats() parse.Stats { return p.stats }

// SkipLine counts a line too long to parse as malformed.
func (p *RolloutParser) SkipLine() {
	p.stats.Lines++
	p.stats.NoteMalformed()
}

// codexHistory maps response_item and event_msg payloads. Rollouts write
// most content twice (a response_item and an event_msg); the twins tracker
// keeps one of each pair.
type codexHistory struct {
	tools   codexTools
	twins   codexTwins
	lastErr string    // the last error text shown, so a turn's final error shows once
	total   [2]uint64 // the thread's input and output tokens so far (token_count)
	billed  [2]uint64 // the same at the last Complete
	// now is the timestamp of the line being mapped; turnStart that of
	// the line that started the current turn (task_started, else its first
	// user_message); zero when unknown. A Complete without duration_ms
	// (older Codex, an interrupted turn) takes its duration from them.
	now, turnStart time.Time
}

// responseItem maps a response_item payload; known is false for unmapped
// item types (web_search_call, ghost_snapshot, …).
func (h *codexHistory) responseItem(pl parse.Object) ([]codec.Event, bool) {
	switch pl.Str("type") {
	case "message":
		return h.message(pl), true
	case "function_call", "shell_command":
		return []codec.Event{h.tools.call(pl, "shell_command")}, true
	case "custom_tool_call":
		return []codec.Event{h.tools.call(pl, "custom_tool")}, true
	case "function_call_output":
		return []codec.Event{h.tools.result(pl, "unknown")}, true
	case "custom_tool_call_output":
		return []codec.Event{h.tools.result(pl, "custom_tool")}, true
	case "reasoning":
		var evs []codec.Event
		for _, raw := range pl.List("summary") {
			part, _ := parse.DecodeObject(raw)
			evs = append(evs, h.text(cxTwinReasoning, cxFromResponse, part.Str("text"))...)
		}
		// The raw reasoning (content, when Codex records it) is thinking:
		// AZUREAL drops it; Lazuli keeps it beside the events.
		for _, raw := range pl.List("content") {
			part, _ := parse.DecodeObject(raw)
			if t := part.Str("text"); strings.TrimSpace(t) != "" {
				evs = append(evs, store.Thinking(t))
			}
		}
		return evs, true
	}
	return nil, false
}

// message maps a response_item message. Developer and system messages are
// instructions to the model and never shown.
func (h *codexHistory) message(pl parse.Object) []codec.Event {
	text := MessageText(pl["content"])
	switch pl.Str("role") {
	case "user":
		return h.user(text, cxFromResponse)
	case "assistant":
		return h.text(cxTwinAssistant, cxFromResponse, text)
	}
	return nil
}

// eventMsg maps an event_msg payload; known is false for unmapped types.
func (h *codexHistory) eventMsg(pl parse.Object) ([]codec.Event, bool) {
	switch pl.Str("type") {
	case "user_message":
		if h.turnStart.IsZero() {
			h.turnStart = h.now
		}
		return h.user(pl.Str("message"), cxFromEvent), true
	case "agent_message":
		return h.text(cxTwinAssistant, cxFromEvent, pl.Str("message")), true
	case "agent_reasoning":
		return h.text(cxTwinReasoning, cxFromEvent, pl.Str("text")), true
	case "task_started":
		h.lastErr, h.turnStart = "", h.now
		return nil, true
	case "token_count":
		if t := pl.Obj("info").Obj("total_token_usage"); t != nil {
			h.total = [2]uint64{codexTokens(t, "input_tokens"), codexTokens(t, "output_tokens")}
		}
		return nil, true
	case "error":
		msg, ok := pl.StrOK("message")
		if !ok {
			msg = "Unknown error"
		}
		return h.errorText(msg), true
	case "task_complete":
		return h.taskComplete(pl), true
	case "turn_aborted":
		// Shown as what it is, not as a bare failure: the user (or Codex)
		// stopped the turn.
		reason := pl.Str("reason")
		if reason == "" {
			reason = "aborted"
		}
		return []codec.Event{codec.AssistantText(store.TurnAbortedText(reason)), h.complete(false, pl)}, true
	case "function_call_output":
		if pl.Str("call_id") == "" {
			return nil, true
		}
		return []codec.Event{h.tools.result(pl, "Bash")}, true
	}
	return nil, false
}

// user maps a user message, dropping injected context and the twin of a
// message already shown.
func (h *codexHistory) user(raw string, src int) []codec.Event {
	text, ok := UserText(raw)
	if !ok || h.twins.dup(cxTwinUser, src, text) {
		return nil
	}
	return []codec.Event{codec.UserMessage(text)}
}

// text maps assistant or reasoning text, dropping empty text and twins.
func (h *codexHistory) text(kind, src int, text string) []codec.Event {
	if text == "" || h.twins.dup(kind, src, text) {
		return nil
	}
	return []codec.Event{codec.AssistantText(text)}
}

// errorText shows an error message once: a repeat of the last one shown
// (an error event followed by turn.failed or a failed task_complete with
// the same text) is dropped.
func (h *codexHistory) errorText(msg string) []codec.Event {
	if msg == h.lastErr {
		return nil
	}
	h.lastErr = msg
	return []codec.Event{codec.AssistantText("Error: " + msg)}
}

// taskComplete ends a turn: success unless the payload carries an error,
// whose text is shown first.
func (h *codexHistory) taskComplete(pl parse.Object) []codec.Event {
	var evs []codec.Event
	failed := pl.Has("error")
	if failed {
		msg, ok := pl.Obj("error").StrOK("message")
		if !ok {
			msg = codexOutputText(pl["error"])
		}
		evs = h.errorText(msg)
	}
	return append(evs, h.complete(!failed, pl))
}

// complete returns a turn's Complete: duration_ms from the payload (newer
// Codex writes it) and the estimated cost of the tokens used since the last
// Complete.
func (h *codexHistory) complete(success bool, pl parse.Object) codec.Event {
	var used [2]uint64
	for i := range used {
		if h.total[i] > h.billed[i] {
			used[i] = h.total[i] - h.billed[i]
		}
	}
	h.billed = h.total
	h.lastErr = ""
	ms := codexTokens(pl, "duration_ms")
	if ms == 0 && !h.turnStart.IsZero() && h.now.After(h.turnStart) {
		ms = uint64(h.now.Sub(h.turnStart).Milliseconds())
	}
	h.turnStart = time.Time{}
	return codec.Complete(success, ms, estimateCodexCost(used[0], used[1]))
}

// observe lets the twins tracker forget pairs that can no longer complete:
// a new user turn ends the assistant's pairs, assistant text ends the user's
// pair, and tool calls and session or turn boundaries end all.
func (h *codexHistory) observe(evs []codec.Event) {
	for _, e := range evs {
		switch e.Kind {
		case codec.KindUserMessage:
			h.twins.clear(cxTwinAssistant, cxTwinReasoning)
		case codec.KindAssistantText:
			h.twins.clear(cxTwinUser)
		case codec.KindToolCall, codec.KindInit, codec.KindComplete:
			h.twins.clear(cxTwinUser, cxTwinAssistant, cxTwinReasoning)
		}
	}
}

// MessageText is a message's text: a string, or the text parts of an
// array joined by newlines.
func MessageText(raw json.RawMessage) string {
	c := parse.Object{"c": raw}
	if s, ok := c.StrOK("c"); ok {
		return s
	}
	var parts []string
	for _, el := range c.List("c") {
		if part, ok := parse.DecodeObject(el); ok {
			if s, ok := part.StrOK("text"); ok {
				parts = append(parts, s)
			}
		}
	}
	return strings.Join(parts, "\n")
}

// Codex sends context as user messages: the environment and AGENTS.md
// instructions (dropped) and, from the IDE extension, the open files before
// the user's actual request (reduced to that request).
const (
	codexIDEContext = "# Context from my IDE setup:"
	codexIDERequest = "## My request for Codex:"
)

var codexContextTags = []string{"<environment_context>", "<user_instructions>"}

// UserText returns the part of a user message the user wrote, and
// false when there is none (spec §6.4 sanitize, plus Codex context).
func UserText(raw string) (string, bool) {
	s, ok := codec.SanitizeUserMessage(raw)
	if !ok {
		return "", false
	}
	t := strings.TrimLeft(s, " \t\r\n")
	for _, tag := range codexContextTags {
		if strings.HasPrefix(t, tag) {
			return "", false
		}
	}
	if strings.HasPrefix(t, codexIDEContext) {
		i := strings.LastIndex(t, codexIDERequest)
		if i < 0 {
			return "", false
		}
		s = strings.TrimSpace(t[i+len(codexIDERequest):])
	}
	return s, s != ""
}

// Kinds and sources of the content a rollout writes twice.
const (
	cxTwinUser = iota
	cxTwinAssistant
	cxTwinReasoning
	cxTwinKinds
)

const (
	cxFromResponse = iota // response_item
	cxFromEvent           // event_msg
)

// codexMaxTwins bounds the unmatched texts kept per kind and source.
const codexMaxTwins = 64

// codexTwins pairs the two copies Codex writes of each message: a text
// from one source whose copy from the other source was already shown is a
// duplicate. Texts are compared with surrounding space trimmed.
type codexTwins struct {
	pending [cxTwinKinds][2][]string // shown texts still waiting for their twin
}

// dup reports whether text is the twin of a text already shown, consuming
// that pairing; otherwise it records text as waiting for its own twin.
func (t *codexTwins) dup(kind, src int, text string) bool {
	key := strings.TrimSpace(text)
	other := &t.pending[kind][1-src]
	for i, s := range *other {
		if s == key {
			*other = append((*other)[:i], (*other)[i+1:]...)
			return true
		}
	}
	own := &t.pending[kind][src]
	if len(*own) == codexMaxTwins {
		*own = (*own)[1:]
	}
	*own = append(*own, key)
	return false
}

// clear forgets the waiting texts of kinds.
func (t *codexTwins) clear(kinds ...int) {
	for _, k := range kinds {
		t.pending[k] = [2][]string{}
	}
}
