package store

// This file keeps the token usage of turns that Lazuli ran or imported.
// AZUREAL's file has no place for tokens (its v2 usage columns were
// dropped), so they live in one table of Lazuli's own, lazuli_usage, like
// lazuli_native_imports (native.go): AZUREAL's schema script, migration and
// queries never name it, the first write that carries usage creates it, and
// its rows go with their session (ON DELETE CASCADE). A row whose session
// was deleted with foreign keys off, or whose id AZUREAL reused for a new
// session, no longer matches its session's created text and is ignored by
// UsageService.Rows, so it never lends its tokens to another session.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
)

var usageSchema = []string{
	`CREATE TABLE IF NOT EXISTS lazuli_usage (
    session_id         INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    session_created    TEXT NOT NULL,
    after_seq          INTEGER NOT NULL,
    at                 TEXT NOT NULL DEFAULT '',
    source             TEXT NOT NULL DEFAULT '',
    message_id         TEXT NOT NULL DEFAULT '',
    model              TEXT NOT NULL DEFAULT '',
    backend            TEXT NOT NULL DEFAULT '',
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens   INTEGER NOT NULL DEFAULT 0,
    cost_usd           REAL
)`,
	`CREATE INDEX IF NOT EXISTS idx_lazuli_usage_session ON lazuli_usage(session_id, after_seq)`,
}

// Usage is the token usage of one turn, or of one model's share of a turn,
// or (Claude transcripts) of one API message.
type Usage struct {
	// Event is the index, in the events stored with it, of the last event
	// the usage covers; -1 means before the first of them. The store keeps
	// it as that event's seq (AfterSeq when read back).
	Event    int
	AfterSeq int64  // read back: the session's events.seq the usage comes after
	At       string // when the turn ended, TimeFormat UTC; "" when not known
	Source   string // the format it came from: claude-stream, claude-transcript, codex-exec, codex-rollout
	// MessageID is the API message id (Claude transcripts), "" otherwise.
	MessageID string
	Model     string
	Backend   string // "claude" or "codex"
	// Tokens are the turn's tokens; its CostUSD is the cost the CLI
	// reported (CostEstimated is always false here: the store keeps no
	// estimate).
	Tokens
	// HasCost is false when the CLI reported no cost (Codex): the insight
	// index then estimates it from its price table.
	HasCost bool
}

// Tokens is token usage by kind with its cost: one turn's, or the sum of
// many (Add). It is the one usage type of every package: the store's rows
// (Usage), the insight index's sums and the team's. Its JSON names are
// those of `lazuli stats --json`.
type Tokens struct {
	// Input is the uncached input; CacheRead and CacheWrite are the cached
	// input read and written. Output includes Reasoning when the backend
	// reports reasoning tokens (Codex).
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheRead  int64 `json:"cache_read_tokens"`
	CacheWrite int64 `json:"cache_write_tokens"`
	Reasoning  int64 `json:"reasoning_tokens"`
	// CostUSD is the cost in US dollars: reported by the CLI, or estimated
	// from a price table where it reported none.
	CostUSD float64 `json:"cost_usd"`
	// CostEstimated is true when some of CostUSD is such an estimate.
	CostEstimated bool `json:"cost_estimated"`
}

// Add adds o's tokens and cost to t; the sum is estimated when either was.
func (t *Tokens) Add(o Tokens) {
	t.Input += o.Input
	t.Output += o.Output
	t.CacheRead += o.CacheRead
	t.CacheWrite += o.CacheWrite
	t.Reasoning += o.Reasoning
	t.CostUSD += o.CostUSD
	t.CostEstimated = t.CostEstimated || o.CostEstimated
}

// Total is the tokens of every kind: input, output and cache read and
// written (Reasoning is part of Output, so not added again).
func (t Tokens) Total() int64 { return t.Input + t.Output + t.CacheRead + t.CacheWrite }

// SessionUsage is a stored usage row with its session.
type SessionUsage struct {
	SessionID int64
	RowID     int64 // the row's rowid: rows added later have larger ones
	Usage
}

// UsageVersion identifies the live usage rows of a store; see
// UsageService.Version.
type UsageVersion struct {
	Rows   int64 // live rows (their session still there)
	MaxID  int64 // the largest rowid among them
	Tokens int64 // their input, output and cache read tokens summed
}

// insertUsage writes the usage of the events of b, just stored in session
// id: Usage.Event indexes b's events, some of which were not stored
// (skipped kinds), and maps to the seq of the stored event at or before it.
func insertUsage(ctx context.Context, tx *sql.Tx, sessionID int64, b *encodedBatch, usage []Usage) error {
	if len(usage) == 0 {
		return nil
	}
	var last int64
	if err := queryRowCached(ctx, tx, "SELECT COALESCE(MAX(seq), 0) FROM events WHERE session_id = ?", sessionID).Scan(&last); err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	// seqs[i] is the seq of the last stored event among b.rows[:i+1].
	seqs := make([]int64, len(b.rows))
	stored := int64(0)
	for i := range b.rows {
		if !b.rows[i].skip {
			stored++
		}
		seqs[i] = stored
	}
	first := last - stored // the seq before the batch
	return insertUsageRows(ctx, tx, sessionID, usage, func(u Usage) int64 {
		if u.Event < 0 || len(seqs) == 0 {
			return first
		}
		return first + seqs[min(u.Event, len(seqs)-1)]
	})
}

