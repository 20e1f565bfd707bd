package store

// The Store's rooms: one small type a domain, each a value holding the
// *Store and reaching the file through its shared connections. AZUREAL's
// tables first (sessions, events, compactions), then moving sessions in
// and out, the scan the indexes read with, and Lazuli's own tables
// (tables.go), each of which AZUREAL ignores and its delete leaves nothing
// of that Lazuli trips over. Their methods live in the file of their
// domain (sessions.go, events.go and load.go, compactions.go, …).

// SessionService is a store's sessions: AZUREAL's sessions table, listed
// by worktree with their counts and completion, created, renamed and
// deleted (with every row of theirs, Lazuli's included).
type SessionService struct{ s *Store }

// Sessions returns the store's sessions.
func (s *Store) Sessions() SessionService { return SessionService{s} }

// EventService is a store's events: AZUREAL's events table, appended in
// batches (with the thinking, run failures, usage and full texts that
// come with them) and loaded whole, by range or from the end.
type EventService struct{ s *Store }

// Events returns the store's events.
func (s *Store) Events() EventService { return EventService{s} }

// CompactionService is a store's compactions: AZUREAL's compactions table,
// each a summary of a session's events up to a seq that stands in for them
// in the context a continued session is given (Context).
type CompactionService struct{ s *Store }

// Compactions returns the store's compactions.
func (s *Store) Compactions() CompactionService { return CompactionService{s} }

// TransferService moves sessions between a store and the world outside it:
// merging another store, exporting sessions to a file of their own,
// importing a session from elsewhere (checked as AZUREAL would read it, or
// parsed with the time it began), and finding one imported before.
type TransferService struct{ s *Store }

// Transfer returns the store's transfers.
func (s *Store) Transfer() TransferService { return TransferService{s} }

// ScanService reads the events, compactions and sessions tables across
// sessions, by id, for the readers that keep data derived from the store
// up to date (the search and insight indexes, team sync). It is a value
// over its Store, reached by Store.Scan.
type ScanService struct{ s *Store }

// Scan returns the store's scan API.
func (s *Store) Scan() ScanService { return ScanService{s} }

// FlagService is a store's session marks, pinned and archived, kept in
// FlagsTable (AZUREAL ignores it): the sidebar and `lazuli pin`/`archive`
// read and set them.
type FlagService struct{ s *Store }

// Flags returns the store's session marks.
func (s *Store) Flags() FlagService { return FlagService{s} }

// PermissionService is a store's sessions' own permission modes and rules,
// kept in PermissionsTable (AZUREAL ignores it): the agents apply them to a
// run, and an "always allow" answer adds to them.
type PermissionService struct{ s *Store }

// Permissions returns the store's sessions' permissions.
func (s *Store) Permissions() PermissionService { return PermissionService{s} }

// ForkService is a store's session forks: the links in ForkTable from a
// fork to the parent and prompt it was made before (AZUREAL ignores the
// table; the fork itself is an ordinary session), making a fork, and the
// context a fork starts with.
type ForkService struct{ s *Store }

// Forks returns the store's forks.
func (s *Store) Forks() ForkService { return ForkService{s} }

// SubagentService is a store's sub-agent links, kept in SubagentTable
// (AZUREAL ignores it): which sub-agent session holds the work of which
// call of its parent, read to open one from its call's card and to go
// back; and creating a sub-agent session of a running turn.
type SubagentService struct{ s *Store }

// Subagents returns the store's sub-agent links.
func (s *Store) Subagents() SubagentService { return SubagentService{s} }

// ThinkingService is a store's kept thinking, in ThinkingTable (AZUREAL's
// queries never name it): a session's thoughts, and every thought for
// search. Writes and loads of events carry thinking themselves.
type ThinkingService struct{ s *Store }

// Thinking returns the store's kept thinking.
func (s *Store) Thinking() ThinkingService { return ThinkingService{s} }

// RunFailureService is a store's reasons why agent runs failed, kept in
// RunFailureTable (AZUREAL's queries never name it). Writes record them
// (RunFailed events) and loads attach them to events themselves.
type RunFailureService struct{ s *Store }

// RunFailures returns the store's reasons why runs failed.
func (s *Store) RunFailures() RunFailureService { return RunFailureService{s} }

// UsageService is a store's token usage: the rows of UsageTable, Lazuli's
// own, one a turn (written with the events they follow by
// Sessions().CreateWithEvents and Events().Append, or later by Append), and the
// version a derived index tells their changes by.
type UsageService struct{ s *Store }

// Usage returns the store's token usage.
func (s *Store) Usage() UsageService { return UsageService{s} }

// FullTextService reads and measures the full texts a store keeps (see
// FullTextTable), and says whether its writes keep them. It is a value over
// its Store, reached by Store.FullText.
type FullTextService struct{ s *Store }

// FullText returns the store's full texts.
func (s *Store) FullText() FullTextService { return FullTextService{s} }

// NativeService keeps the record of imported native transcripts (see
// NativeTable) and imports them. It is a value over its Store, reached by
// Store.Native.
type NativeService struct {
	s      *Store
	noRows bool // Import returns no NativeResult.Rows
}

// Native returns the store's record of imported native history.
func (s *Store) Native() NativeService { return NativeService{s: s} }

// WithoutRows is n with an Import that leaves NativeResult.Rows empty: an
// import that feeds no search index has no use for them.
func (n NativeService) WithoutRows() NativeService {
	n.noRows = true
	return n
}
