package store

// This file keeps what AZUREAL's ingestion compaction (spec §4) shortens:
// the full output of a tool result and the full content of a Write call,
// zstd-compressed, in a table of Lazuli's own beside the event, so that
// search finds it and the transcript and exports can show it. The event
// itself is stored exactly as AZUREAL stores it: the meter, char_len, the
// injected context and compaction never see the full text.
//
// The table, lazuli_full_text, is keyed by the event's (session_id, seq),
// a foreign key into events' UNIQUE(session_id, seq) with ON DELETE
// CASCADE: AZUREAL's delete of a session (foreign keys on, as both programs
// set them) takes the rows with it. Rows left by a delete with foreign
// keys off, or whose session id was reused since, are ignored (each row
// keeps its session's created text), reported by Check and removed by the
// next write that stores full text. The table is created by the first
// write that has something to keep.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

var fullTextSchema = `CREATE TABLE IF NOT EXISTS lazuli_full_text (
    session_id      INTEGER NOT NULL,
    seq             INTEGER NOT NULL,
    session_created TEXT NOT NULL,
    field           TEXT NOT NULL,
    size            INTEGER NOT NULL,
    data            BLOB NOT NULL,
    PRIMARY KEY (session_id, seq),
    FOREIGN KEY (session_id, seq) REFERENCES events(session_id, seq) ON DELETE CASCADE
)`

// The fields a full text stands for.
const (
	FullContent      = "content"       // a ToolResult's Content
	FullWriteContent = "input.content" // a Write ToolCall's input content
)

// FullText is the unshortened text of one stored event.
type FullText struct {
	Seq   int64
	Field string // FullContent or FullWriteContent
	Text  string
}

// SetKeep turns keeping full text on (the default) or off for the
// writes that follow.
func (f FullTextService) SetKeep(on bool) { f.s.dropFull.Store(!on) }

// Keeps reports whether writes keep full text.
func (f FullTextService) Keeps() bool { return !f.s.dropFull.Load() }

// hasFullTextTable reports whether the file has FullTextTable.
func hasFullTextTable(ctx context.Context, q querier) (bool, error) {
	var n int
	err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?", FullTextTable).Scan(&n)
	return n > 0, err
}

// fullWriter inserts full text rows inside a write transaction.
type fullWriter struct {
	tx      *sql.Tx
	session int64
	created string
	stmt    *sql.Stmt
	release func() // releases stmt
}

