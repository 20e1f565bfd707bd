// Package parse holds what every agent-output parser shares: the four
// transcript formats and their detection (DetectFormat), the Parser
// interface with its Options and Stats, the lenient JSON accessor (Object)
// the Claude and Codex parsers read lines with, sub-agent events, and the
// token-usage rows a parser records beside its events (UsageLog,
// PlaceUsage). It imports store only; agents/claude and agents/codex build
// on it, and agents picks a parser by format.
package parse
