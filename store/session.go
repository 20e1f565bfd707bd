package store

import (
	"strconv"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store/listcache"
)

// Session is one row of the sessions table with the aggregates AZUREAL's
// list_sessions computes.
type Session struct {
	ID             int64
	Name           string // raw column; may be ""
	Worktree       string // the git branch, not a path
	Created        string // raw "YYYY-MM-DD HH:MM:SS" UTC text
	Completed      *bool  // nil: unknown or in progress; the last Complete written (see Unfinished)
	DurationMS     *int64
	CostUSD        *float64
	LastClaudeUUID string

	EventCount           int64 // stored rows, including undecodable ones
	MessageCount         int64 // rows of kind UserMessage or AssistantText
	CharsSinceCompaction int64 // SUM(char_len) after the latest compaction
	LastEventID          int64 // MAX(events.id), the list order key; 0 if none

	// LastActive is when the session last changed as far as the file
	// tells, in TimeFormat UTC: the latest of Created and the times
	// Lazuli's tables keep (see activity.go). Set by the list functions.
	LastActive string
	// Interrupted reports a failed session whose last turn was stopped
	// before it finished (TurnAbortedText). Set by the list functions.
	Interrupted bool
	// Unfinished reports that turns began after the last Complete, so
	// Completed and DurationMS describe an earlier turn and how the session
	// ended is unknown (a Codex rollout without task_complete stores a
	// Complete only for its interrupted turns). Set by the list functions
	// (settleStatus).
	Unfinished bool

	// Damage says why the session cannot be read as it should (its events
	// cannot be loaded, or its context size is unknown; CharsSinceCompaction
	// is then -1), or is "" for a sound session. Other sessions of the store
	// are not affected; lazuli check tells more.
	Damage string
}

// setDamage records the damage the counts a found.
func (s *Session) setDamage(a listcache.Agg) {
	if s.Damage = a.Damage(); a.Overflow {
		s.CharsSinceCompaction = -1
	}
}

// DisplayName is the name, or S{id} when the name is empty.
func (s Session) DisplayName() string { return DisplayName(s.ID, s.Name) }

// DisplayName is name, or S{id} when name is empty.
func DisplayName(id int64, name string) string {
	if name != "" {
		return name
	}
	return "S" + strconv.FormatInt(id, 10)
}

// StoredEvent is an event as loaded from the store, with its row columns.
// Seq, Kind and CharLen describe the stored row even when the read-time
// filter rewrote the event's content.
type StoredEvent struct {
	ID      int64
	Seq     int64
	Kind    codec.Kind
	CharLen int64
	Event   codec.Event
	// Thinking is the agent's thinking that came right before this event
	// (ThinkingTable), oldest first. It is never part of the context.
	Thinking []string
	// RunFailures are why the agent runs that ended with this event failed
	// (RunFailureTable), oldest first. They are never part of the context.
	RunFailures []string
}

// Compaction is one row of the compactions table. AfterSeq is the last seq
// the summary covers (inclusive).
type Compaction struct {
	ID        int64
	SessionID int64
	AfterSeq  int64
	Summary   string
	Created   string
}

// CompactionThreshold is the number of characters since the latest
// compaction at which a session should be compacted (spec §7.1).
const CompactionThreshold = 400_000

// Unreadable is a stored row that a load left out because its payload
// could not be read as an event: not zstd or JSON that AZUREAL reads, or
// too large. AZUREAL leaves such rows out without a word; Lazuli says so
// (see Store.Unreadable).
type Unreadable struct {
	Session  int64
	Seq      int64
	TooLarge bool // it decodes to more than MaxEventSize
}

// TimeFormat is the layout of the file's times (sessions.created and
// others): SQLite's datetime('now'), UTC, to the second.
const TimeFormat = "2006-01-02 15:04:05"

// ScannedEvent is one events row as ScanService.Events and EventsByID
// return it.
// No read-time filter is applied: each row is decoded on its own.
type ScannedEvent struct {
	ID        int64
	SessionID int64
	Seq       int64
	Kind      codec.Kind  // the kind column
	CharLen   int64       // the char_len column
	Event     codec.Event // the payload; the zero Event (Kind "") when it cannot be decoded
	// Full is what compaction shortened of the event (see FullTextTable),
	// filled by FullTextService.Attach; "" when nothing was kept.
	Full string
	// Payload is the stored data column as it is (a zstd frame, or the
	// plain JSON text of a v1 file); only with ScanOptions.Raw.
	Payload []byte
}
