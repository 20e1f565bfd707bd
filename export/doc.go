// Package export writes a session to a file people can read or tools can
// process: Markdown, one self-contained HTML page, or JSON. It also scans
// everything an export would contain for secrets (API keys, tokens, private
// keys, connection strings with passwords, …) and can redact what it found.
//
// The flow is Load (or build a Source yourself), Scan, optionally Redact,
// then Render, usually through WriteFile, which writes atomically. The
// store is only read: an export never changes it.
//
// The package imports store and the standard library (and go-diff for Edit
// diffs), never Fyne. Its functions are safe for concurrent use; a Source
// and a Report are values that are not modified once built.
package export
