package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// KindSeqs returns the seqs of a session's events of one kind, in order,
// without decoding them (a reader that only counts or cites them).
func (es EventService) KindSeqs(ctx context.Context, sessionID int64, kind codec.Kind) ([]int64, error) {
	db, _, err := es.s.reader(ctx)
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

// ExistingSeqs reports which of seqs a session holds events at: one
// indexed query per few hundred seqs, for checking many references at
// once. A missing session holds none.
func (es EventService) ExistingSeqs(ctx context.Context, sessionID int64, seqs []int64) (map[int64]bool, error) {
	out := make(map[int64]bool, len(seqs))
	db, _, err := es.s.reader(ctx)
	if err != nil || db == nil || len(seqs) == 0 {
		return out, err
	}
	const chunk = 500
	for len(seqs) > 0 {
		part := seqs[:min(chunk, len(seqs))]
		seqs = seqs[len(part):]
		args := make([]any, 0, len(part)+1)
		args = append(args, sessionID)
		marks := make([]string, len(part))
		for i, q := range part {
			args = append(args, q)
			marks[i] = "?"
		}
		rows, err := db.QueryContext(ctx, "SELECT seq FROM events WHERE session_id = ? AND seq IN ("+strings.Join(marks, ",")+")", args...)
		if err != nil {
			return nil, fmt.Errorf("find events of session %d: %w", sessionID, classify(err))
		}
		for rows.Next() {
			var q int64
			if err := rows.Scan(&q); err != nil {
				rows.Close()
				return nil, fmt.Errorf("find events of session %d: %w", sessionID, err)
			}
			out[q] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("find events of session %d: %w", sessionID, classify(err))
		}
	}
	return out, nil
}
