// Package gemini reads what Gemini CLI (@google/gemini-cli) writes: its
// chat history, ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl
// (FormatChat), and the stdout of `gemini -p … --output-format
// stream-json` (FormatStream). Both map onto AZUREAL's events as
// ../../docs/agents/gemini.md describes: prompts, assistant text, thinking,
// tool calls under Claude's names where one fits (write_file → Write,
// replace → Edit with old/new, read_file → Read, run_shell_command → Bash,
// grep_search → Grep, glob → Glob), their full results, errors marked
// (a failing shell step, which Gemini records as a success, by its exit
// code), and token usage per model reply.
//
// Parsers are not safe for concurrent use.
package gemini

import "github.com/lazuli-app/lazuli/agents/parse"

// The formats of Gemini CLI.
const (
	FormatChat   parse.Format = "gemini-chat"   // ~/.gemini/tmp/<project>/chats/session-*.jsonl
	FormatStream parse.Format = "gemini-stream" // gemini -p --output-format stream-json
)

// Backend is the backend name Gemini's usage rows carry.
const Backend = "gemini"

func init() {
	parse.RegisterFormat(parse.FormatSpec{Format: FormatChat, Detect: isChatLine,
		New: func(parse.Options) parse.Parser { return NewChatParser() }})
	parse.RegisterFormat(parse.FormatSpec{Format: FormatStream, Detect: isStreamLine,
		New: func(opts parse.Options) parse.Parser { return NewStreamParser(opts.Model) }})
}

// isChatLine reports a line of a chat file: its header (sessionId and
// projectHash), a message record (id, type user|gemini|info|error|warning
// and content) or a $set patch.
func isChatLine(o parse.Object) bool {
	switch {
	case o.Has("projectHash") && o.Has("sessionId"):
		return true
	case o.Has("$set"):
		return true
	case o.Has("id") && o.Has("content") && chatTypes[o.Str("type")]:
		return true
	}
	return false
}

var chatTypes = map[string]bool{"user": true, "gemini": true, "info": true, "error": true, "warning": true}

// isStreamLine reports a stream-json line: init with session_id, or
// tool_use / tool_result with tool_id, or a result with stats.
func isStreamLine(o parse.Object) bool {
	switch o.Str("type") {
	case "init":
		return o.Has("session_id") && o.Has("timestamp") && !o.Has("subtype")
	case "tool_use", "tool_result":
		return o.Has("tool_id")
	case "result":
		return o.Has("stats") && o.Has("status") && !o.Has("subtype")
	}
	return false
}
