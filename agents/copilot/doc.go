// Package copilot reads GitHub Copilot CLI's sessions (@github/copilot):
// the event log it keeps per session (~/.copilot/session-state/<id>/events.jsonl,
// with workspace.yaml beside it), the same events as `copilot -p
// --output-format json` prints them, and its session store
// (~/.copilot/session-store.db: sessions, turns, files, refs and a search
// index), read-only, as a second source for what the event logs lack.
// Events map onto AZUREAL's events; a sub-agent's events (those with an
// agentId) become the sub-agent's own session. See docs/agents/copilot.md.
package copilot
