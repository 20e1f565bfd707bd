package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// Append stores events at the end of a session exactly as AZUREAL's
// append_events does (spec §2.1) and returns the number of rows inserted.
// Filtered and MayBeCompacting events are skipped, every other event is
// compacted (CompactEvent), a user message that was only injected context
// or hidden Codex context is skipped, and the session's completion columns
// follow the batch's last Complete (or are cleared by turn content without
// one). The rows get consecutive seqs after the session's last one, computed
// inside the same BEGIN IMMEDIATE transaction, so concurrent writers never
// collide. A missing session yields ErrNotFound.
//
// Events are compacted, encoded and compressed in parallel; a large batch
// is inserted chunk by chunk while later chunks are still being encoded.
func (es EventService) Append(ctx context.Context, sessionID int64, events []codec.Event, usage ...Usage) (int, error) {
	b := es.s.encodeAsync(events)
	defer b.finish()
	n, err := es.appendEncoded(ctx, sessionID, b, usage)
	if err != nil {
		return 0, fmt.Errorf("append events to session %d: %w", sessionID, err)
	}
	return n, nil
}

func (es EventService) appendEncoded(ctx context.Context, sessionID int64, b *encodedBatch, usage []Usage) (int, error) {
	if _, err := b.chunk(0); err != nil { // fail before taking the lock
		return 0, err
	}
	var n int
	err := es.s.writeTx(ctx, false, func(tx *sql.Tx) error {
		var err error
		if n, err = insertEvents(ctx, tx, sessionID, b); err != nil {
			return err
		}
		return insertUsage(ctx, tx, sessionID, b, usage)
	})
	if errors.Is(err, errNoStore) {
		err = ErrNotFound
	}
	return n, err
}

// insertBatch is the number of rows one INSERT statement carries.
const insertBatch = 32

// insertEvents inserts the rows after the session's last seq and updates its
// completion columns (spec §2.1 steps 1, 2.6 and 3).
func insertEvents(ctx context.Context, tx *sql.Tx, sessionID int64, b *encodedBatch) (int, error) {
	if err := requireSessionTx(ctx, tx, sessionID); err != nil {
		return 0, err
	}
	var seq int64
	err := queryRowCached(ctx, tx, "SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = ?", sessionID).Scan(&seq)
	if err != nil {
		return 0, err
	}
	ins, err := newEventInserter(ctx, tx, sessionID, seq)
	if err != nil {
		return 0, err
	}
	defer ins.close()
	ins.full = &fullWriter{tx: tx, session: sessionID}
	defer ins.full.close()
	if b.collect {
		ins.stored = &b.stored
	}
	for k := range b.chunks {
		rows, err := b.chunk(k)
		if err != nil {
			return 0, err
		}
		for i := range rows {
			if err := ins.add(ctx, &rows[i]); err != nil {
				return 0, err
			}
		}
	}
	if err := ins.flush(ctx); err != nil {
		return 0, err
	}
	if err := insertThinking(ctx, tx, sessionID, ins.thoughts); err != nil {
		return 0, err
	}
	if err := insertRunFailures(ctx, tx, sessionID, ins.failures); err != nil {
		return 0, err
	}
	return ins.n, updateCompletion(ctx, tx, sessionID, b.rows)
}

// eventInserter inserts rows insertBatch at a time with prepared statements.
type eventInserter struct {
	tx        *sql.Tx
	many, one *sql.Stmt
	part      map[int]*sql.Stmt // statements of fewer rows, for flush
	release   []func()
	session   int64
	seq       int64 // seq of the next row
	n         int   // rows inserted
	pending   []*encodedRow
	full      *fullWriter  // stores the rows' full text; nil: none
	thoughts  []Thought    // thinking, before the seq of the row after it
	failures  []RunFailure // why runs failed, after the seq of the row before it
	// stored, when set, receives each inserted row with its id.
	stored *[]ScannedEvent
}

const insertSQL = "INSERT INTO events(session_id, seq, kind, data, char_len) VALUES "

// insertRowsSQL is the INSERT of n rows.
func insertRowsSQL(n int) string {
	return insertSQL + strings.Repeat("(?, ?, ?, ?, ?), ", n-1) + "(?, ?, ?, ?, ?)"
}

