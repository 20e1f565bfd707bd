// Package claude parses Claude Code's output into store events: the
// stream-json a `claude -p --output-format stream-json` run prints
// (format A, StreamParser, with its sub-agents' work) and the transcripts
// Claude Code keeps under ~/.claude/projects (format B, TranscriptParser),
// with what both share (hooks, reminders, tool calls and results, API
// errors, compaction summaries) and the token usage they report. It
// imports agents/parse and store; agents picks these parsers by format.
package claude
