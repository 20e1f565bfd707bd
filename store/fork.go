package store

// This file forks a session: a new session in the same worktree holding a
// copy of every event stored before one of the parent's prompts, so the
// conversation can go another way from there.
//
// The fork is an ordinary AZUREAL session (its events, compactions and
// name are all AZUREAL's own columns); only the link back to the parent
// lives in a table AZUREAL does not know, lazuli_forks. SQLite lets AZUREAL
// ignore it. Each row keeps the created text of both sessions because
// AZUREAL reuses the ids of deleted sessions: a row whose fork or parent is
// gone, or now holds another session under a reused id, is ignored on read,
// reported by Check and removed by the next fork. The fork's own row goes
// with it (ON DELETE CASCADE); the parent's delete leaves the fork as a
// session of its own.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/lazuli-app/lazuli/codec"
)

var forkSchema = `CREATE TABLE IF NOT EXISTS lazuli_forks (
    session_id      INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    session_created TEXT NOT NULL,
    parent_id       INTEGER NOT NULL,
    parent_created  TEXT NOT NULL,
    parent_seq      INTEGER NOT NULL,
    forked          TEXT NOT NULL DEFAULT (datetime('now'))
)`

// ForkMark separates a fork's default name from its number:
// "<parent> ⑂ <n>".
const ForkMark = " ⑂ "

// ErrNotPrompt reports a fork point that is not one of the session's
// prompts.
var ErrNotPrompt = errors.New("not a prompt of the session")

// ForkLink says where a fork came from.
type ForkLink struct {
	SessionID int64 // the fork
	ParentID  int64
	ParentSeq int64 // the parent's prompt the fork was made before
	Forked    string
	// Copied is how many events the fork holds copies of: its events 1 to
	// Copied are the parent's events before ParentSeq, in order. They
	// happened when the parent's did, not when the fork was made.
	Copied int64
}

// liveForks joins ForkTable to the sessions it names, leaving out rows
// whose fork or parent is gone or replaced under a reused id.
const liveForks = `FROM lazuli_forks f
	JOIN sessions s ON s.id = f.session_id AND s.created = f.session_created
	JOIN sessions p ON p.id = f.parent_id AND p.created = f.parent_created`

