package insight

import (
	"context"
	"database/sql"
	"strconv"

	"github.com/lazuli-app/lazuli/indexdb"
	"github.com/lazuli-app/lazuli/store"
)

// usageUpdate is what an Update does to the usage rows: read before the
// events are scanned, so every row read has its events (stored in the
// same transaction) scanned by the time it is written.
type usageUpdate struct {
	version store.UsageVersion
	rows    []store.SessionUsage
	full    bool // replace every row, not append
	skip    bool // nothing changed
}

// readUsage reads the store's usage rows that changed since the last
// Update: only those added when the store's usage version grew by exactly
// them, else (a session deleted or replaced) all.
func (x *Index) readUsage(ctx context.Context) (usageUpdate, error) {
	v, err := x.st.Usage().Version(ctx)
	if err != nil {
		return usageUpdate{}, err
	}
	old := store.UsageVersion{Rows: getMetaInt(ctx, x.db, "usage_rows"), MaxID: getMetaInt(ctx, x.db, "usage_max"),
		Tokens: getMetaInt(ctx, x.db, "usage_tokens")}
	if v == old {
		return usageUpdate{skip: true}, nil
	}
	rows, err := x.st.Usage().Rows(ctx, old.MaxID)
	if err != nil {
		return usageUpdate{}, err
	}
	grown := old
	for _, r := range rows {
		grown.Rows++
		grown.MaxID = max(grown.MaxID, r.RowID)
		grown.Tokens += r.Input + r.Output + r.CacheRead
	}
	full := grown != v
	if full {
		if rows, err = x.st.Usage().Rows(ctx, 0); err != nil {
			return usageUpdate{}, err
		}
	}
	return usageUpdate{version: v, rows: rows, full: full}, nil
}

// writeUsage writes what readUsage read: each row in the turn its seq
// falls in, with a cost estimated where none was reported.
func (x *Index) writeUsage(ctx context.Context, u usageUpdate, sessions map[int64]store.Session) (int, error) {
	if u.skip {
		return 0, nil
	}
	v, rows, full := u.version, u.rows, u.full
	err := x.writeTx(ctx, func(tx *sql.Tx) error {
		if full {
			if _, err := tx.ExecContext(ctx, "DELETE FROM usage"); err != nil {
				return err
			}
		}
		skipped, err := insertUsageRows(ctx, tx, rows, sessions)
		if err != nil {
			return err
		}
		if skipped > 0 {
			v = store.UsageVersion{Rows: -1} // rows of a session newer than the list: read all next time
		}
		for k, n := range map[string]int64{"usage_rows": v.Rows, "usage_max": v.MaxID, "usage_tokens": v.Tokens} {
			if err := indexdb.SetMeta(ctx, tx, k, strconv.FormatInt(n, 10)); err != nil {
				return err
			}
		}
		return nil
	})
	return len(rows), err
}

// insertUsageRows adds usage rows to the index and returns how many it
// skipped because their session is not in sessions.
func insertUsageRows(ctx context.Context, tx *sql.Tx, rows []store.SessionUsage, sessions map[int64]store.Session) (int, error) {
	turnOf, err := tx.PrepareContext(ctx, "SELECT COALESCE(MAX(turn), 0) FROM turns WHERE session = ? AND first_seq <= ?")
	if err != nil {
		return 0, err
	}
	defer turnOf.Close()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO usage(session, turn, after_seq, day, at, source, model, backend,
		input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, cost_estimated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	skipped := 0
	for _, r := range rows {
		ss, ok := sessions[r.SessionID]
		if !ok {
			skipped++
			continue
		}
		var turn int64
		if err := turnOf.QueryRowContext(ctx, r.SessionID, max(r.AfterSeq, 1)).Scan(&turn); err != nil {
			return 0, err
		}
		cost, estimated := r.CostUSD, false
		if !r.HasCost {
			cost, estimated = EstimateCost(r.Model, r.Backend, r.Input, r.Output, r.CacheRead, r.CacheWrite), true
		}
		day := dayOf(r.At)
		if day == "" {
			day = dayOf(ss.Created)
		}
		if _, err := ins.ExecContext(ctx, r.SessionID, turn, r.AfterSeq, day, r.At, r.Source, r.Model, r.Backend,
			r.Input, r.Output, r.CacheRead, r.CacheWrite, r.Reasoning, cost, estimated); err != nil {
			return 0, err
		}
	}
	return skipped, nil
}
