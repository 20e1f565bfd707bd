package store

// This file keeps the link between a session and the sub-agent sessions
// its agent started (a Claude Task/Agent call whose work arrived in the
// parent's stream, or a sub-agent transcript imported from native history,
// linked after its import: Unlinked, Link): which session holds the work
// of which call. Sub-agent
// sessions are ordinary sessions (AZUREAL lists them like any other); the
// link lets Lazuli open one from its call's card and go back to the parent.
//
// The link is one table that AZUREAL does not know, lazuli_subagents,
// under the same rules as lazuli_native_imports (native.go): created by the
// first write that needs it, never by opening or reading; its rows go with
// either session (ON DELETE CASCADE); each side's created text guards
// against ids AZUREAL reuses after a delete; Merge and Transfer().Export do
// not copy it.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lazuli-app/lazuli/codec"
)

var subagentSchema = []string{
	`CREATE TABLE IF NOT EXISTS lazuli_subagents (
    session_id      INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    session_created TEXT NOT NULL,
    parent_id       INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    parent_created  TEXT NOT NULL,
    tool_use_id     TEXT NOT NULL
)`,
	`CREATE INDEX IF NOT EXISTS idx_lazuli_subagents_parent ON lazuli_subagents(parent_id, tool_use_id)`,
}

// SubagentBatch is one sub-agent session to create: the parent's call
// that started it, its name and its first events.
type SubagentBatch struct {
	ToolUseID string
	// Name returns the session's name from its parent's display name
	// (DisplayName), read in the transaction that creates it.
	Name   func(parent string) string
	Events []codec.Event
	// Created is the session's created time in TimeFormat; "" means now
	// (a sub-agent of a running turn). An import gives the file's time.
	Created string
}

// SubagentLink is a sub-agent session and the call of its parent that
// started it.
type SubagentLink struct {
	SessionID int64
	ParentID  int64
	ToolUseID string
}

// Create creates a sub-agent session of parentID, with the worktree of its
// parent, its name and its first events, linked to the parent's call
// b.ToolUseID, in one transaction. It returns the session's id and name.
func (sa SubagentService) Create(ctx context.Context, parentID int64, b SubagentBatch) (int64, string, error) {
	ids, names, _, err := sa.createAll(ctx, parentID, nil, []SubagentBatch{b})
	if err != nil {
		return 0, "", err
	}
	return ids[0], names[0], nil
}

// The three writes below are sessions writes, Store's as
// Sessions().CreateWithEvents and Events().Append are: they write a session's
// events and usage, and its sub-agent sessions with their links.

// CreateWithSubagents creates a session with its events and its
// sub-agent sessions with theirs, in one transaction: all of it or
// nothing. The sub-agents' events are written first, so the session list
// (newest event first) shows the parent above them. It returns the
// parent's id and the number of events stored in all sessions. usage is
// the parent's, as for Sessions().CreateWithEvents.
//
// Test support: imports create sessions with their sub-agents through
// Transfer().CreateWithSubagentsAt; tests use this form.
func (ss SessionService) CreateWithSubagents(ctx context.Context, worktree, name string, events []codec.Event, subs []SubagentBatch, usage ...Usage) (int64, int, error) {
	return ss.s.Transfer().CreateWithSubagentsAt(ctx, worktree, name, "", events, subs, usage...)
}

// CreateWithSubagentsAt is Sessions().CreateWithSubagents with the
// parent's created time (as Transfer().CreateAt; "" means now).
func (tr TransferService) CreateWithSubagentsAt(ctx context.Context, worktree, name, created string, events []codec.Event, subs []SubagentBatch, usage ...Usage) (int64, int, error) {
	parent := &newSession{worktree: worktree, name: name, created: created, events: events, usage: usage}
	_, _, ns, err := tr.s.Subagents().createAll(ctx, 0, parent, subs)
	if err != nil {
		return 0, 0, err
	}
	total := parent.stored
	for _, n := range ns {
		total += n
	}
	return parent.id, total, nil
}

// AppendWithSubagents appends events to session parentID and creates its
// sub-agent sessions, in one transaction. usage is the parent's, as for
// Events().Append.
func (es EventService) AppendWithSubagents(ctx context.Context, parentID int64, events []codec.Event, subs []SubagentBatch, usage ...Usage) (int, error) {
	parent := &newSession{id: parentID, events: events, usage: usage}
	_, _, ns, err := es.s.Subagents().createAll(ctx, parentID, parent, subs)
	if err != nil {
		return 0, err
	}
	total := parent.stored
	for _, n := range ns {
		total += n
	}
	return total, nil
}

