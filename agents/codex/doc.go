// Package codex parses the Codex CLI's output into store events: what
// `codex exec --json` prints (format C, ExecParser) and the rollouts Codex
// keeps under ~/.codex/sessions (format D, RolloutParser), with the tool
// calls both carry (shell commands, apply_patch, MCP calls) and the token
// usage they report. It imports agents/parse, editdiff and store; agents
// picks these parsers by format.
package codex
