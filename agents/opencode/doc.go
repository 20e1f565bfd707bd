// Package opencode reads OpenCode's history (opencode-ai): the SQLite
// database it keeps at ~/.local/share/opencode/opencode.db (sessions,
// messages and their parts, most rows still in the -wal file), opened
// read-only as SQLite reads it and never written, and the event stream
// of `opencode run --format json`. Both map onto AZUREAL's events with
// OpenCode's usage and cost beside them. See docs/agents/opencode.md.
package opencode
