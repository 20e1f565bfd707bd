package store

// This file keeps the agents' thinking: Claude's thinking blocks (and any
// other reasoning an agent marks as not part of the conversation), which
// AZUREAL's format has no variant for. AZUREAL drops them when it imports,
// and a row of an unknown kind in events would still count in its
// list_sessions event_count and take a seq, so thinking lives in a table of
// its own, lazuli_thinking, which AZUREAL's queries never name (as
// lazuli_native_imports). Each row says before which event seq it came;
// it never enters the context, char_len, the meter or completion. The
// table is created by the first write that carries thinking, rows go with
// their session (ON DELETE CASCADE) and are checked against the session's
// created text, because AZUREAL reuses the ids of deleted sessions. Merge
// and Transfer().Export copy it with its session (seqs are kept).

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/lazuli-app/lazuli/codec"
)

// Thinking returns a thinking event.
func Thinking(text string) codec.Event { return codec.Event{Kind: codec.KindThinking, Text: text} }

var thinkingSchema = []string{
	`CREATE TABLE IF NOT EXISTS lazuli_thinking (
    id              INTEGER PRIMARY KEY,
    session_id      INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    session_created TEXT NOT NULL,
    before_seq      INTEGER NOT NULL,
    text            TEXT NOT NULL
)`,
	`CREATE INDEX IF NOT EXISTS idx_lazuli_thinking_session ON lazuli_thinking(session_id, before_seq)`,
}

// Thought is one row of ThinkingTable: thinking that came right before the
// event with seq BeforeSeq (or before the session's next event, if that
// seq is not stored yet).
type Thought struct {
	ID        int64
	SessionID int64
	BeforeSeq int64
	Text      string
}

// createThinkingTable creates ThinkingTable and its index if missing.
func createThinkingTable(ctx context.Context, tx *sql.Tx) error {
	for _, q := range thinkingSchema {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create %s: %w", ThinkingTable, err)
		}
	}
	return nil
}

// insertThinking stores the thoughts of one write, creating the table on
// first use.
func insertThinking(ctx context.Context, tx *sql.Tx, sessionID int64, thoughts []Thought) error {
	if len(thoughts) == 0 {
		return nil
	}
	if !schemaApplied(ctx, tx, ThinkingTable) {
		if err := createThinkingTable(ctx, tx); err != nil {
			return err
		}
	}
	stmt, release, err := prepare(ctx, tx, `INSERT INTO lazuli_thinking(session_id, session_created, before_seq, text)
		SELECT id, created, ?, ? FROM sessions WHERE id = ?`)
	if err != nil {
		return fmt.Errorf("store thinking: %w", err)
	}
	defer release()
	for _, t := range thoughts {
		if _, err := stmt.ExecContext(ctx, t.BeforeSeq, t.Text, sessionID); err != nil {
			return fmt.Errorf("store thinking: %w", err)
		}
	}
	return nil
}

// Of returns the thinking kept for a session, ordered by BeforeSeq and
// then as it was written. A store without ThinkingTable, or a session with
// none, yields nothing.
//
// Test support: a load attaches thinking to its events (Events().Load),
// and search scans it (Scan); tests read one session's thinking with Of.
func (th ThinkingService) Of(ctx context.Context, sessionID int64) ([]Thought, error) {
	db, _, err := th.s.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	tx, err := beginRead(ctx, db)
	if err != nil {
		return nil, err
	}
	defer tx.end()
	return thoughtsIn(ctx, tx, sessionID, minSeq, maxSeq)
}

