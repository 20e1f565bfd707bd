package claude

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// maxPlanSize bounds the plan file the transcript parser reads.
const maxPlanSize = 4 << 20

// TranscriptParser parses format B, the transcript Claude Code keeps in
// ~/.claude/projects/<enc>/<id>.jsonl (spec §5.4).
//
// It holds all events back until Finish: a later line can replace an earlier
// prompt (a rewound and edited prompt shares the parentUuid of the one it
// replaces), so no event is final before the end of the file. Real
// transcripts have no result lines, so a transcript alone has no Complete.
type TranscriptParser struct {
	stats    parse.Stats
	home     string // ClaudeHome, "" for $HOME/.claude
	tools    claudeTools
	agents   map[string]bool // open Agent/Task calls, by tool_use id
	slug     string
	hasSlug  bool
	events   []codec.Event
	byParent map[string]claudePrompt // the prompt kept for each parentUuid
	// stored is how many of events an earlier import stored already (see
	// freeze): a prompt among them can no longer be replaced or win.
	stored int
	usage  parse.UsageLog
}

// claudePrompt locates a kept prompt for parentUuid de-duplication.
type claudePrompt struct {
	index int
	at    Time
}

// Time is a line's timestamp; a line without one counts as written
// "now", after every timestamped line, as in AZUREAL.
type Time struct {
	T  time.Time
	Ok bool
}

// after reports whether t is later than u.
func (t Time) after(u Time) bool { return !t.Ok || (u.Ok && t.T.After(u.T)) }

// NewTranscriptParser returns a transcript parser that finds plan
// files under opts.ClaudeHome.
func NewTranscriptParser(opts parse.Options) *TranscriptParser {
	return &TranscriptParser{
		home:     opts.ClaudeHome,
		tools:    claudeTools{},
		agents:   map[string]bool{},
		byParent: map[string]claudePrompt{},
	}
}

// Feed parses one transcript line; its events are returned by Finish.
func (p *TranscriptParser) Feed(line []byte) []codec.Event {
	p.stats.Lines++
	line = TrimLine(line)
	if len(line) == 0 {
		return nil
	}
	o, ok := parse.DecodeObject(line)
	if !ok {
		p.stats.NoteMalformed()
		return nil
	}
	if !p.hasSlug {
		p.slug, p.hasSlug = o.StrOK("slug")
	}
	if !p.dispatch(o) {
		p.stats.Ignored++
	}
	return nil
}

// Finish returns the events of all lines fed so far.
func (p *TranscriptParser) Finish() []codec.Event {
	out := make([]codec.Event, 0, len(p.events))
	for _, e := range p.events {
		if e.Kind != codec.KindFiltered {
			out = append(out, e)
		}
	}
	p.events, p.byParent = nil, map[string]claudePrompt{}
	return out
}

// Events returns the events parsed so far, held back until Finish: a
// later line may still replace a prompt among them. The slice is the
// parser's own; callers only read it.
func (p *TranscriptParser) Events() []codec.Event { return p.events }

// Freeze records that the events of the lines fed so far were stored by
// an earlier import: a prompt among them is final.
func (p *TranscriptParser) Freeze() { p.stored = len(p.events) }

// Stats reports the lines seen so far.
func (p *TranscriptParser) Stats() parse.Stats { return p.stats }

// TranscriptState is what a TranscriptParser carries from the lines fed
// so far to the lines after them once their events are stored (see
// Freeze): the tool calls a later result names, the sub-agent calls still
// running, the session's slug and the usage log's place. A stored prompt
// takes no part in a later rewind, so the prompts themselves are not in it.
type TranscriptState struct {
	Tools   map[string]ToolRef
	Agents  []string
	Slug    string
	HasSlug bool
	Usage   parse.UsageState
}

// ToolRef is a tool call as a later result names it: the tool's name and
// the file path it worked on, if HasPath.
type ToolRef struct {
	Name    string
	Path    string
	HasPath bool
}

