package store

// This file keeps why an agent run failed: the reason an agent gave when it
// exited without finishing its turn (claude refusing to run, a CLI that
// could not reach its API, an agent stopped for printing nothing). The
// failed Complete event says ✗; AZUREAL's format has no place for the why,
// and an event would enter the context prompt or the meter (a Hook's output
// counts in char_len). So the reasons live in a table of Lazuli's own,
// lazuli_run_failures, which AZUREAL's queries never name. Each row says
// after which event seq it came (the session's last when the run ended)
// and when. It never enters the context, char_len, the meter or the list's
// counts. Rows go with their session (ON DELETE CASCADE) and keep the
// session's created text, because AZUREAL reuses the ids of deleted
// sessions: a row whose session is gone, or now holds another session
// under a reused id, is ignored on read, reported by Check and removed by
// the next failure written. A run records its failure as a RunFailed event
// in the batch that ends it. Merge and Transfer().Export do not copy them.

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/lazuli-app/lazuli/codec"
)

var runFailureSchema = []string{
	`CREATE TABLE IF NOT EXISTS lazuli_run_failures (
    id              INTEGER PRIMARY KEY,
    session_id      INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    session_created TEXT NOT NULL,
    after_seq       INTEGER NOT NULL,
    at              TEXT NOT NULL DEFAULT (datetime('now')),
    reason          TEXT NOT NULL
)`,
	`CREATE INDEX IF NOT EXISTS idx_lazuli_run_failures_session ON lazuli_run_failures(session_id, after_seq)`,
}

// MaxRunFailureLen caps a stored reason, in bytes: the end of an agent's
// stderr, not all of it.
const MaxRunFailureLen = 4096

// RunFailure is one row of RunFailureTable.
type RunFailure struct {
	SessionID int64
	AfterSeq  int64  // the session's last event seq when the run ended; 0 before any
	At        string // when, in TimeFormat UTC
	Reason    string
}

// liveRunFailures joins RunFailureTable to the sessions it names, leaving
// out rows whose session is gone or replaced under a reused id.
const liveRunFailures = `FROM lazuli_run_failures f JOIN sessions s ON s.id = f.session_id AND s.created = f.session_created`

// RunFailed returns the event that records why a run failed. The reason is
// trimmed and capped at MaxRunFailureLen (its end is kept: the last lines
// say most); an empty one stores nothing.
func RunFailed(reason string) codec.Event {
	return codec.Event{Kind: codec.KindRunFailure, Text: reason}
}

// insertRunFailures stores the failures of one write, creating the table
// on first use and removing rows whose session is gone.
func insertRunFailures(ctx context.Context, tx *sql.Tx, sessionID int64, fails []RunFailure) error {
	if len(fails) == 0 {
		return nil
	}
	for _, q := range runFailureSchema {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create %s: %w", RunFailureTable, err)
		}
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM lazuli_run_failures WHERE NOT EXISTS
		(SELECT 1 FROM sessions s WHERE s.id = session_id AND s.created = session_created)`); err != nil {
		return fmt.Errorf("clear %s: %w", RunFailureTable, err)
	}
	for _, f := range fails {
		if _, err := tx.ExecContext(ctx, `INSERT INTO lazuli_run_failures(session_id, session_created, after_seq, reason)
			SELECT id, created, ?, ? FROM sessions WHERE id = ?`, f.AfterSeq, f.Reason, sessionID); err != nil {
			return fmt.Errorf("record why a run failed: %w", err)
		}
	}
	return nil
}

// Of returns the failure reasons kept for a session, oldest first. A
// store without RunFailureTable yields nothing.
func (rf RunFailureService) Of(ctx context.Context, id int64) ([]RunFailure, error) {
	db, _, err := rf.s.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	tx, err := beginRead(ctx, db)
	if err != nil {
		return nil, wrapRunFailures(err)
	}
	defer tx.end()
	return runFailuresIn(ctx, tx, id, minSeq, maxSeq)
}

// runFailuresIn reads the failures of a session whose AfterSeq is in
// [from, to], in one read transaction.
func runFailuresIn(ctx context.Context, q querier, id, from, to int64) ([]RunFailure, error) {
	if ok, err := hasTable(ctx, q, RunFailureTable); err != nil || !ok {
		return nil, wrapRunFailures(err)
	}
	rows, err := q.QueryContext(ctx, `SELECT f.after_seq, f.at, f.reason `+liveRunFailures+`
		WHERE f.session_id = ? AND f.after_seq BETWEEN ? AND ? ORDER BY f.after_seq, f.id`, id, from, to)
	if err != nil {
		return nil, wrapRunFailures(err)
	}
	defer rows.Close()
	var out []RunFailure
	for rows.Next() {
		f := RunFailure{SessionID: id}
		if err := rows.Scan(&f.AfterSeq, &f.At, &f.Reason); err != nil {
			return nil, wrapRunFailures(err)
		}
		out = append(out, f)
	}
	return out, wrapRunFailures(rows.Err())
}

func wrapRunFailures(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read run failures: %w", err)
}

// attachRunFailures sets the RunFailures of each event from fails: a
// failure goes to the last event whose seq is at most its AfterSeq (the
// event the run ended with), or to the first event when it came before
// them all.
func attachRunFailures(events []StoredEvent, fails []RunFailure) {
	if len(events) == 0 {
		return
	}
	i := 0
	for _, f := range fails {
		for i+1 < len(events) && events[i+1].Seq <= f.AfterSeq {
			i++
		}
		events[i].RunFailures = append(events[i].RunFailures, f.Reason)
	}
}

// checkRunFailures reports RunFailureTable as information, and rows whose
// session is gone as a warning.
func checkRunFailures(ctx context.Context, q querier, fs *findings) error {
	return checkOwnTable(ctx, q, fs, ownTable{name: RunFailureTable, code: "run_failures", count: sessionRowsQuery(RunFailureTable, "f"),
		info:  "table %s keeps why %d agent run(s) failed; it is Lazuli's own, AZUREAL ignores it",
		stale: "%d row(s) of %s name a session that no longer exists; they are ignored and the next failure recorded removes them"})
}
