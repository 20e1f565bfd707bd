// Package native finds and imports the coding agents' own histories:
// Claude Code's transcripts under ~/.claude/projects and Codex's rollouts
// under ~/.codex/sessions. Scan lists the sessions (with a cached preview
// of each: title, first prompt, times), Import copies new ones and the
// lines appended since into a store, each with its sub-agents, and
// ImportTranscript stores one file a user dropped or named. It imports
// agents (to store a parsed transcript), agents/claude, agents/codex,
// agents/parse and store.
package native