// State returns the parser's state after the lines fed so far (see
// TranscriptState).
func (p *TranscriptParser) State() TranscriptState {
	s := TranscriptState{Tools: make(map[string]ToolRef, len(p.tools)), Agents: make([]string, 0, len(p.agents)),
		Slug: p.slug, HasSlug: p.hasSlug, Usage: p.usage.State()}
	for id, r := range p.tools {
		t := ToolRef{Name: r.name}
		if r.path != nil {
			t.Path, t.HasPath = *r.path, true
		}
		s.Tools[id] = t
	}
	for id := range p.agents {
		s.Agents = append(s.Agents, id)
	}
	slices.Sort(s.Agents)
	return s
}

// ResumeTranscriptParser returns a parser that goes on from s: fed the
// lines after those s was taken after, it returns the events and usage
// rows a parser fed every line, frozen (Freeze) at that point, returns
// after it. Usage anchors count from s.Usage.Counts (see
// parse.PlaceUsageAfter).
func ResumeTranscriptParser(opts parse.Options, s TranscriptState) *TranscriptParser {
	p := NewTranscriptParser(opts)
	for id, r := range s.Tools {
		ref := claudeToolRef{name: r.Name}
		if r.HasPath {
			ref.path = &r.Path
		}
		p.tools[id] = ref
	}
	for _, id := range s.Agents {
		p.agents[id] = true
	}
	p.slug, p.hasSlug = s.Slug, s.HasSlug
	p.usage = parse.ResumeUsageLog(s.Usage)
	return p
}

// SkipLine counts an over-long line as malformed.
func (p *TranscriptParser) SkipLine() {
	p.stats.Lines++
	p.stats.NoteMalformed()
}

// add appends events to the held-back output.
func (p *TranscriptParser) add(events ...codec.Event) {
	p.events = append(p.events, events...)
	p.usage.Saw(events...)
}

// Usage returns the usage of the assistant messages fed so far, one row
// per message id with the message's last usage.
func (p *TranscriptParser) Usage() []parse.UsageRow { return p.usage.Rows() }

// dispatch maps one line by its type and reports whether the type is mapped.
func (p *TranscriptParser) dispatch(o parse.Object) bool {
	typ, _ := o.StrOK("type")
	switch typ {
	case "user":
		p.user(o)
	case "assistant":
		p.assistant(o)
	case "result":
		p.result(o)
	case "system":
		return p.system(o)
	case "progress":
		p.add(claudeProgressHook(o)...)
	default:
		return false
	}
	return true
}

// user maps a user line: a typed prompt (string content), or an array of
// tool results and prompt blocks (text, image). The API puts text after the
// tool results, so the prompt of an array comes last.
func (p *TranscriptParser) user(o parse.Object) {
	msg := o.Obj("message")
	meta, _ := o.Boolean("isMeta")
	if s, ok := msg.StrOK("content"); ok {
		text, ok := codec.SanitizeUserMessage(s)
		if ok && !p.userHead(text, meta) {
			p.prompt(o, text)
		}
		return
	}
	blocks := msg.Objs("content")
	if text, ok := codec.SanitizeUserMessage(claudeBlockTexts(blocks)); ok && p.userHead(text, meta) {
		return
	}
	if meta {
		return
	}
	var text claudePromptText
	for _, b := range blocks {
		if typ, _ := b.StrOK("type"); typ == "tool_result" {
			p.toolResult(b)
		} else {
			text.add(b)
		}
	}
	if raw := text.String(); raw != "" {
		if text, ok := codec.SanitizeUserMessage(raw); ok {
			p.prompt(o, text)
		}
	}
}

// userHead handles what every user line shares: a compaction summary, the
// hooks its text reports, and isMeta lines. It reports whether the line is done.
func (p *TranscriptParser) userHead(text string, meta bool) bool {
	if strings.HasPrefix(text, claudeSummaryPrefix) {
		p.add(codec.Unit(codec.KindCompacting))
		return true
	}
	p.add(claudeReminderHooks(text, true)...)
	return meta
}

