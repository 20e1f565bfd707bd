// Package qwen reads what Qwen Code (@qwen-code/qwen-code) writes: its
// chat history, ~/.qwen/projects/<cwd dashed>/chats/<session>.jsonl
// (FormatChat, a uuid/parentUuid chain of user, assistant, tool_result
// and system records whose messages are Gemini-style parts), and the
// stdout of `qwen --output-format stream-json` (Claude's stream-json
// shape, read by agents/claude's stream parser with Qwen's tool names
// mapped). Both map onto AZUREAL's events as ../../docs/agents/qwen.md
// describes: prompts, assistant text, thinking, tool calls under
// Claude's names where one fits (write_file → Write, edit → Edit with
// old/new, read_file → Read, run_shell_command → Bash, grep_search →
// Grep, glob → Glob, agent → Task), their full results with errors
// marked, API errors, and token usage per model reply.
//
// Parsers are not safe for concurrent use.
package qwen

import "github.com/lazuli-app/lazuli/agents/parse"

// The formats of Qwen Code.
const (
	FormatChat   parse.Format = "qwen-chat"   // ~/.qwen/projects/<cwd dashed>/chats/<session>.jsonl
	FormatStream parse.Format = "qwen-stream" // qwen --output-format stream-json
)

// Backend is the backend name Qwen's usage rows carry.
const Backend = "qwen"

func init() {
	parse.RegisterFormat(parse.FormatSpec{Format: FormatChat, Detect: isChatLine,
		New: func(parse.Options) parse.Parser { return NewChatParser() }})
	parse.RegisterFormat(parse.FormatSpec{Format: FormatStream, Detect: isStreamLine, Refines: parse.FormatClaudeStream,
		New: func(opts parse.Options) parse.Parser { return NewStreamParser(opts.Model) }})
}

// isChatLine reports a chat record: a uuid chain line with Qwen's
// provenance, or whose message has Gemini-style parts.
func isChatLine(o parse.Object) bool {
	if !o.Has("uuid") || !o.Has("sessionId") {
		return false
	}
	return o.Has("provenance") || o.Obj("message").Has("parts")
}

// isStreamLine reports Qwen's stream-json init line (the rest of its
// stream has Claude's shape and votes for claude-stream, which this
// format refines: those votes count for it).
func isStreamLine(o parse.Object) bool {
	return o.Str("type") == "system" && o.Has("qwen_code_version")
}