// newSession is the parent written by createSubagents: created when id is
// 0, else appended to.
type newSession struct {
	id             int64
	worktree, name string
	created        string // when id is 0: the new session's created time; "" means now
	events         []codec.Event
	usage          []Usage // Event indexes events
	stored         int
}

// createAll writes subs (and parent, when set) in one transaction.
func (sa SubagentService) createAll(ctx context.Context, parentID int64, parent *newSession, subs []SubagentBatch) (
	ids []int64, names []string, ns []int, err error) {
	encoded, err := sa.s.encodeBatches(len(subs), func(i int) []codec.Event { return subs[i].Events }, nil)
	defer finishBatches(encoded)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sub-agent session %s: %w", subs[len(encoded)-1].ToolUseID, err)
	}
	var parentEnc *encodedBatch
	if parent != nil {
		parentEnc = sa.s.encodeAsync(parent.events)
		defer parentEnc.finish()
		if _, err := parentEnc.chunk(0); err != nil {
			return nil, nil, nil, err
		}
	}
	ids, names, ns = make([]int64, len(subs)), make([]string, len(subs)), make([]int, len(subs))
	err = sa.s.writeTx(ctx, parent != nil && parent.id == 0, func(tx *sql.Tx) error {
		if parent != nil && parent.id == 0 {
			query, args := "INSERT INTO sessions(worktree, name) VALUES (?, ?)", []any{parent.worktree, parent.name}
			if parent.created != "" {
				query, args = "INSERT INTO sessions(worktree, name, created) VALUES (?, ?, ?)", append(args, parent.created)
			}
			res, err := tx.ExecContext(ctx, query, args...)
			if err != nil {
				return err
			}
			if parent.id, err = res.LastInsertId(); err != nil {
				return err
			}
			parentID = parent.id
		}
		if len(subs) > 0 {
			if err := createSubagentTable(ctx, tx); err != nil {
				return err
			}
		}
		var worktree, name, created string
		err := tx.QueryRowContext(ctx, "SELECT worktree, COALESCE(name, ''), created FROM sessions WHERE id = ?", parentID).
			Scan(&worktree, &name, &created)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		for i := range subs {
			names[i] = subs[i].Name(DisplayName(parentID, name))
			if ids[i], ns[i], err = insertSubagent(ctx, tx, parentID, created, worktree, names[i], &subs[i], encoded[i]); err != nil {
				return fmt.Errorf("sub-agent session %s: %w", subs[i].ToolUseID, err)
			}
		}
		if parent == nil {
			return nil
		}
		if parent.stored, err = insertEvents(ctx, tx, parentID, parentEnc); err != nil {
			return err
		}
		return insertUsage(ctx, tx, parentID, parentEnc, parent.usage)
	})
	if errors.Is(err, errNoStore) {
		err = ErrNotFound
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("store sub-agent sessions of session %d: %w", parentID, err)
	}
	return ids, names, ns, nil
}

// createSubagentTable creates SubagentTable inside a write transaction.
func createSubagentTable(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range subagentSchema {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("create %s: %w", SubagentTable, err)
		}
	}
	return nil
}