// All returns the links of the store's forks, by fork id. A store without
// ForkTable (every store that was never forked) yields an empty map.
func (fk ForkService) All(ctx context.Context) (map[int64]ForkLink, error) {
	out := map[int64]ForkLink{}
	db, _, err := fk.s.reader(ctx)
	if err != nil || db == nil {
		return out, wrapForks(err)
	}
	if ok, err := hasTable(ctx, db, ForkTable); err != nil || !ok {
		return out, wrapForks(classify(err))
	}
	rows, err := db.QueryContext(ctx, `SELECT f.session_id, f.parent_id, f.parent_seq, f.forked,
		(SELECT COUNT(*) FROM events e WHERE e.session_id = f.parent_id AND e.seq < f.parent_seq) `+liveForks)
	if err != nil {
		return nil, wrapForks(classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var l ForkLink
		if err := rows.Scan(&l.SessionID, &l.ParentID, &l.ParentSeq, &l.Forked, &l.Copied); err != nil {
			return nil, wrapForks(err)
		}
		out[l.SessionID] = l
	}
	return out, wrapForks(classify(rows.Err()))
}

func wrapForks(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read forks: %w", err)
}

// Create creates a session in the parent's worktree holding a copy of every
// event of the parent stored before the prompt at seq at: payloads byte
// for byte, renumbered from 1, with the compactions that lie wholly before
// at (after_seq < at, renumbered likewise), and the kept full text and
// thinking of the copied events. name "" means "<parent> ⑂ <n>" with the first n no
// session of the worktree has. The parent is not changed; the link goes to
// ForkTable. It returns the new session.
func (fk ForkService) Create(ctx context.Context, parentID, at int64, name string) (Session, error) {
	var id int64
	err := fk.s.writeTx(ctx, false, func(tx *sql.Tx) error {
		var err error
		id, err = forkTx(ctx, tx, &fk.s.eventRows, parentID, at, name)
		return err
	})
	if errors.Is(err, errNoStore) {
		err = ErrNotFound
	}
	if err != nil {
		return Session{}, fmt.Errorf("fork session %d at seq %d: %w", parentID, at, err)
	}
	return fk.s.Sessions().Get(ctx, id)
}

func forkTx(ctx context.Context, tx *sql.Tx, rows *eventRows, parentID, at int64, name string) (int64, error) {
	var parentName, worktree, parentCreated string
	err := tx.QueryRowContext(ctx, "SELECT COALESCE(name, ''), worktree, created FROM sessions WHERE id = ?", parentID).
		Scan(&parentName, &worktree, &parentCreated)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	var kind string
	var data []byte
	err = tx.QueryRowContext(ctx, "SELECT kind, data FROM events WHERE session_id = ? AND seq = ?", parentID, at).Scan(&kind, &data)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && kind != string(codec.KindUserMessage)) {
		return 0, fmt.Errorf("seq %d: %w", at, ErrNotPrompt)
	}
	if err != nil {
		return 0, err
	}
	if e, ok := rows.decodePayload(data); ok && !e.IsPrompt() {
		return 0, fmt.Errorf("seq %d is an interruption: %w", at, ErrNotPrompt)
	}
	if _, err := tx.ExecContext(ctx, forkSchema); err != nil {
		return 0, fmt.Errorf("create %s: %w", ForkTable, err)
	}
	// Rows of deleted sessions would block a reused id: clear them first.
	if _, err := tx.ExecContext(ctx, `DELETE FROM lazuli_forks WHERE session_id NOT IN (SELECT f.session_id `+liveForks+`)`); err != nil {
		return 0, fmt.Errorf("clear %s: %w", ForkTable, err)
	}
	if name == "" {
		if name, err = forkName(ctx, tx, worktree, DisplayName(parentID, parentName)); err != nil {
			return 0, err
		}
	}
	res, err := tx.ExecContext(ctx, "INSERT INTO sessions(worktree, name) VALUES (?, ?)", worktree, name)
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	var created string
	if err := tx.QueryRowContext(ctx, "SELECT created FROM sessions WHERE id = ?", id).Scan(&created); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO events(session_id, seq, kind, data, char_len)
		SELECT ?1, ROW_NUMBER() OVER (ORDER BY seq), kind, data, char_len
		FROM events WHERE session_id = ?2 AND seq < ?3 ORDER BY seq`, id, parentID, at); err != nil {
		return 0, fmt.Errorf("copy events: %w", err)
	}
	// A parent seq maps to the number of copied events at or before it.
	const newSeq = `(SELECT COUNT(*) FROM events e WHERE e.session_id = ?2 AND e.seq <= %s.%s)`
	if ok, err := hasTable(ctx, tx, "compactions"); err != nil {
		return 0, err
	} else if ok {
		if _, err := tx.ExecContext(ctx, `INSERT INTO compactions(session_id, after_seq, summary, created)
			SELECT ?1, `+fmt.Sprintf(newSeq, "c", "after_seq")+`, summary, created
			FROM compactions c WHERE c.session_id = ?2 AND c.after_seq < ?3 ORDER BY c.id`, id, parentID, at); err != nil {
			return 0, fmt.Errorf("copy compactions: %w", err)
		}
	}
	if ok, err := hasFullTextTable(ctx, tx); err != nil {
		return 0, err
	} else if ok {
		if _, err := tx.ExecContext(ctx, `DELETE FROM lazuli_full_text WHERE session_id = ?`, id); err != nil {
			return 0, fmt.Errorf("clear %s: %w", FullTextTable, err) // rows a delete with foreign keys off left
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO lazuli_full_text(session_id, seq, session_created, field, size, data)
			SELECT ?1, `+fmt.Sprintf(newSeq, "f", "seq")+`, ?4, field, size, data
			FROM lazuli_full_text f WHERE f.session_id = ?2 AND f.session_created = ?5 AND f.seq < ?3`,
			id, parentID, at, created, parentCreated); err != nil {
			return 0, fmt.Errorf("copy full text: %w", err)
		}
	}
	if ok, err := hasTable(ctx, tx, ThinkingTable); err != nil {
		return 0, err
	} else if ok {
		if _, err := tx.ExecContext(ctx, `DELETE FROM lazuli_thinking WHERE session_id = ?`, id); err != nil {
			return 0, fmt.Errorf("clear %s: %w", ThinkingTable, err) // rows a delete with foreign keys off left
		}
		// A thought came before the event at before_seq: in the fork, before
		// the copy of that event.
		if _, err := tx.ExecContext(ctx, `INSERT INTO lazuli_thinking(session_id, session_created, before_seq, text)
			SELECT ?1, ?4, 1 + (SELECT COUNT(*) FROM events e WHERE e.session_id = ?2 AND e.seq < t.before_seq), text
			FROM lazuli_thinking t WHERE t.session_id = ?2 AND t.session_created = ?5 AND t.before_seq < ?3 ORDER BY t.id`,
			id, parentID, at, created, parentCreated); err != nil {
			return 0, fmt.Errorf("copy thinking: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO lazuli_forks(session_id, session_created, parent_id, parent_created, parent_seq)
		VALUES (?, ?, ?, ?, ?)`, id, created, parentID, parentCreated, at); err != nil {
		return 0, fmt.Errorf("record fork: %w", err)
	}
	return id, nil
}

// forkName returns "<parent> ⑂ <n>" with the smallest n ≥ 1 that no
// session of worktree is named.
func forkName(ctx context.Context, tx *sql.Tx, worktree, parent string) (string, error) {
	for n := 1; ; n++ {
		name := parent + ForkMark + strconv.Itoa(n)
		var taken int
		if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM sessions WHERE worktree = ? AND name = ?", worktree, name).Scan(&taken); err != nil {
			return "", err
		}
		if taken == 0 {
			return name, nil
		}
	}
}

// ContextAt is Compactions().Context as it was for the session when the prompt at
// seq at was sent: the latest compaction wholly before at and the events
// after it up to at - 1. A fork made at at has this context.
//
// Test support: Lazuli builds a fork's context from the fork itself
// (Compactions().Context); tests use ContextAt to check that it is the
// parent's context at the fork point.
func (fk ForkService) ContextAt(ctx context.Context, sessionID, at int64) (*codec.ContextPayload, error) {
	comps, err := fk.s.Compactions().Of(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("build context of session %d at seq %d: %w", sessionID, at, err)
	}
	var latest *Compaction
	for i := range comps {
		if c := &comps[i]; c.AfterSeq < at && (latest == nil || c.AfterSeq > latest.AfterSeq) {
			latest = c
		}
	}
	from := int64(1)
	if latest != nil {
		from = latest.AfterSeq + 1
	}
	if at <= from { // nothing stored between the compaction and at
		if latest == nil {
			return nil, nil
		}
		return &codec.ContextPayload{Summary: &latest.Summary, Events: []codec.Event{}}, nil
	}
	stored, err := fk.s.Events().Range(ctx, sessionID, from, at-1)
	if err != nil {
		return nil, fmt.Errorf("build context of session %d at seq %d: %w", sessionID, at, err)
	}
	if len(stored) == 0 && latest == nil {
		return nil, nil
	}
	p := &codec.ContextPayload{Events: make([]codec.Event, len(stored))}
	for i := range stored {
		p.Events[i] = stored[i].Event
	}
	if latest != nil {
		p.Summary = &latest.Summary
	}
	return p, nil
}

// checkForks reports ForkTable as information, and rows whose fork or
// parent is gone as a warning: they are ignored, and the next fork
// removes them. (checkOwnTable checks one session per row; a link has
// two.)
func checkForks(ctx context.Context, q querier, fs *findings) error {
	ok, err := hasTable(ctx, q, ForkTable)
	if err != nil || !ok {
		return err
	}
	var total, live int
	if err := q.QueryRowContext(ctx, "SELECT (SELECT COUNT(*) FROM lazuli_forks), (SELECT COUNT(*) "+liveForks+")").Scan(&total, &live); err != nil {
		return fmt.Errorf("check %s: %w", ForkTable, err)
	}
	fs.addN(SeverityInfo, "forks", live, fmt.Sprintf(
		"table %s links %d fork(s) to their parents; it is Lazuli's own, AZUREAL ignores it", ForkTable, live))
	if n := total - live; n > 0 {
		fs.addN(SeverityWarning, "forks_stale", n, fmt.Sprintf(
			"%d row(s) of %s name a fork or parent that no longer exists; they are ignored and the next fork removes them", n, ForkTable))
	}
	return nil
}
