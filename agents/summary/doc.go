// Package summary writes the built-in compaction summary: without an
// agent, it condenses the older part of a session into a bounded,
// deterministic text (MinChars to MaxChars) under fixed headings (Earlier
// summary, User requests, Decisions and findings, Files touched, Commands
// run, Errors, Current state). It imports agents/codex (to find the
// request in a Codex prompt) and store; agents' compaction falls back to
// it when no agent writes an acceptable summary.
package summary
