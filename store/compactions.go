package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store/listcache"
)

const compactionColumns = "id, session_id, after_seq, COALESCE(summary, ''), COALESCE(created, '')"

func scanCompaction(row interface{ Scan(...any) error }) (Compaction, error) {
	var c Compaction
	err := row.Scan(&c.ID, &c.SessionID, &c.AfterSeq, &c.Summary, &c.Created)
	return c, err
}

// Add records that summary replaces a session's events up to and
// including afterSeq, and returns the new row. The summary is not validated,
// as in AZUREAL.
func (cs CompactionService) Add(ctx context.Context, sessionID, afterSeq int64, summary string) (Compaction, error) {
	var c Compaction
	err := cs.s.writeTx(ctx, false, func(tx *sql.Tx) error {
		if err := requireSession(ctx, tx, sessionID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "INSERT INTO compactions(session_id, after_seq, summary) VALUES (?, ?, ?)",
			sessionID, afterSeq, summary)
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		c, err = scanCompaction(tx.QueryRowContext(ctx, "SELECT "+compactionColumns+" FROM compactions WHERE id = ?", id))
		return err
	})
	if errors.Is(err, errNoStore) {
		err = ErrNotFound
	}
	if err != nil {
		return Compaction{}, fmt.Errorf("store compaction of session %d: %w", sessionID, err)
	}
	return c, nil
}

// Latest returns the session's compaction with the largest
// after_seq (not the newest row, spec §1.6), or nil if it has none.
func (cs CompactionService) Latest(ctx context.Context, sessionID int64) (*Compaction, error) {
	db, info, err := cs.s.reader(ctx)
	if err != nil {
		return nil, fmt.Errorf("read latest compaction of session %d: %w", sessionID, err)
	}
	if db == nil {
		return nil, nil
	}
	c, err := latestCompaction(ctx, db, info, sessionID)
	if err != nil {
		return nil, fmt.Errorf("read latest compaction of session %d: %w", sessionID, classify(err))
	}
	return c, nil
}

// latestCompaction uses AZUREAL's exact query, so ties resolve the same way.
func latestCompaction(ctx context.Context, q querier, info *schemaInfo, sessionID int64) (*Compaction, error) {
	if !info.hasTable("compactions") {
		return nil, nil
	}
	c, err := scanCompaction(q.QueryRowContext(ctx, "SELECT "+compactionColumns+
		" FROM compactions WHERE session_id = ? ORDER BY after_seq DESC LIMIT 1", sessionID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// Of returns all compactions of a session in id order.
func (cs CompactionService) Of(ctx context.Context, sessionID int64) ([]Compaction, error) {
	list, err := cs.where(ctx, "WHERE session_id = ?", sessionID)
	if err != nil {
		return nil, fmt.Errorf("read compactions of session %d: %w", sessionID, err)
	}
	return list, nil
}

// where reads compaction rows matching where, in id order.
func (cs CompactionService) where(ctx context.Context, where string, args ...any) ([]Compaction, error) {
	db, info, err := cs.s.reader(ctx)
	if err != nil || db == nil || !info.hasTable("compactions") {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, "SELECT "+compactionColumns+" FROM compactions "+where+" ORDER BY id", args...)
	if err != nil {
		return nil, classify(err)
	}
	defer rows.Close()
	var list []Compaction
	for rows.Next() {
		c, err := scanCompaction(rows)
		if err != nil {
			return nil, err
		}
		list = append(list, c)
	}
	return list, classify(rows.Err())
}

// Boundary is AZUREAL's compaction_boundary (spec §7.3 step 2):
// among the session's UserMessage rows with seq ≥ fromSeq, newest first, the
// seq of the keep-th one minus 1, so that the last keep prompts and what
// follows them stay verbatim. ok is false when there are at most keep such
// rows.
func (cs CompactionService) Boundary(ctx context.Context, sessionID, fromSeq int64, keep int) (boundary int64, ok bool, err error) {
	if keep < 1 {
		return 0, false, fmt.Errorf("compaction boundary of session %d: keep %d is less than 1", sessionID, keep)
	}
	db, _, err := cs.s.reader(ctx)
	if err != nil || db == nil {
		return 0, false, wrapBoundary(sessionID, err)
	}
	rows, err := db.QueryContext(ctx, `SELECT seq FROM events WHERE session_id = ? AND seq >= ? AND kind = 'UserMessage'
		ORDER BY seq DESC LIMIT ?`, sessionID, fromSeq, keep+1)
	if err != nil {
		return 0, false, wrapBoundary(sessionID, classify(err))
	}
	defer rows.Close()
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			return 0, false, wrapBoundary(sessionID, err)
		}
		seqs = append(seqs, seq)
	}
	if err := rows.Err(); err != nil || len(seqs) <= keep {
		return 0, false, wrapBoundary(sessionID, classify(err))
	}
	return seqs[keep-1] - 1, true, nil
}

func wrapBoundary(id int64, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("compaction boundary of session %d: %w", id, err)
}

// CharsSince is the stored context size of a session: the sum of
// char_len over its events after the latest compaction (all events if it
// has none). Compaction is due at CompactionThreshold.
func (cs CompactionService) CharsSince(ctx context.Context, sessionID int64) (int64, error) {
	db, info, err := cs.s.reader(ctx)
	if err != nil || db == nil {
		return 0, wrapChars(sessionID, err)
	}
	n, overflow, err := charsSince(ctx, db, info, sessionID)
	if err == nil && overflow {
		err = fmt.Errorf("%w: %s", ErrDamaged, listcache.Agg{Overflow: true}.Damage())
	}
	return n, wrapChars(sessionID, classify(err))
}

func wrapChars(id int64, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("count chars of session %d: %w", id, err)
}

// charsSince computes Compactions().CharsSince within q; overflow reports
// char_len values too large to add up (see listcache.CharSum).
func charsSince(ctx context.Context, q querier, info *schemaInfo, sessionID int64) (n int64, overflow bool, err error) {
	c, err := latestCompaction(ctx, q, info, sessionID)
	if err != nil {
		return 0, false, err
	}
	if c == nil {
		return listcache.SumCharsAfter(ctx, q, sessionID, 0, false)
	}
	return listcache.SumCharsAfter(ctx, q, sessionID, c.AfterSeq, true)
}

// Context is AZUREAL's build_context (spec §6.1): the latest
// compaction's summary and the filtered events stored after it, or nil when
// the session has neither (its first prompt goes out unchanged). Pass the
// result to BuildContextPrompt.
func (cs CompactionService) Context(ctx context.Context, sessionID int64) (*codec.ContextPayload, error) {
	c, err := cs.Latest(ctx, sessionID)
	if err != nil {
		return nil, fmt.Errorf("build context of session %d: %w", sessionID, err)
	}
	from := int64(1)
	if c != nil {
		from = c.AfterSeq + 1
	}
	stored, err := cs.s.Events().Range(ctx, sessionID, from, 0)
	if err != nil {
		return nil, fmt.Errorf("build context of session %d: %w", sessionID, err)
	}
	if len(stored) == 0 && c == nil {
		return nil, nil
	}
	p := &codec.ContextPayload{Events: make([]codec.Event, len(stored))}
	for i := range stored {
		p.Events[i] = stored[i].Event
	}
	if c != nil {
		p.Summary = &c.Summary
	}
	return p, nil
}