// prompt maps sanitized prompt text (spec §5.4, string content).
func (p *TranscriptParser) prompt(o parse.Object, text string) {
	switch {
	case strings.TrimSpace(text) == "",
		strings.Contains(text, "<local-command-caveat>"),
		strings.Contains(text, "<task-notification>"):
		return
	case strings.Contains(text, "<local-command-stdout>"):
		p.add(claudeCompacted(text)...)
		return
	}
	if name, ok := claudeCommandName(text); ok {
		p.add(codec.Command(name))
		return
	}
	if len(p.agents) > 0 {
		return // the prompt of a running sub-agent
	}
	if parent, _ := o.StrOK("parentUuid"); parent != "" && !p.claimParent(parent, Timestamp(o)) {
		return
	}
	p.add(codec.UserMessage(text))
}

// claimParent reports whether a prompt with this parentUuid, written at, is
// kept. A later prompt replaces an earlier one; an earlier one is dropped.
// A prompt that an earlier import stored takes no part: the new prompt is
// kept, whatever the timestamps, since dropping it would lose it.
func (p *TranscriptParser) claimParent(parent string, at Time) bool {
	if old, ok := p.byParent[parent]; ok && old.index >= p.stored {
		if !at.after(old.at) {
			return false
		}
		p.events[old.index] = codec.Unit(codec.KindFiltered)
	}
	p.byParent[parent] = claudePrompt{index: len(p.events), at: at}
	return true
}

// toolResult maps a tool_result block. Hooks reported inside the result come
// first, where they were found.
func (p *TranscriptParser) toolResult(b parse.Object) {
	r := claudeResultOf(b)
	delete(p.agents, r.id)
	name, path := p.tools.lookup(r.id)
	if !r.hasIsError {
		r.isError = claudeLooksLikeError(r.content)
	}
	p.add(claudeReminderHooks(r.content, true)...)
	if r.content != "" {
		p.add(codec.ToolResult(r.id, name, path, r.content, r.isError))
	}
	if name == "Write" && !r.isError && path != nil &&
		isPlanPath(*path) {
		p.add(p.plan()...)
	}
}