// add stores the full text of the event at seq.
func (w *fullWriter) add(ctx context.Context, seq int64, r *encodedRow) error {
	if w.stmt == nil {
		if !schemaApplied(ctx, w.tx, FullTextTable) {
			if _, err := w.tx.ExecContext(ctx, fullTextSchema); err != nil {
				return fmt.Errorf("create %s: %w", FullTextTable, err)
			}
		}
		if err := queryRowCached(ctx, w.tx, "SELECT created FROM sessions WHERE id = ?", w.session).Scan(&w.created); err != nil {
			return err
		}
		// Rows of a deleted session (a delete with foreign keys off) would
		// block the keys of a reused id: clear them first.
		if _, err := execCached(ctx, w.tx, `DELETE FROM lazuli_full_text WHERE session_id = ? AND session_created <> ?`,
			w.session, w.created); err != nil {
			return fmt.Errorf("clear %s: %w", FullTextTable, err)
		}
		st, release, err := prepare(ctx, w.tx, `INSERT OR REPLACE INTO lazuli_full_text
			(session_id, seq, session_created, field, size, data) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return err
		}
		w.stmt, w.release = st, release
	}
	_, err := w.stmt.ExecContext(ctx, w.session, seq, w.created, r.fullField, r.fullSize, r.full)
	return err
}

func (w *fullWriter) close() {
	if w.release != nil {
		w.release()
	}
}

// Of returns the full texts kept for a session's events, by seq.
// A store without the table, or a session without any, gives an empty map.
func (f FullTextService) Of(ctx context.Context, sessionID int64) (map[int64]FullText, error) {
	return f.read(ctx, sessionID, 0, -1)
}

// Range is Of for the events with from ≤ seq (to ≤ 0: no upper bound;
// else seq ≤ to).
func (f FullTextService) Range(ctx context.Context, sessionID, from, to int64) (map[int64]FullText, error) {
	if to <= 0 {
		to = -1
	}
	return f.read(ctx, sessionID, from, to)
}

// At returns the full text kept for one event; ok is false when there is
// none.
//
// Test support: the window reads Of and Range; tests read one text back
// with At.
func (f FullTextService) At(ctx context.Context, sessionID, seq int64) (FullText, bool, error) {
	m, err := f.read(ctx, sessionID, seq, seq)
	ft, ok := m[seq]
	return ft, ok, err
}

// read reads the rows of a session with lo ≤ seq ≤ hi (hi < 0: no
// bound) whose session is still the one they were written for.
func (f FullTextService) read(ctx context.Context, sessionID, lo, hi int64) (map[int64]FullText, error) {
	s := f.s
	out := map[int64]FullText{}
	db, _, err := s.reader(ctx)
	if err != nil || db == nil {
		return out, wrapFull(err)
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, wrapFull(classify(err))
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	if ok, err := hasFullTextTable(ctx, tx); err != nil || !ok {
		return out, wrapFull(classify(err))
	}
	if hi < 0 {
		hi = 1<<63 - 1
	}
	rows, err := tx.QueryContext(ctx, `SELECT f.seq, f.field, f.data FROM lazuli_full_text f
		JOIN sessions s ON s.id = f.session_id AND s.created = f.session_created
		WHERE f.session_id = ? AND f.seq BETWEEN ? AND ?`, sessionID, lo, hi)
	if err != nil {
		return nil, wrapFull(classify(err))
	}
	defer rows.Close()
	cd := s.decoders.Get()
	if cd == nil {
		cd = s.codec
	} else {
		defer s.decoders.Put(cd, true)
	}
	for rows.Next() {
		var f FullText
		var data []byte
		if err := rows.Scan(&f.Seq, &f.Field, &data); err != nil {
			return nil, wrapFull(err)
		}
		text, err := cd.TextTo(nil, data)
		if err != nil {
			return nil, wrapFull(fmt.Errorf("seq %d: %w", f.Seq, err))
		}
		f.Text = string(text)
		out[f.Seq] = f
	}
	return out, wrapFull(classify(rows.Err()))
}

func wrapFull(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read full text: %w", err)
}

func fullTextUsage(ctx context.Context, q querier) (FullTextUsage, error) {
	var u FullTextUsage
	if ok, err := hasFullTextTable(ctx, q); err != nil || !ok {
		return u, wrapFull(classify(err))
	}
	err := q.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(SUM(size), 0), COALESCE(SUM(length(data)), 0),
		COALESCE(SUM(NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = f.session_id AND s.created = f.session_created)), 0)
		FROM lazuli_full_text f`).Scan(&u.Rows, &u.Bytes, &u.Compressed, &u.Orphans)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	return u, wrapFull(err)
}

// checkFullText reports FullTextTable as information, with the room it
// takes, and rows whose session is gone or was replaced (left by a delete
// with foreign keys off) as a warning: they are ignored, and the next write
// of full text into a reused id clears them.
func checkFullText(ctx context.Context, q querier, r *Report, fs *findings) error {
	ok, err := hasFullTextTable(ctx, q)
	if err != nil || !ok {
		return err
	}
	u, err := fullTextUsage(ctx, q)
	if err != nil {
		return fmt.Errorf("check %s: %w", FullTextTable, err)
	}
	r.FullText = &u
	fs.addN(SeverityInfo, "full_text", int(u.Rows), fmt.Sprintf(
		"table %s keeps the full text of %d shortened tool output(s) and Write content(s): %d bytes, %d stored; it is Lazuli's own, AZUREAL ignores it",
		FullTextTable, u.Rows, u.Bytes, u.Compressed))
	if u.Orphans > 0 {
		fs.addN(SeverityWarning, "full_text_orphans", int(u.Orphans), fmt.Sprintf(
			"%d row(s) of %s belong to a session that no longer exists; they are ignored", u.Orphans, FullTextTable))
	}
	return nil
}

// Attach fills the Full field of evs (as ScanService.Events or EventsByID
// returned them) from FullTextTable. Texts over MaxEventSize, and rows whose
// session is gone or was replaced, are left out.
func (f FullTextService) Attach(ctx context.Context, evs []ScannedEvent) error {
	s := f.s
	if len(evs) == 0 {
		return nil
	}
	db, _, err := s.reader(ctx)
	if err != nil || db == nil {
		return wrapFull(err)
	}
	if ok, err := hasFullTextTable(ctx, db); err != nil || !ok {
		return wrapFull(classify(err))
	}
	at := make(map[int64]int, len(evs))
	for i, e := range evs {
		at[e.ID] = i
	}
	cd := s.decoders.Get()
	if cd == nil {
		cd = s.codec
	} else {
		defer s.decoders.Put(cd, true)
	}
	const chunk = 512
	for lo := 0; lo < len(evs); lo += chunk {
		part := evs[lo:min(lo+chunk, len(evs))]
		args := make([]any, len(part))
		for i, e := range part {
			args[i] = e.ID
		}
		if err := attachFull(ctx, db, cd, args, at, evs); err != nil {
			return err
		}
	}
	return nil
}

// attachFull reads the full texts of the events whose ids are args.
func attachFull(ctx context.Context, db *sql.DB, cd *codec.Codec, args []any, at map[int64]int, evs []ScannedEvent) error {
	rows, err := db.QueryContext(ctx, `SELECT e.id, f.data FROM events e
		JOIN lazuli_full_text f ON f.session_id = e.session_id AND f.seq = e.seq
		JOIN sessions s ON s.id = f.session_id AND s.created = f.session_created
		WHERE e.id IN (?`+strings.Repeat(", ?", len(args)-1)+`)`, args...)
	if err != nil {
		return wrapFull(classify(err))
	}
	defer rows.Close()
	var buf []byte
	for rows.Next() {
		var id int64
		var data sql.RawBytes
		if err := rows.Scan(&id, &data); err != nil {
			return wrapFull(err)
		}
		i, ok := at[id]
		if !ok {
			continue
		}
		if buf, err = cd.TextTo(buf[:0], data); err != nil {
			continue // too large or damaged: the event stays as stored
		}
		evs[i].Full = string(buf)
	}
	return wrapFull(classify(rows.Err()))
}
