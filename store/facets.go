package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lazuli-app/lazuli/codec"
)

// Facets are what the sidebar's filters ask of a session beyond its row in
// sessions: the model it last ran with and whether a turn failed.
type Facets struct {
	Model  string // the model of its last Init or ModelSwitch; "" when none
	Failed bool   // a Complete with success false: a turn failed
	// Backend is the backend its last token usage row names (the parser
	// that read the turn knew its agent), when that row comes after the
	// last Init or ModelSwitch; "" otherwise: a model set later names a
	// turn whose agent only the model tells.
	Backend string
}

// Facets reads the facets of the sessions ids from their Init,
// ModelSwitch and Complete events and their last UsageTable row, in one
// read transaction. A session
// without such events (or missing) gets zero Facets. Undecodable rows are
// skipped, as a load does.
func (ss SessionService) Facets(ctx context.Context, ids []int64) (map[int64]Facets, error) {
	out := make(map[int64]Facets, len(ids))
	db, _, err := ss.s.reader(ctx)
	if err != nil || db == nil || len(ids) == 0 {
		return out, err
	}
	tx, err := beginRead(ctx, db)
	if err != nil {
		return nil, fmt.Errorf("read session facets: %w", classify(err))
	}
	defer tx.end()
	stmt, err := tx.PrepareContext(ctx, `SELECT seq, kind, data FROM events
		WHERE session_id = ? AND kind IN ('Init', 'ModelSwitch', 'Complete') ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("read session facets: %w", err)
	}
	defer stmt.Close()
	var usage *sql.Stmt
	if ok, err := hasTable(ctx, tx, UsageTable); err != nil {
		return nil, fmt.Errorf("read session facets: %w", err)
	} else if ok {
		if usage, err = tx.PrepareContext(ctx, lastUsageSQL); err != nil {
			return nil, fmt.Errorf("read session facets: %w", err)
		}
		defer usage.Close()
	}
	for _, id := range ids {
		f, modelSeq, err := ss.facetsOf(ctx, stmt, id)
		if err == nil && usage != nil {
			var backend string
			var after int64
			if backend, after, err = scanLastUsage(usage.QueryRowContext(ctx, id)); err == nil && after >= modelSeq {
				f.Backend = backend
			}
		}
		if err != nil {
			return nil, fmt.Errorf("read facets of session %d: %w", id, err)
		}
		out[id] = f
	}
	return out, nil
}

// facetsOf reads one session's facets from its events, and the seq of
// its last Init or ModelSwitch (0 when none).
func (ss SessionService) facetsOf(ctx context.Context, stmt *sql.Stmt, id int64) (Facets, int64, error) {
	var f Facets
	var modelSeq int64
	rows, err := stmt.QueryContext(ctx, id)
	if err != nil {
		return f, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var seq int64
		var kind string
		var data []byte
		if err := rows.Scan(&seq, &kind, &data); err != nil {
			return f, 0, err
		}
		e, ok := ss.s.decodePayload(data)
		if !ok {
			continue
		}
		switch e.Kind {
		case codec.KindInit, codec.KindModelSwitch:
			if modelSeq = seq; e.Model != "" {
				f.Model = e.Model
			}
		case codec.KindComplete:
			f.Failed = f.Failed || !e.Success
		}
	}
	return f, modelSeq, rows.Err()
}

// UsageBackend is Facets.Backend of one session, read from its last
// UsageTable row and the events after it alone: "" when it has no usage,
// or an Init or ModelSwitch came after its last usage row.
func (ss SessionService) UsageBackend(ctx context.Context, id int64) (string, error) {
	db, _, err := ss.s.reader(ctx)
	if err != nil || db == nil {
		return "", err
	}
	tx, err := beginRead(ctx, db)
	if err != nil {
		return "", fmt.Errorf("read session %d's backend: %w", id, classify(err))
	}
	defer tx.end()
	if ok, err := hasTable(ctx, tx, UsageTable); err != nil || !ok {
		return "", err
	}
	backend, after, err := scanLastUsage(tx.QueryRowContext(ctx, lastUsageSQL, id))
	if err != nil {
		return "", fmt.Errorf("read session %d's backend: %w", id, err)
	}
	if backend == "" {
		return "", nil
	}
	var later int
	err = tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM events
		WHERE session_id = ? AND seq > ? AND kind IN ('Init', 'ModelSwitch') LIMIT 1)`, id, after).Scan(&later)
	if err != nil {
		return "", fmt.Errorf("read session %d's backend: %w", id, err)
	}
	if later > 0 {
		return "", nil
	}
	return backend, nil
}

// lastUsageSQL reads the backend and after_seq of a session's last
// UsageTable row. A row whose session's created no longer matches is
// another session's (an id AZUREAL reused): ignored, as everywhere.
const lastUsageSQL = `SELECT u.backend, u.after_seq FROM lazuli_usage u
	JOIN sessions s ON s.id = u.session_id AND s.created = u.session_created
	WHERE u.session_id = ? ORDER BY u.after_seq DESC LIMIT 1`

// scanLastUsage reads lastUsageSQL's row: backend "" when there is none.
func scanLastUsage(row *sql.Row) (backend string, after int64, err error) {
	if err = row.Scan(&backend, &after); errors.Is(err, sql.ErrNoRows) {
		return "", 0, nil
	}
	return backend, after, err
}
