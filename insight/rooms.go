package insight

// The Index's rooms: one small type a domain of what the index answers,
// each a value holding the *Index and reading its file through the
// index's one connection (as store's rooms do over a *store.Store). The
// Index itself keeps what is its own: opening, closing and bringing the
// file up to date. Their methods live in the file of their domain
// (usage.go, files.go and edits.go, refs.go, tools.go, sessions.go).

// UsageService is the index's token usage and cost: sums by day, model,
// backend, worktree or session (`lazuli stats`), what the Insights window
// sums, and the usage of each turn.
type UsageService struct{ x *Index }

// Usage returns the index's token usage.
func (x *Index) Usage() UsageService { return UsageService{x} }

// FileService is the files the sessions read and changed: listed by
// session (`lazuli files`), the most touched, the recent edits and one
// file's, and the files a session changed over and over.
type FileService struct{ x *Index }

// Files returns the files the index's sessions touched.
func (x *Index) Files() FileService { return FileService{x} }

// RefService is the pull requests, issues, commits, branches and URLs the
// sessions mentioned (`lazuli refs`, the chronicle's standup).
type RefService struct{ x *Index }

// Refs returns the refs the index's sessions mentioned.
func (x *Index) Refs() RefService { return RefService{x} }

// ToolService is the agents' tool calls: each tool's calls and errors,
// summed over the sessions or per session for the tools that failed.
type ToolService struct{ x *Index }

// Tools returns the tool calls of the index's sessions.
func (x *Index) Tools() ToolService { return ToolService{x} }

// SessionService is the index's sessions and their turns: the sessions
// active since a time with their models and cost, each turn's prompt and
// outcome (what the chronicle reports are written from), and the
// sessions started by day and by hour of the week (the Insights window).
type SessionService struct{ x *Index }

// Sessions returns the index's sessions.
func (x *Index) Sessions() SessionService { return SessionService{x} }
