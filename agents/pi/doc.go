// Package pi reads the Pi coding agent's sessions (@mariozechner/pi-coding-agent):
// the session files it writes under ~/.pi/agent/sessions/--<cwd>--/ and the
// event stream of `pi --mode json -p` — both carry the same messages (a
// session file's "message" lines, the stream's "message_end" lines) — and
// maps them onto AZUREAL's events with Pi's usage and cost beside them.
// See docs/agents/pi.md.
package pi