func newEventInserter(ctx context.Context, tx *sql.Tx, session, seq int64) (*eventInserter, error) {
	w := &eventInserter{tx: tx, session: session, seq: seq}
	var err error
	if w.one, err = w.prepare(ctx, 1); err != nil {
		return nil, err
	}
	if w.many, err = w.prepare(ctx, insertBatch); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// prepare returns the INSERT of n rows (cached in ctx's transaction
// statements, when it has them).
func (w *eventInserter) prepare(ctx context.Context, n int) (*sql.Stmt, error) {
	s, release, err := prepare(ctx, w.tx, insertRowsSQL(n))
	if err != nil {
		return nil, err
	}
	w.release = append(w.release, release)
	return s, nil
}

func (w *eventInserter) close() {
	for _, r := range w.release {
		r()
	}
}

// add queues a row (skipped rows are ignored) and inserts a full batch.
func (w *eventInserter) add(ctx context.Context, r *encodedRow) error {
	if r.thinking {
		w.thoughts = append(w.thoughts, Thought{BeforeSeq: w.seq + int64(len(w.pending)), Text: r.event.Text})
	}
	if r.failure {
		w.failures = append(w.failures, RunFailure{AfterSeq: w.seq + int64(len(w.pending)) - 1, Reason: r.event.Text})
	}
	if r.skip {
		return nil
	}
	if w.pending = append(w.pending, r); len(w.pending) == insertBatch {
		return w.exec(ctx, w.many)
	}
	return nil
}

// flush inserts the queued rows: one by one, or, when ctx caches the
// transaction's statements, in INSERTs of 16, 8, 4, 2 and 1 rows.
func (w *eventInserter) flush(ctx context.Context) error {
	rows := w.pending
	cached := cacheOf(ctx, w.tx) != nil
	for i := 0; i < len(rows); {
		n, stmt := 1, w.one
		if cached {
			for n = insertBatch / 2; n > len(rows)-i; n /= 2 {
			}
			var err error
			if stmt, err = w.partStmt(ctx, n); err != nil {
				return err
			}
		}
		w.pending = rows[i : i+n]
		if err := w.exec(ctx, stmt); err != nil {
			return err
		}
		i += n
	}
	return nil
}

// partStmt returns the INSERT of n rows, n < insertBatch.
func (w *eventInserter) partStmt(ctx context.Context, n int) (*sql.Stmt, error) {
	if n == 1 {
		return w.one, nil
	}
	if s, ok := w.part[n]; ok {
		return s, nil
	}
	s, err := w.prepare(ctx, n)
	if err != nil {
		return nil, err
	}
	if w.part == nil {
		w.part = map[int]*sql.Stmt{}
	}
	w.part[n] = s
	return s, nil
}

// exec inserts the pending rows with stmt and clears them.
func (w *eventInserter) exec(ctx context.Context, stmt *sql.Stmt) error {
	args := make([]any, 0, 5*len(w.pending))
	for i, r := range w.pending {
		args = append(args, w.session, w.seq+int64(i), string(r.event.Kind), r.data, r.charLen)
	}
	res, err := stmt.ExecContext(ctx, args...)
	if err != nil {
		return fmt.Errorf("insert events from seq %d: %w", w.seq, err)
	}
	if w.stored != nil {
		if err := w.keep(res); err != nil {
			return err
		}
	}
	for i, r := range w.pending {
		if r.full != nil && w.full != nil {
			if err := w.full.add(ctx, w.seq+int64(i), r); err != nil {
				return fmt.Errorf("keep the full text of seq %d: %w", w.seq+int64(i), err)
			}
		}
	}
	w.seq += int64(len(w.pending))
	w.n += len(w.pending)
	w.pending = w.pending[:0]
	return nil
}

// keep appends the pending rows, just inserted by res, to w.stored. One
// INSERT of several rows gives them consecutive ids ending at the last
// insert id: AUTOINCREMENT gives each new row one more than the largest id
// ever used, and the write transaction keeps other writers out.
func (w *eventInserter) keep(res sql.Result) error {
	last, err := res.LastInsertId()
	if err != nil {
		return fmt.Errorf("insert events from seq %d: %w", w.seq, err)
	}
	first := last - int64(len(w.pending)) + 1
	for i, r := range w.pending {
		*w.stored = append(*w.stored, ScannedEvent{ID: first + int64(i), SessionID: w.session, Seq: w.seq + int64(i),
			Kind: r.event.Kind, CharLen: r.charLen, Event: r.event, Full: r.fullText})
	}
	return nil
}

// updateCompletion sets the completion columns from the batch's last stored
// Complete, clears them when the batch stored turn content without one, and
// leaves them otherwise (only Hook, Compacting, Compacted, ModelSwitch).
func updateCompletion(ctx context.Context, tx *sql.Tx, sessionID int64, rows []encodedRow) error {
	var (
		complete *codec.Event
		turn     bool
	)
	for i := range rows {
		switch c := &rows[i].event; {
		case rows[i].skip:
		case c.Kind == codec.KindComplete:
			complete = c
		case c.IsTurnContent():
			turn = true
		}
	}
	var err error
	switch {
	case complete != nil:
		success := 0
		if complete.Success {
			success = 1
		}
		_, err = execCached(ctx, tx, "UPDATE sessions SET completed = ?, duration_ms = ?, cost_usd = ? WHERE id = ?",
			success, azurealInt64(complete.DurationMS), finite(complete.CostUSD), sessionID)
	case turn:
		_, err = execCached(ctx, tx, "UPDATE sessions SET completed = NULL, duration_ms = NULL, cost_usd = NULL WHERE id = ?", sessionID)
	}
	if err != nil {
		return fmt.Errorf("update completion: %w", err)
	}
	return nil
}

// azurealInt64 is AZUREAL's `duration_ms as i64` of a u64: a Rust cast
// between integers of one width keeps the bits, so a value over
// math.MaxInt64 is stored negative (u64::MAX as -1). AZUREAL reads the
// column back `as u64`, which gives the value again (see DumpSession).
func azurealInt64(v uint64) int64 { return int64(v) }

// finite returns f, or 0 for NaN and infinities, as the stored JSON does.
func finite(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	return f
}
