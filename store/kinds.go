package store

import (
	"context"
	"fmt"
)

// KindSeqs returns the seqs of a session's events of one kind, in order,
// without decoding them (a reader that only counts or cites them).
func (s *Store) KindSeqs(ctx context.Context, sessionID int64, kind Kind) ([]int64, error) {
	db, _, err := s.reader(ctx)
	if err != nil || db == nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, "SELECT seq FROM events WHERE session_id = ? AND kind = ? ORDER BY seq", sessionID, string(kind))
	if err != nil {
		return nil, fmt.Errorf("%s events of session %d: %w", kind, sessionID, classify(err))
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return nil, fmt.Errorf("%s events of session %d: %w", kind, sessionID, err)
		}
		out = append(out, seq)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("%s events of session %d: %w", kind, sessionID, classify(err))
	}
	return out, nil
}

// HasEvent reports whether the session holds an event with that seq.
func (s *Store) HasEvent(ctx context.Context, sessionID, seq int64) (bool, error) {
	db, _, err := s.reader(ctx)
	if err != nil || db == nil {
		return false, err
	}
	var n int
	err = db.QueryRowContext(ctx, "SELECT COUNT(*) FROM events WHERE session_id = ? AND seq = ?", sessionID, seq).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("find event %d of session %d: %w", seq, sessionID, classify(err))
	}
	return n > 0, nil
}