// thoughtsIn reads the thoughts of a session whose BeforeSeq is in
// [from, to], in one read transaction.
func thoughtsIn(ctx context.Context, q querier, sessionID, from, to int64) ([]Thought, error) {
	var n int
	if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", ThinkingTable).Scan(&n); err != nil || n == 0 {
		return nil, wrapThinking(err)
	}
	rows, err := q.QueryContext(ctx, `SELECT t.id, t.before_seq, t.text FROM lazuli_thinking t
		JOIN sessions s ON s.id = t.session_id AND s.created = t.session_created
		WHERE t.session_id = ? AND t.before_seq BETWEEN ? AND ? ORDER BY t.before_seq, t.id`, sessionID, from, to)
	if err != nil {
		return nil, wrapThinking(err)
	}
	defer rows.Close()
	var out []Thought
	for rows.Next() {
		t := Thought{SessionID: sessionID}
		if err := rows.Scan(&t.ID, &t.BeforeSeq, &t.Text); err != nil {
			return nil, wrapThinking(err)
		}
		out = append(out, t)
	}
	return out, wrapThinking(rows.Err())
}

func wrapThinking(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read thinking: %w", err)
}

// attachThinking sets the Thinking of each event from thoughts: a thought
// goes to the first event whose seq is at least its BeforeSeq; thoughts
// after the last event go nowhere until that event is stored.
func attachThinking(events []StoredEvent, thoughts []Thought) {
	j := 0
	for i := range events {
		for j < len(thoughts) && thoughts[j].BeforeSeq <= events[i].Seq {
			events[i].Thinking = append(events[i].Thinking, thoughts[j].Text)
			j++
		}
	}
}

// Scan calls fn, in order of their ids, with every thought of the
// store whose session is still the one it was written for and that match
// accepts, and order: the events.id of the event it precedes (the first of
// its session with seq ≥ BeforeSeq), or, for thinking after a session's
// last event, one more than the store's largest events.id. Search uses
// order to place thinking among event hits. order is looked up only for
// the thoughts match accepts: looking it up for every thought was nearly
// all of a search of a store with many (95 of 97 ms for 9,000).
func (th ThinkingService) Scan(ctx context.Context, match func(Thought) bool, fn func(t Thought, order int64) error) error {
	return th.placed(ctx, fn, func(tx *readTx) ([]Thought, error) {
		return queryThoughts(ctx, tx, match, liveThoughts+" ORDER BY t.id")
	})
}

// placeThoughts calls fn with each of thoughts and its order (see Scan),
// computed by SQLite for up to 500 thoughts at a time, in tx.
func placeThoughts(ctx context.Context, tx *readTx, matched []Thought, fn func(t Thought, order int64) error) error {
	// The orders of up to 500 thoughts at a time, computed by SQLite: the
	// first event by seq is the first entry of the session's index from
	// BeforeSeq on (MIN(id) read every later entry: 15 ms of a search of
	// a common word).
	for lo := 0; lo < len(matched); lo += 500 {
		chunk := matched[lo:min(lo+500, len(matched))]
		ids := make([]int64, len(chunk))
		for i, t := range chunk {
			ids[i] = t.ID
		}
		list, args := inList(ids)
		orders := make(map[int64]int64, len(chunk))
		rows, err := tx.QueryContext(ctx, `SELECT t.id,
			COALESCE((SELECT e.id FROM events e WHERE e.session_id = t.session_id AND e.seq >= t.before_seq ORDER BY e.seq LIMIT 1),
				(SELECT COALESCE(MAX(id), 0) + 1 FROM events))
			FROM lazuli_thinking t WHERE t.id IN `+list, args...)
		if err != nil {
			return wrapThinking(err)
		}
		for rows.Next() {
			var id, order int64
			if err := rows.Scan(&id, &order); err != nil {
				rows.Close()
				return wrapThinking(err)
			}
			orders[id] = order
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return wrapThinking(err)
		}
		for _, t := range chunk {
			if err := fn(t, orders[t.ID]); err != nil {
				return err
			}
		}
	}
	return nil
}

