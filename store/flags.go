package store

// This file keeps two marks a user puts on a session: pinned (kept at the
// top of its group) and archived (hidden by default, never deleted).
// AZUREAL's schema has no place for them, so they live in a table of
// Lazuli's own, lazuli_session_flags, which AZUREAL ignores. A row goes
// with its session (ON DELETE CASCADE); each row keeps the session's
// created text because AZUREAL reuses the ids of deleted sessions: a row
// whose session is gone, or now holds another session under a reused id,
// is ignored on read, reported by Check and removed by the next write of
// flags. A session with neither mark has no row.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

var flagsSchema = `CREATE TABLE IF NOT EXISTS lazuli_session_flags (
    session_id      INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    session_created TEXT NOT NULL,
    pinned_at       TEXT,
    archived_at     TEXT
)`

// Flags are a session's marks; a zero value means neither.
type Flags struct {
	PinnedAt   string // when it was pinned, in TimeFormat; "" when not pinned
	ArchivedAt string // when it was archived, in TimeFormat; "" when not archived
}

// Pinned reports whether the session is pinned.
func (f Flags) Pinned() bool { return f.PinnedAt != "" }

// Archived reports whether the session is archived.
func (f Flags) Archived() bool { return f.ArchivedAt != "" }

// liveFlags joins FlagsTable to the sessions it names, leaving out rows
// whose session is gone or replaced under a reused id.
const liveFlags = `FROM lazuli_session_flags f JOIN sessions s ON s.id = f.session_id AND s.created = f.session_created`

// All returns the marks of the store's marked sessions, by id. A store
// without FlagsTable yields an empty map.
func (fl FlagService) All(ctx context.Context) (map[int64]Flags, error) {
	out := map[int64]Flags{}
	db, err := fl.s.ownTableReader(ctx, FlagsTable)
	if err != nil || db == nil {
		return out, wrapFlags(err)
	}
	rows, err := db.QueryContext(ctx, "SELECT f.session_id, COALESCE(f.pinned_at, ''), COALESCE(f.archived_at, '') "+liveFlags)
	if err != nil {
		return nil, wrapFlags(classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var f Flags
		if err := rows.Scan(&id, &f.PinnedAt, &f.ArchivedAt); err != nil {
			return nil, wrapFlags(err)
		}
		if f != (Flags{}) {
			out[id] = f
		}
	}
	return out, wrapFlags(classify(rows.Err()))
}

func wrapFlags(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read session flags: %w", err)
}

// SetPinned pins or unpins session id.
func (fl FlagService) SetPinned(ctx context.Context, id int64, on bool) error {
	if err := fl.set(ctx, id, "pinned_at", on); err != nil {
		return fmt.Errorf("pin session %d: %w", id, err)
	}
	return nil
}

// SetArchived archives or unarchives session id. Archiving hides nothing
// in the store: the session and its events stay as they are.
func (fl FlagService) SetArchived(ctx context.Context, id int64, on bool) error {
	if err := fl.set(ctx, id, "archived_at", on); err != nil {
		return fmt.Errorf("archive session %d: %w", id, err)
	}
	return nil
}

// set sets column (pinned_at or archived_at) of session id to now, or
// clears it; a row left with neither mark is removed, and so are rows of
// sessions that are gone.
func (fl FlagService) set(ctx context.Context, id int64, column string, on bool) error {
	err := fl.s.writeTx(ctx, false, func(tx *sql.Tx) error {
		created, err := sessionRowTx(ctx, tx, id, FlagsTable, flagsSchema)
		if err != nil {
			return err
		}
		// column is one of two constants, never user input.
		if _, err := tx.ExecContext(ctx, `INSERT INTO lazuli_session_flags(session_id, session_created, `+column+`)
			VALUES (?1, ?2, CASE WHEN ?3 THEN datetime('now') END)
			ON CONFLICT(session_id) DO UPDATE SET `+column+` = CASE WHEN ?3 THEN COALESCE(`+column+`, datetime('now')) END`,
			id, created, on); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM lazuli_session_flags WHERE session_id = ? AND pinned_at IS NULL AND archived_at IS NULL`, id)
		return err
	})
	if errors.Is(err, errNoStore) {
		err = ErrNotFound
	}
	return err
}

// ownTableReader returns the reader of a store that has table, one of
// Lazuli's own; nil (and no error) when the file or the table does not
// exist yet.
func (f *file) ownTableReader(ctx context.Context, table string) (*sql.DB, error) {
	db, _, err := f.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	if ok, err := hasTable(ctx, db, table); err != nil || !ok {
		return nil, classify(err)
	}
	return db, nil
}

// sessionRowTx prepares a write to table, one of Lazuli's own tables keyed
// by session id and created (created by schema when missing): it returns
// the created text of session id (ErrNotFound when there is none) and
// removes the table's rows whose session is gone or was replaced under a
// reused id.
func sessionRowTx(ctx context.Context, tx *sql.Tx, id int64, table, schema string) (string, error) {
	var created string
	err := tx.QueryRowContext(ctx, "SELECT created FROM sessions WHERE id = ?", id).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", err
	}
	if _, err := tx.ExecContext(ctx, schema); err != nil {
		return "", fmt.Errorf("create %s: %w", table, err)
	}
	// table is one of Lazuli's table names, never user input.
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+table+` WHERE NOT EXISTS
		(SELECT 1 FROM sessions s WHERE s.id = session_id AND s.created = session_created)`); err != nil {
		return "", fmt.Errorf("clear %s: %w", table, err)
	}
	return created, nil
}

// checkFlags reports FlagsTable as information, and rows whose session is
// gone as a warning: they are ignored, and the next write of flags
// removes them.
func checkFlags(ctx context.Context, q querier, fs *findings) error {
	return checkOwnTable(ctx, q, fs, ownTable{name: FlagsTable, code: "session_flags", count: sessionRowsQuery(FlagsTable, "f"),
		info:  "table %s marks %d session(s) pinned or archived; it is Lazuli's own, AZUREAL ignores it",
		stale: "%d row(s) of %s name a session that no longer exists; they are ignored and the next pin or archive removes them"})
}