// insertUsageRows writes usage rows of session id, each after the seq that
// seqOf gives it, creating the table when needed.
func insertUsageRows(ctx context.Context, tx *sql.Tx, sessionID int64, usage []Usage, seqOf func(Usage) int64) error {
	if !schemaApplied(ctx, tx, UsageTable) {
		for _, stmt := range usageSchema {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("create %s: %w", UsageTable, err)
			}
		}
	}
	var created string
	if err := queryRowCached(ctx, tx, "SELECT created FROM sessions WHERE id = ?", sessionID).Scan(&created); err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	stmt, release, err := prepare(ctx, tx, `INSERT INTO lazuli_usage(session_id, session_created, after_seq, at, source,
		message_id, model, backend, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("record usage: %w", err)
	}
	defer release()
	for _, u := range usage {
		var cost any
		if u.HasCost && !math.IsNaN(u.CostUSD) && !math.IsInf(u.CostUSD, 0) {
			cost = u.CostUSD
		}
		_, err := stmt.ExecContext(ctx, sessionID, created, seqOf(u), u.At, u.Source, u.MessageID, u.Model, u.Backend,
			max(u.Input, 0), max(u.Output, 0), max(u.CacheRead, 0), max(u.CacheWrite, 0), max(u.Reasoning, 0), cost)
		if err != nil {
			return fmt.Errorf("record usage: %w", err)
		}
	}
	return nil
}

// Append records usage for events already stored in session id, after
// the event with seq afterSeq (a live run records a turn's usage when the
// turn ends). Usage.Event is ignored.
//
// Test support: runs and imports store usage with their events
// (Events().Append); tests add usage on its own with Append.
func (us UsageService) Append(ctx context.Context, sessionID, afterSeq int64, usage []Usage) error {
	if len(usage) == 0 {
		return nil
	}
	err := us.s.writeTx(ctx, false, func(tx *sql.Tx) error {
		if err := requireSession(ctx, tx, sessionID); err != nil {
			return err
		}
		return insertUsageRows(ctx, tx, sessionID, usage, func(Usage) int64 { return afterSeq })
	})
	if errors.Is(err, errNoStore) {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("record usage of session %d: %w", sessionID, err)
	}
	return nil
}

// hasUsageTable reports whether the store has the usage table; a store
// without it has no recorded usage.
func hasUsageTable(ctx context.Context, q querier) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", UsageTable).Scan(&n)
	return n > 0, err
}

// Rows returns the recorded usage with rowids above afterRowID (0:
// all), in session and seq order. Rows whose session is gone or
// now holds another session under a reused id are left out. A store without
// the table yields none.
func (us UsageService) Rows(ctx context.Context, afterRowID int64) ([]SessionUsage, error) {
	db, _, err := us.s.reader(ctx)
	if err != nil || db == nil {
		return nil, wrapUsage(err)
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, wrapUsage(err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	if ok, err := hasUsageTable(ctx, tx); err != nil || !ok {
		return nil, wrapUsage(err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT u.rowid, u.session_id, u.after_seq, u.at, u.source, u.message_id, u.model, u.backend,
		u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens, u.reasoning_tokens, u.cost_usd
		FROM lazuli_usage u JOIN sessions s ON s.id = u.session_id AND s.created = u.session_created
		WHERE u.rowid > ? ORDER BY u.session_id, u.after_seq, u.rowid`, afterRowID)
	if err != nil {
		return nil, wrapUsage(err)
	}
	defer rows.Close()
	var out []SessionUsage
	for rows.Next() {
		var u SessionUsage
		var cost sql.NullFloat64
		if err := rows.Scan(&u.RowID, &u.SessionID, &u.AfterSeq, &u.At, &u.Source, &u.MessageID, &u.Model, &u.Backend,
			&u.Input, &u.Output, &u.CacheRead, &u.CacheWrite, &u.Reasoning, &cost); err != nil {
			return nil, wrapUsage(err)
		}
		u.Event = -1
		u.CostUSD, u.HasCost = cost.Float64, cost.Valid
		out = append(out, u)
	}
	return out, wrapUsage(rows.Err())
}

// Version describes the live usage rows (those whose session still
// matches): it changes when rows are added, or their sessions deleted or
// replaced, so a derived index can tell what to re-read. A store without
// the table gives the zero version.
func (us UsageService) Version(ctx context.Context) (UsageVersion, error) {
	var v UsageVersion
	db, _, err := us.s.reader(ctx)
	if err != nil || db == nil {
		return v, wrapUsage(err)
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return v, wrapUsage(err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only
	if ok, err := hasUsageTable(ctx, tx); err != nil || !ok {
		return v, wrapUsage(err)
	}
	err = tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(u.rowid), 0), COALESCE(SUM(u.input_tokens + u.output_tokens + u.cache_read_tokens), 0)
		FROM lazuli_usage u JOIN sessions s ON s.id = u.session_id AND s.created = u.session_created`).Scan(&v.Rows, &v.MaxID, &v.Tokens)
	return v, wrapUsage(err)
}

func wrapUsage(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read %s: %w", UsageTable, err)
}

// checkUsage reports the usage table as information, and rows that no
// longer lead to their session as a warning: they are ignored.
func checkUsage(ctx context.Context, q querier, fs *findings) error {
	return checkOwnTable(ctx, q, fs, ownTable{name: UsageTable, code: "usage", count: sessionRowsQuery(UsageTable, "u"),
		info:  "table %s records the token usage of %d turn(s); it is Lazuli's own, AZUREAL ignores it",
		stale: "%d row(s) of %s name a session that no longer exists; they are ignored"})
}