// After returns up to limit thoughts with ids above afterID, in order of
// their ids, of sessions that are still the ones they were written for
// (the search index reads the thinking it has not indexed yet this way).
// A store without ThinkingTable yields nothing.
func (th ThinkingService) After(ctx context.Context, afterID int64, limit int) ([]Thought, error) {
	return th.read(ctx, liveThoughts+` WHERE t.id > ? ORDER BY t.id LIMIT ?`, afterID, limit)
}

// ByID calls fn, in order of their ids, with the thoughts of ids that
// exist and whose session is still the one they were written for, and
// their order (see Scan). A store without ThinkingTable yields nothing.
func (th ThinkingService) ByID(ctx context.Context, ids []int64, fn func(t Thought, order int64) error) error {
	if len(ids) == 0 {
		return nil
	}
	return th.placed(ctx, fn, func(tx *readTx) ([]Thought, error) {
		var found []Thought
		for lo := 0; lo < len(ids); lo += 500 {
			list, args := inList(ids[lo:min(lo+500, len(ids))])
			some, err := queryThoughts(ctx, tx, nil, liveThoughts+` WHERE t.id IN `+list, args...)
			if err != nil {
				return nil, err
			}
			found = append(found, some...)
		}
		slices.SortFunc(found, func(a, b Thought) int { return cmp.Compare(a.ID, b.ID) })
		return found, nil
	})
}

// From calls fn, in order of their ids, with every thought above afterID
// whose session is still the one it was written for, and its order (see
// Scan): the thoughts a search index has not taken in yet. A store
// without ThinkingTable yields nothing.
func (th ThinkingService) From(ctx context.Context, afterID int64, fn func(t Thought, order int64) error) error {
	return th.placed(ctx, fn, func(tx *readTx) ([]Thought, error) {
		return queryThoughts(ctx, tx, nil, liveThoughts+` WHERE t.id > ? ORDER BY t.id`, afterID)
	})
}

// placed calls fn with the thoughts read returns and their orders, all in
// one read transaction.
func (th ThinkingService) placed(ctx context.Context, fn func(t Thought, order int64) error, read func(*readTx) ([]Thought, error)) error {
	db, _, err := th.s.reader(ctx)
	if err != nil || db == nil {
		return err
	}
	tx, err := beginRead(ctx, db)
	if err != nil {
		return wrapThinking(err)
	}
	defer tx.end()
	if ok, err := hasTable(ctx, tx, ThinkingTable); err != nil || !ok {
		return wrapThinking(err)
	}
	found, err := read(tx)
	if err != nil {
		return wrapThinking(err)
	}
	return placeThoughts(ctx, tx, found, fn)
}

// read runs query, which selects id, session_id, before_seq and text of
// lazuli_thinking, in one read transaction.
func (th ThinkingService) read(ctx context.Context, query string, args ...any) ([]Thought, error) {
	db, _, err := th.s.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	tx, err := beginRead(ctx, db)
	if err != nil {
		return nil, wrapThinking(err)
	}
	defer tx.end()
	if ok, err := hasTable(ctx, tx, ThinkingTable); err != nil || !ok {
		return nil, wrapThinking(err)
	}
	out, err := queryThoughts(ctx, tx, nil, query, args...)
	return out, wrapThinking(err)
}

// liveThoughts selects id, session_id, before_seq and text of the
// thoughts whose session is still the one they were written for.
const liveThoughts = `SELECT t.id, t.session_id, t.before_seq, t.text
		FROM lazuli_thinking t JOIN sessions s ON s.id = t.session_id AND s.created = t.session_created`

// queryThoughts reads the thoughts query selects (id, session_id,
// before_seq, text) that keep accepts (nil: all of them).
func queryThoughts(ctx context.Context, q querier, keep func(Thought) bool, query string, args ...any) ([]Thought, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Thought
	for rows.Next() {
		var t Thought
		if err := rows.Scan(&t.ID, &t.SessionID, &t.BeforeSeq, &t.Text); err != nil {
			return nil, err
		}
		if keep == nil || keep(t) {
			out = append(out, t)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}
