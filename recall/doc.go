// Package recall answers an agent's questions about the sessions of a
// project's stores: full-text search, a session's transcript, the files
// sessions changed with their diffs, the refs they mention, token usage,
// what was tried before (the chronicle's improve findings) and the
// read-only SQL console. It is the tool side of `lazuli mcp` (package
// recall/mcpserve serves it over MCP); it uses search, insight, chronicle
// and export and never imports Fyne.
//
// Read-only by construction: stores are opened with store.OpenReadOnly,
// the search and insight indexes are used only when they exist and are
// never updated (a stale index misses the newest events, and the answer
// says so), and SQL runs under insight.RunSQL's authorizer and limits.
// Every answer is Markdown that cites its sessions and events ([S12#340],
// with a lazuli:// link), is cut to MaxChars with a continuation cursor,
// and has its secrets redacted (export.RedactText) before it is returned.
//
// A *History is safe for concurrent use: every call reads in short
// transactions of its own, so a writer of the stores is never held up
// longer than one read (a query, at most QueryBudget).
package recall
