package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/lazuli-app/lazuli/codec"
)

// LoadResult is what Load returns.
type LoadResult struct {
	// Events are the decodable rows in seq order after the read-time
	// context filter (FilterInjected).
	Events []StoredEvent
	// Skipped counts rows whose payload could not be decoded. AZUREAL drops
	// them silently; they still count in Session.EventCount.
	Skipped int
	// Unreadable are those rows, in seq order (len(Unreadable) == Skipped).
	Unreadable []Unreadable
}

// All returns all events of a session in seq order, as AZUREAL's
// load_events shows them: undecodable rows skipped, then the read-time
// filter applied. A missing session has no events (no error).
func (es EventService) All(ctx context.Context, sessionID int64) ([]StoredEvent, error) {
	r, err := es.Load(ctx, sessionID, 0, 0)
	return r.Events, err
}

// Range is Events().All restricted to fromSeq ≤ seq ≤ toSeq, both
// inclusive; toSeq ≤ 0 means no upper bound. The filter runs on the range.
func (es EventService) Range(ctx context.Context, sessionID, fromSeq, toSeq int64) ([]StoredEvent, error) {
	r, err := es.Load(ctx, sessionID, fromSeq, toSeq)
	return r.Events, err
}

// Load is Events().Range that also reports how many rows it skipped.
// fromSeq ≤ 0 and toSeq ≤ 0 mean no bound.
//
// Whole-session loads go through the Store's cache of decoded rows (see
// eventCache), and so do range loads of a cached session; other range
// loads read just their range.
func (es EventService) Load(ctx context.Context, sessionID, fromSeq, toSeq int64) (LoadResult, error) {
	events, skipped, shared, side, err := es.load(ctx, sessionID, fromSeq, toSeq)
	if err != nil {
		return LoadResult{}, fmt.Errorf("load events of session %d: %w", sessionID, err)
	}
	for i := range skipped {
		skipped[i].Session = sessionID
	}
	es.s.unread.note(skipped)
	events = FilterInjected(events) // a new slice: the cache's stays as it is
	if shared {
		detach(events)
	}
	attachThinking(events, side.thoughts)
	attachRunFailures(events, side.failures)
	return LoadResult{Events: events, Skipped: len(skipped), Unreadable: skipped}, nil
}

// load returns the decodable events of the range and the rows it skipped
// (a slice of its own). With shared set, the events are the cache's own: the slice must
// not be changed, and their FilePath and Input must be copied before they
// are handed out.
func (es EventService) load(ctx context.Context, sessionID, fromSeq, toSeq int64) (_ []StoredEvent, _ []Unreadable, shared bool, _ sideRows, _ error) {
	db, _, err := es.s.reader(ctx)
	if err != nil || db == nil {
		return nil, nil, false, sideRows{}, err
	}
	whole := fromSeq <= 0 && toSeq <= 0
	if fromSeq <= 0 {
		fromSeq = minSeq
	}
	if toSeq <= 0 {
		toSeq = maxSeq
	}
	tx, err := beginRead(ctx, db) // one snapshot for all queries
	if err != nil {
		return nil, nil, false, sideRows{}, classify(err)
	}
	defer tx.end()
	if err := checkSeqs(ctx, tx, sessionID); err != nil {
		return nil, nil, false, sideRows{}, err
	}
	if whole || es.s.events.has(sessionID) {
		e, err := es.s.cachedRows(ctx, tx, sessionID)
		if err != nil {
			return nil, nil, false, sideRows{}, formatOrErr(es.s.path, err) // Open does not read every page
		}
		events, skipped := e.slice(fromSeq, toSeq)
		side, err := sideRowsIn(ctx, tx, sessionID, fromSeq, toSeq)
		return events, skipped, true, side, err
	}
	var n int
	err = tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM events WHERE session_id = ? AND seq >= ? AND seq <= ?",
		sessionID, fromSeq, toSeq).Scan(&n)
	if err != nil {
		return nil, nil, false, sideRows{}, classify(err)
	}
	d, err := es.s.decodeRange(ctx, tx, sessionID, rowQuery{where: "session_id = ? AND seq >= ? AND seq <= ?", args: []any{fromSeq, toSeq}}, n)
	if err != nil {
		return nil, nil, false, sideRows{}, formatOrErr(es.s.path, err)
	}
	events, skipped := d.split()
	side, err := sideRowsIn(ctx, tx, sessionID, fromSeq, toSeq)
	return events, skipped, false, side, err
}

// sideRows are what Lazuli's own tables keep beside a range of events.
type sideRows struct {
	thoughts []Thought
	failures []RunFailure
}

// sideRowsIn reads the thinking and run failures of a range of events.
func sideRowsIn(ctx context.Context, q querier, sessionID, fromSeq, toSeq int64) (sideRows, error) {
	thoughts, err := thoughtsIn(ctx, q, sessionID, fromSeq, toSeq)
	if err != nil {
		return sideRows{}, err
	}
	failures, err := runFailuresIn(ctx, q, sessionID, fromSeq, toSeq)
	return sideRows{thoughts: thoughts, failures: failures}, err
}

