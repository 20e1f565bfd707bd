package store

import (
	"context"
	"database/sql"
	"errors"
)

// cachedRows returns the session's decoded rows, up to date with tx's
// snapshot: from the cache, extended with new rows, or loaded in full.
func (r *eventRows) cachedRows(ctx context.Context, tx *readTx, session int64) (*cachedSession, error) {
	old := r.events.get(session)
	if old == nil {
		e, ok, err := r.loadDense(ctx, tx, session)
		if err != nil || ok {
			return e, err
		}
	}
	st, err := readStamp(ctx, tx, session)
	if err != nil {
		return nil, err
	}
	switch {
	case old != nil && old.count == st.count && old.maxID == st.maxID:
		return old, nil
	case old != nil && st.maxID > old.maxID && st.count > old.count:
		if e, ok, err := r.extendCached(ctx, tx, old, st); err != nil || ok {
			return e, err
		}
	}
	d, err := r.decodeRange(ctx, tx, session, rowQuery{where: "session_id = ?"}, int(st.count))
	if err != nil {
		return nil, err
	}
	if !d.complete {
		return nil, errRowsChanged
	}
	return r.cacheDecoded(session, st, d), nil
}

// cacheDecoded makes an entry of a whole session's rows and caches it.
func (r *eventRows) cacheDecoded(session int64, st sessionStamp, d *decoding) *cachedSession {
	e := &cachedSession{session: session, count: st.count, maxID: st.maxID}
	e.bytes = d.memory()
	e.events, e.skipped = d.split()
	if st.count > 0 {
		r.events.put(e)
	}
	return e
}

// maxDenseRows bounds the rows loadDense expects, and so what it allocates
// before it knows the row count.
const maxDenseRows = cacheMaxEvents

// loadDense loads a whole session the cheap way when its rows are dense,
// as AZUREAL writes them: seqs without gaps, and ids close together. It
// finds the rows with the lowest and highest seq through the index, then
// reads the table between their ids in id order, rather than counting the
// rows and looking up each one through the index. Rows of one session
// have distinct seqs and ids, so the session has at most
// min(maxSeq-minSeq+1, lastID-firstID+1) rows; finding maxSeq-minSeq+1 of
// them in the id range means all of them were found. With fewer, a count
// tells whether the range held them all. In any other case ok is false,
// and the caller counts the rows and uses the index.
func (r *eventRows) loadDense(ctx context.Context, tx *readTx, session int64) (_ *cachedSession, ok bool, _ error) {
	var firstID, firstSeq, lastID, lastSeq int64
	err := tx.QueryRowContext(ctx, `SELECT a.id, a.seq, b.id, b.seq
		FROM (SELECT id, seq FROM events WHERE session_id = ?1 ORDER BY seq LIMIT 1) AS a,
		     (SELECT id, seq FROM events WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1) AS b`, session).
		Scan(&firstID, &firstSeq, &lastID, &lastSeq)
	if errors.Is(err, sql.ErrNoRows) {
		return &cachedSession{session: session}, true, nil // no rows: nothing to cache
	}
	if err != nil {
		return nil, false, err
	}
	n, span := lastSeq-firstSeq+1, lastID-firstID+1 // each wraps to ≤ 0 on overflow
	if n <= 0 || n > maxDenseRows || span <= 0 || span > 2*n {
		return nil, false, nil
	}
	// The unary + keeps SQLite from using the index on session_id.
	sel := rowQuery{where: "+session_id = ? AND id >= ? AND id <= ?", args: []any{firstID, lastID}, idOrder: true}
	d, err := r.decodeRange(ctx, tx, session, sel, int(min(n, span)))
	if err != nil {
		return nil, false, err
	}
	if d.complete && len(d.events) == int(n) {
		st := sessionStamp{count: n}
		for i := range d.events {
			st.maxID = max(st.maxID, d.events[i].ID)
		}
		return r.cacheDecoded(session, st, d), true, nil
	}
	if d.got > len(d.events) {
		return nil, false, nil // cannot happen in one snapshot
	}
	st, err := readStamp(ctx, tx, session) // a seq gap: were all rows in the range?
	if err != nil || st.count != int64(d.got) {
		return nil, false, err
	}
	d.events, d.state, d.complete = d.events[:d.got], d.state[:d.got], true
	d.sortBySeq()
	return r.cacheDecoded(session, st, d), true, nil
}

// extendCached decodes the rows added after old and returns the extended
// entry; ok is false when the rows are not a pure append (reload instead).
func (r *eventRows) extendCached(ctx context.Context, tx *readTx, old *cachedSession, st sessionStamp) (*cachedSession, bool, error) {
	d, err := r.decodeRange(ctx, tx, old.session, rowQuery{where: "session_id = ? AND id > ?", args: []any{old.maxID},
		held: int64(old.bytes)}, int(st.count-old.count))
	if err != nil || !d.complete {
		return nil, false, err
	}
	events, skipped := d.split()
	lastSeq := int64(minSeq)
	if n := len(old.events); n > 0 {
		lastSeq = old.events[n-1].Seq
	}
	for _, u := range skipped {
		lastSeq = max(lastSeq, u.Seq)
	}
	if len(events) > 0 && events[0].Seq <= lastSeq {
		return nil, false, nil // not appended after the cached rows
	}
	e := &cachedSession{session: old.session, count: st.count, maxID: st.maxID,
		events:  append(old.events[:len(old.events):len(old.events)], events...),
		skipped: append(old.skipped[:len(old.skipped):len(old.skipped)], skipped...),
		bytes:   old.bytes + d.memory()}
	r.events.put(e)
	return e, true, nil
}
