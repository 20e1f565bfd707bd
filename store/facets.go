package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/lazuli-app/lazuli/codec"
)

// Facets are what the sidebar's filters ask of a session beyond its row in
// sessions: the model it last ran with and whether a turn failed.
type Facets struct {
	Model  string // the model of its last Init or ModelSwitch; "" when none
	Failed bool   // a Complete with success false: a turn failed
}

// Facets reads the facets of the sessions ids from their Init,
// ModelSwitch and Complete events, in one read transaction. A session
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
	stmt, err := tx.PrepareContext(ctx, `SELECT kind, data FROM events
		WHERE session_id = ? AND kind IN ('Init', 'ModelSwitch', 'Complete') ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("read session facets: %w", err)
	}
	defer stmt.Close()
	for _, id := range ids {
		f, err := ss.facetsOf(ctx, stmt, id)
		if err != nil {
			return nil, fmt.Errorf("read facets of session %d: %w", id, err)
		}
		out[id] = f
	}
	return out, nil
}

func (ss SessionService) facetsOf(ctx context.Context, stmt *sql.Stmt, id int64) (Facets, error) {
	var f Facets
	rows, err := stmt.QueryContext(ctx, id)
	if err != nil {
		return f, err
	}
	defer rows.Close()
	for rows.Next() {
		var kind string
		var data []byte
		if err := rows.Scan(&kind, &data); err != nil {
			return f, err
		}
		e, ok := ss.s.decodePayload(data)
		if !ok {
			continue
		}
		switch e.Kind {
		case codec.KindInit, codec.KindModelSwitch:
			if e.Model != "" {
				f.Model = e.Model
			}
		case codec.KindComplete:
			f.Failed = f.Failed || !e.Success
		}
	}
	return f, rows.Err()
}