// insertSubagent creates one sub-agent session with its events and link.
func insertSubagent(ctx context.Context, tx *sql.Tx, parentID int64, parentCreated, worktree, name string,
	b *SubagentBatch, enc *encodedBatch) (int64, int, error) {
	query, args := "INSERT INTO sessions(worktree, name) VALUES (?, ?)", []any{worktree, name}
	if b.Created != "" {
		query, args = "INSERT INTO sessions(worktree, name, created) VALUES (?, ?, ?)", append(args, b.Created)
	}
	res, err := tx.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, 0, err
	}
	n, err := insertEvents(ctx, tx, id, enc)
	if err != nil {
		return 0, 0, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO lazuli_subagents (session_id, session_created, parent_id, parent_created, tool_use_id)
		SELECT id, created, ?, ?, ? FROM sessions WHERE id = ?`, parentID, parentCreated, b.ToolUseID, id)
	if err != nil {
		return 0, 0, fmt.Errorf("link to session %d: %w", parentID, err)
	}
	return id, n, nil
}

// subagentLinks is the live part of the link table: rows whose sessions
// both still exist under the ids they were linked with.
const subagentLinks = `SELECT l.session_id, l.parent_id, l.tool_use_id FROM lazuli_subagents l
	JOIN sessions c ON c.id = l.session_id AND c.created = l.session_created
	JOIN sessions p ON p.id = l.parent_id AND p.created = l.parent_created`

// Session returns the sub-agent session that holds the work of parentID's
// call toolUseID; ok is false when there is none.
func (sa SubagentService) Session(ctx context.Context, parentID int64, toolUseID string) (int64, bool, error) {
	l, ok, err := sa.link(ctx, " WHERE l.parent_id = ? AND l.tool_use_id = ? ORDER BY l.session_id LIMIT 1", parentID, toolUseID)
	return l.SessionID, ok, err
}

// Parent returns the link of sub-agent session id to its parent; ok is
// false for a session that is no sub-agent's.
func (sa SubagentService) Parent(ctx context.Context, id int64) (SubagentLink, bool, error) {
	return sa.link(ctx, " WHERE l.session_id = ?", id)
}

// Of returns the links of parentID's sub-agent sessions, oldest first.
func (sa SubagentService) Of(ctx context.Context, parentID int64) ([]SubagentLink, error) {
	db, _, err := sa.s.reader(ctx)
	if err != nil || db == nil {
		return nil, wrapSubagents(err)
	}
	if ok, err := hasTable(ctx, db, SubagentTable); err != nil || !ok {
		return nil, wrapSubagents(classify(err))
	}
	rows, err := db.QueryContext(ctx, subagentLinks+" WHERE l.parent_id = ? ORDER BY l.session_id", parentID)
	if err != nil {
		return nil, wrapSubagents(classify(err))
	}
	defer rows.Close()
	var out []SubagentLink
	for rows.Next() {
		var l SubagentLink
		if err := rows.Scan(&l.SessionID, &l.ParentID, &l.ToolUseID); err != nil {
			return nil, wrapSubagents(err)
		}
		out = append(out, l)
	}
	return out, wrapSubagents(classify(rows.Err()))
}

// link reads one live link.
func (sa SubagentService) link(ctx context.Context, where string, args ...any) (SubagentLink, bool, error) {
	var l SubagentLink
	db, _, err := sa.s.reader(ctx)
	if err != nil || db == nil {
		return l, false, wrapSubagents(err)
	}
	if ok, err := hasTable(ctx, db, SubagentTable); err != nil || !ok {
		return l, false, wrapSubagents(classify(err))
	}
	err = db.QueryRowContext(ctx, subagentLinks+where, args...).Scan(&l.SessionID, &l.ParentID, &l.ToolUseID)
	if errors.Is(err, sql.ErrNoRows) {
		return l, false, nil
	}
	if err != nil {
		return l, false, wrapSubagents(classify(err))
	}
	return l, true, nil
}

func wrapSubagents(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read sub-agent links: %w", err)
}

// checkSubagents reports the link table as information, and links whose
// sessions are gone as a warning: they are ignored, nothing is lost.
func checkSubagents(ctx context.Context, q querier, fs *findings) error {
	return checkOwnTable(ctx, q, fs, ownTable{name: SubagentTable, code: "subagents",
		count: `SELECT COUNT(*), COALESCE(SUM(
		NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = l.session_id AND s.created = l.session_created) OR
		NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = l.parent_id AND s.created = l.parent_created)), 0)
		FROM lazuli_subagents l`,
		info:  "table %s links %d sub-agent session(s) to their parent; it is Lazuli's own, AZUREAL ignores it",
		stale: "%d row(s) of %s name a session that no longer exists; they are ignored"})
}

// encodeBatches starts encoding n lists of events (events(i) is list i) and
// waits for the first chunk of each, so that an event that cannot be
// encoded fails before the write lock is taken; the error is that of the
// last list returned. A list that pre(i) (when pre is not nil) gives
// encoded already is not encoded again. finishBatches releases what it
// returns.
func (r *eventRows) encodeBatches(n int, events func(i int) []codec.Event, pre func(i int) *encodedBatch) ([]*encodedBatch, error) {
	encoded := make([]*encodedBatch, 0, n)
	for i := 0; i < n; i++ {
		var b *encodedBatch
		if pre != nil {
			b = pre(i)
		}
		if b == nil {
			b = r.encodeAsync(events(i))
		}
		b.stored = nil // what a failed transaction of the same batch kept
		encoded = append(encoded, b)
		if _, err := b.chunk(0); err != nil {
			return encoded, err
		}
	}
	return encoded, nil
}

// finishBatches releases batches of encodeBatches.
func finishBatches(batches []*encodedBatch) {
	for _, b := range batches {
		b.finish()
	}
}

// NativeSubagent is a sub-agent session that an import of native history
// stored (its record in NativeTable names its parent's native id) and
// whose parent's session is in the store too, but that has no link to
// its parent yet, or one whose call is unknown (ToolUseID ""): what
// linking it needs to know.
type NativeSubagent struct {
	SessionID, ParentID int64  // the sub-agent's session and its parent's
	Agent               string // "claude" or "codex"
	ID, ParentNativeID  string // the agents' own ids, as NativeKey.ID
	Path, ParentPath    string // their transcript files when imported
}

// Unlinked returns the sub-agent sessions imported from native history
// that have no link to their parent's session (stores imported before
// Lazuli linked them, or a sub-agent imported before its parent), and
// those linked without their call (ToolUseID "") whose parent is one of
// retry, oldest first. A store without a native-import record yields
// none.
func (sa SubagentService) Unlinked(ctx context.Context, retry ...int64) ([]NativeSubagent, error) {
	db, _, err := sa.s.reader(ctx)
	if err != nil || db == nil {
		return nil, wrapSubagents(err)
	}
	if ok, err := hasTable(ctx, db, NativeTable); err != nil || !ok {
		return nil, wrapSubagents(classify(err))
	}
	linked := "0"
	if ok, err := hasTable(ctx, db, SubagentTable); err != nil {
		return nil, wrapSubagents(classify(err))
	} else if ok {
		// A live link counts, unless its call is unknown and its parent
		// is to be retried.
		again, args := "0", []any{}
		if len(retry) > 0 {
			var list string
			list, args = inList(retry)
			again = "l.tool_use_id = '' AND l.parent_id IN " + list
		}
		linked = `EXISTS (SELECT 1 FROM (` + subagentLinks + `) l WHERE l.session_id = n.session_id AND NOT (` + again + `))`
		return sa.unlinked(ctx, db, linked, args)
	}
	return sa.unlinked(ctx, db, linked, nil)
}

// unlinked runs Unlinked's query with linked, the condition of a
// sub-agent record n that needs no link.
func (sa SubagentService) unlinked(ctx context.Context, db *sql.DB, linked string, args []any) ([]NativeSubagent, error) {
	rows, err := db.QueryContext(ctx, `SELECT n.session_id, p.session_id, n.agent, n.native_id, n.parent_id, n.source_path, p.source_path
		FROM lazuli_native_imports n
		JOIN sessions c ON c.id = n.session_id AND c.created = n.session_created
		JOIN lazuli_native_imports p ON p.agent = n.agent AND p.native_id = n.parent_id
		JOIN sessions ps ON ps.id = p.session_id AND ps.created = p.session_created
		WHERE n.parent_id <> '' AND n.session_id <> p.session_id AND NOT (`+linked+`)
		ORDER BY n.session_id`, args...)
	if err != nil {
		return nil, wrapSubagents(classify(err))
	}
	defer rows.Close()
	var out []NativeSubagent
	for rows.Next() {
		var n NativeSubagent
		if err := rows.Scan(&n.SessionID, &n.ParentID, &n.Agent, &n.ID, &n.ParentNativeID, &n.Path, &n.ParentPath); err != nil {
			return nil, wrapSubagents(err)
		}
		out = append(out, n)
	}
	return out, wrapSubagents(classify(rows.Err()))
}

// Link links sub-agent sessions to their parents' sessions and calls, as
// a sub-agent of a running turn is linked when it is created, in one
// transaction, and returns how many it wrote. A session that already has
// a live link keeps it, except that one linked without its call
// (ToolUseID "") gets the call when one is given now. Links naming a
// session that is gone are left out. The link table is created by the
// first call that writes; with no links nothing is written.
func (sa SubagentService) Link(ctx context.Context, links []SubagentLink) (int, error) {
	if len(links) == 0 {
		return 0, nil
	}
	n := 0
	err := sa.s.writeTx(ctx, false, func(tx *sql.Tx) error {
		if err := createSubagentTable(ctx, tx); err != nil {
			return err
		}
		for _, l := range links {
			res, err := tx.ExecContext(ctx, `INSERT INTO lazuli_subagents (session_id, session_created, parent_id, parent_created, tool_use_id)
				SELECT c.id, c.created, p.id, p.created, ? FROM sessions c, sessions p WHERE c.id = ? AND p.id = ? AND c.id <> p.id
				ON CONFLICT (session_id) DO UPDATE SET session_created = excluded.session_created, parent_id = excluded.parent_id,
				 parent_created = excluded.parent_created, tool_use_id = excluded.tool_use_id
				WHERE lazuli_subagents.session_created <> excluded.session_created
				 OR NOT EXISTS (SELECT 1 FROM sessions p WHERE p.id = lazuli_subagents.parent_id AND p.created = lazuli_subagents.parent_created)
				 OR (lazuli_subagents.tool_use_id = '' AND excluded.tool_use_id <> '')`,
				l.ToolUseID, l.SessionID, l.ParentID)
			if err != nil {
				return fmt.Errorf("link session %d to session %d: %w", l.SessionID, l.ParentID, err)
			}
			if k, err := res.RowsAffected(); err == nil {
				n += int(k)
			}
		}
		return nil
	})
	if errors.Is(err, errNoStore) {
		err = ErrNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("store sub-agent links: %w", err)
	}
	return n, nil
}
