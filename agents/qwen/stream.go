package qwen

import (
	"github.com/lazuli-app/lazuli/agents/claude"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
)

// StreamParser parses `qwen --output-format stream-json` stdout: Claude's
// stream-json shape (system init, assistant and user messages, result),
// read by Claude's stream parser, with Qwen's tool names and inputs
// mapped as in the chat files and the usage rows marked Qwen's.
type StreamParser struct {
	p *claude.StreamParser
}

// NewStreamParser returns a parser whose Init reports model when the
// stream names none.
func NewStreamParser(model string) *StreamParser {
	return &StreamParser{p: claude.NewStreamParser(parse.Options{Model: model})}
}

// Feed parses one line of output.
func (s *StreamParser) Feed(line []byte) []codec.Event { return mapEvents(s.p.Feed(line)) }

// Finish returns the events held until the end.
func (s *StreamParser) Finish() []codec.Event { return mapEvents(s.p.Finish()) }

// Stats reports what was seen so far.
func (s *StreamParser) Stats() parse.Stats { return s.p.Stats() }

// Usage returns the usage of the result lines fed so far, as Qwen's.
func (s *StreamParser) Usage() []parse.UsageRow {
	rows := s.p.Usage()
	for i := range rows {
		rows[i] = rows[i].WithSource(Backend, string(FormatStream))
	}
	return rows
}

// TakeSubagents implements parse.SubagentSource: the sub-agents' work the
// stream carried (Qwen streams an agent tool's conversation, as Claude
// does, in lines with its parent_tool_use_id), Qwen's tools mapped.
func (s *StreamParser) TakeSubagents() []parse.SubagentEvents {
	subs := s.p.TakeSubagents()
	for i := range subs {
		subs[i].Events = mapEvents(subs[i].Events)
		if subs[i].Asked == "" { // Claude's parser knows its Task call's prompt, not the agent tool's
			for _, e := range subs[i].Events {
				if e.Kind == codec.KindUserMessage {
					subs[i].Asked = e.Content
					break
				}
			}
		}
	}
	return subs
}

// SkipLine counts a line too long to parse as malformed.
func (s *StreamParser) SkipLine() { parse.FeedTooLong(s.p) }

// mapEvents renames Qwen's tools in calls and results.
func mapEvents(evs []codec.Event) []codec.Event {
	for i, e := range evs {
		switch e.Kind {
		case codec.KindToolCall:
			name, input := MapTool(e.ToolName, e.Input)
			evs[i].ToolName, evs[i].Input = name, input
			if e.FilePath == nil {
				evs[i].FilePath = filePath(input)
			}
		case codec.KindToolResult:
			evs[i].ToolName = toolName(e.ToolName)
		}
	}
	return evs
}