// isPlanPath reports whether path, as a transcript written on any system
// gives it (C:\Users\me\.claude\plans\x.md on Windows), is a plan file.
func isPlanPath(path string) bool {
	path = strings.ReplaceAll(path, `\`, "/")
	return strings.Contains(path, "/.claude/plans/") && strings.HasSuffix(path, ".md")
}

// plan reads the session's plan file, <ClaudeHome>/plans/<slug>.md.
// A missing or unreadable file gives nothing.
func (p *TranscriptParser) plan() []codec.Event {
	if p.slug == "" || filepath.Base(p.slug) != p.slug || strings.HasPrefix(p.slug, ".") {
		return nil // no slug, or one that would leave the plans folder
	}
	home := p.home
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		home = filepath.Join(h, ".claude")
	}
	path := filepath.Join(home, "plans", p.slug+".md")
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxPlanSize {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return []codec.Event{codec.Plan(claudePlanName(string(b), p.slug), string(b))}
}

// claudePlanName is the title on a plan's first line ("# Plan: X" or "# X"),
// else the slug.
func claudePlanName(content, slug string) string {
	first, _, _ := strings.Cut(content, "\n")
	first = strings.TrimSuffix(first, "\r")
	for _, prefix := range []string{"# Plan: ", "# "} {
		if name, ok := strings.CutPrefix(first, prefix); ok {
			return name
		}
	}
	return slug
}

// assistant maps an assistant line: thinking (kept as thinking, plus the
// hooks its reminders carry), text, tool_use.
func (p *TranscriptParser) assistant(o parse.Object) {
	msg := o.Obj("message")
	if claudeIsSynthetic(o, msg) {
		p.add(claudeSyntheticEvents(o, msg)...)
		return
	}
	for _, b := range msg.Objs("content") {
		switch typ, _ := b.StrOK("type"); typ {
		case "thinking":
			t, _ := b.StrOK("thinking")
			p.add(claudeThinking(t)...)
			p.add(claudeReminderHooks(t, true)...)
		case "text":
			if t, ok := b.StrOK("text"); ok && strings.TrimSpace(t) != "" {
				p.add(codec.AssistantText(t))
			}
		case "tool_use":
			p.add(p.toolCall(b))
		}
	}
	if msg.Has("usage") {
		u := claudeAPIUsage(msg.Obj("usage"))
		u.At, u.Source, u.Model = parse.UsageTime(o), string(parse.FormatClaudeTranscript), msg.Str("model")
		u.MessageID = msg.Str("id")
		p.usage.SetMessage(u.MessageID, u)
	}
}

// toolCall records and maps a tool_use block; missing fields default to
// "" and a null input.
func (p *TranscriptParser) toolCall(b parse.Object) codec.Event {
	name, _ := b.StrOK("name")
	id, _ := b.StrOK("id")
	input := b["input"] // decoding copied it out of the line
	path := claudeToolPath(input)
	p.tools[id] = claudeToolRef{name, path}
	if claudeIsAgentTool(name) {
		p.agents[id] = true
	}
	return codec.ToolCall(id, name, path, input)
}

// result maps the result lines of old transcripts (camelCase keys).
func (p *TranscriptParser) result(o parse.Object) {
	ms, ok := o.F64("durationMs")
	if !ok {
		return
	}
	cost, _ := o.F64("costUsd")
	p.add(codec.Complete(true, claudeMillis(ms), cost))
}

// system maps local slash commands and API errors the CLI retried.
func (p *TranscriptParser) system(o parse.Object) bool {
	switch sub, _ := o.StrOK("subtype"); sub {
	case "local_command":
		content, _ := o.StrOK("content")
		if name, ok := claudeCommandName(content); ok {
			p.add(codec.Command(name))
		}
	case "api_error":
		p.add(claudeAPIErrorEvent(o))
	default:
		return false
	}
	return true
}

// claudeAPIErrorEvent turns a system/api_error line into a Hook.
func claudeAPIErrorEvent(o parse.Object) codec.Event {
	e := o.Obj("error")
	msg, ok := e.FirstStr("formatted", "message")
	if !ok {
		msg, ok = e.StrOK("type") // e.g. authentication_error
	}
	if !ok {
		msg, _ = o.StrOK("error")
	}
	if status, ok := e.U64("status"); ok && status > 0 && !strings.HasPrefix(msg, itoa(status)) {
		msg = strings.TrimSpace(itoa(status) + " " + msg)
	}
	attempt, _ := o.U64("retryAttempt")
	retries, _ := o.U64("maxRetries")
	return codec.Hook(claudeAPIErrorHook, claudeRetryText(msg, attempt, retries))
}

// claudeCommandName returns X of text starting "<command-name>X</command-name>".
func claudeCommandName(text string) (string, bool) {
	rest, ok := strings.CutPrefix(text, "<command-name>")
	if !ok {
		return "", false
	}
	name, _, ok := strings.Cut(rest, "</command-name>")
	return name, ok
}

// claudeLooksLikeError guesses is_error for old results that lack it.
func claudeLooksLikeError(content string) bool {
	first, _, _ := strings.Cut(content, "\n")
	first = strings.ToLower(strings.TrimSuffix(first, "\r"))
	return strings.Contains(first, "<tool_use_error>") ||
		(strings.HasPrefix(first, "error") && !strings.HasPrefix(first, "error:")) ||
		strings.Contains(first, "enoent")
}

// claudeBlockTexts joins the text fields of all blocks by "\n".
func claudeBlockTexts(blocks []parse.Object) string {
	var parts []string
	for _, b := range blocks {
		if s, ok := b.StrOK("text"); ok {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// Timestamp reads a line's RFC 3339 timestamp.
func Timestamp(o parse.Object) Time {
	s, _ := o.StrOK("timestamp")
	t, err := time.Parse(time.RFC3339Nano, s)
	return Time{t, err == nil}
}

// claudeMillis converts a JSON duration to whole milliseconds, saturating.
func claudeMillis(ms float64) uint64 {
	switch {
	case !(ms > 0): // also NaN
		return 0
	case ms >= 1<<64:
		return 1<<64 - 1
	}
	return uint64(ms)
}