// checkSeqs fails with ErrDamaged when the session has a seq that is not
// a number: AZUREAL cannot load such a session, and no order of its rows
// is right. In the index on (session_id, seq), NULL sorts before every
// number and text and BLOBs after, so the first and last entries tell,
// at the cost of two lookups. A REAL seq that is not an integer is caught
// by the load itself (int64Value).
func checkSeqs(ctx context.Context, q querier, sessionID int64) error {
	var first, last sql.NullString
	err := q.QueryRowContext(ctx, `SELECT (SELECT typeof(seq) FROM events WHERE session_id = ?1 ORDER BY seq LIMIT 1),
		(SELECT typeof(seq) FROM events WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1)`, sessionID).Scan(&first, &last)
	if err != nil {
		return classify(err)
	}
	for _, t := range []sql.NullString{first, last} {
		if t.Valid && t.String != "integer" && t.String != "real" {
			return fmt.Errorf("%w: an event's seq is %s, not an integer", ErrDamaged, t.String)
		}
	}
	return nil
}

// detach gives events their own copies of FilePath and Input, so that a
// caller cannot change the cache through them. A large session is copied
// in parts on GOMAXPROCS goroutines: it is the last step of a load, with
// nothing else left to run beside it.
func detach(events []StoredEvent) {
	parts := runtime.GOMAXPROCS(0)
	if len(events) < parallelDetach || parts == 1 {
		detachPart(events)
		return
	}
	var wg sync.WaitGroup
	for k := range parts {
		part := events[len(events)*k/parts : len(events)*(k+1)/parts]
		wg.Go(func() { detachPart(part) })
	}
	wg.Wait()
}

// parallelDetach is the number of events from which detach works in parts.
const parallelDetach = 8192

// detachPart is detach of one part. The copies share two allocations;
// each Input's capacity ends at its length, so appending to one never
// overwrites the next.
func detachPart(events []StoredEvent) {
	paths, inputs := 0, 0
	for i := range events {
		if events[i].Event.FilePath != nil {
			paths++
		}
		inputs += len(events[i].Event.Input)
	}
	pathBuf := make([]string, 0, paths)
	inputBuf := make([]byte, 0, inputs)
	for i := range events {
		e := &events[i].Event
		if e.FilePath != nil {
			pathBuf = append(pathBuf, *e.FilePath)
			e.FilePath = &pathBuf[len(pathBuf)-1]
		}
		if e.Input != nil {
			n := len(inputBuf)
			inputBuf = append(inputBuf, e.Input...)
			e.Input = inputBuf[n:len(inputBuf):len(inputBuf)]
		}
	}
}

// TailStart returns where the last n events of a session before seq
// beforeSeq begin (beforeSeq ≤ 0: the session's end): from is the seq of
// the first of them, before the number of the session's events with a
// smaller seq. With n or fewer events there, from is 0 (no bound) and
// before 0. A view that shows a long session from its end loads
// Events().Range(from, beforeSeq-1) and says how many events come before.
// Both counts are of stored rows, undecodable ones included.
func (es EventService) TailStart(ctx context.Context, sessionID, beforeSeq int64, n int) (from int64, before int, err error) {
	db, _, err := es.s.reader(ctx)
	if err != nil || db == nil || n <= 0 {
		return 0, 0, err
	}
	if beforeSeq <= 0 {
		beforeSeq = maxSeq
	}
	tx, err := beginRead(ctx, db) // one snapshot for both queries
	if err != nil {
		return 0, 0, classify(err)
	}
	defer tx.end()
	err = tx.QueryRowContext(ctx, "SELECT seq FROM events WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT 1 OFFSET ?",
		sessionID, beforeSeq, n-1).Scan(&from)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, nil
	}
	if err == nil {
		err = tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM events WHERE session_id = ? AND seq < ?", sessionID, from).Scan(&before)
	}
	if err != nil {
		return 0, 0, fmt.Errorf("tail of session %d: %w", sessionID, classify(err))
	}
	return from, before, nil
}

// LastOfKind returns the session's decodable event of kind with the
// highest seq, as Events().All would show it, without loading the others;
// ok is false when there is none.
func (es EventService) LastOfKind(ctx context.Context, sessionID int64, kind codec.Kind) (_ StoredEvent, ok bool, _ error) {
	db, _, err := es.s.reader(ctx)
	if err != nil || db == nil {
		return StoredEvent{}, false, err
	}
	rows, err := db.QueryContext(ctx, "SELECT id, seq, "+charLenColumn+", data FROM events "+
		"WHERE session_id = ? AND kind = ? ORDER BY seq DESC", sessionID, string(kind))
	if err != nil {
		return StoredEvent{}, false, fmt.Errorf("last %s of session %d: %w", kind, sessionID, classify(err))
	}
	defer rows.Close()
	for rows.Next() {
		var (
			e       = StoredEvent{Kind: kind}
			data    []byte
			decoded bool
		)
		if err := rows.Scan(&e.ID, &e.Seq, &e.CharLen, &data); err != nil {
			return StoredEvent{}, false, fmt.Errorf("last %s of session %d: %w", kind, sessionID, err)
		}
		if e.Event, decoded = es.s.decodePayload(data); !decoded {
			continue // skipped by LoadEvents too: look further back
		}
		if f := FilterInjected([]StoredEvent{e}); len(f) == 1 {
			return f[0], true, nil
		}
	}
	if err := rows.Err(); err != nil {
		return StoredEvent{}, false, fmt.Errorf("last %s of session %d: %w", kind, sessionID, classify(err))
	}
	return StoredEvent{}, false, nil
}
