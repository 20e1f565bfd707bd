package store

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"unicode/utf8"
)

// Bounds for LoadEventsRange.
const (
	minSeq = math.MinInt64
	maxSeq = math.MaxInt64
)

// LoadResult is what Load returns.
type LoadResult struct {
	// Events are the decodable rows in seq order after the read-time
	// context filter (FilterInjected).
	Events []StoredEvent
	// Skipped counts rows whose payload could not be decoded. AZUREAL drops
	// them silently; they still count in Session.EventCount.
	Skipped int
}

// LoadEvents returns all events of a session in seq order, as AZUREAL's
// load_events shows them: undecodable rows skipped, then the read-time
// filter applied. A missing session has no events (no error).
func (s *Store) LoadEvents(ctx context.Context, sessionID int64) ([]StoredEvent, error) {
	r, err := s.Load(ctx, sessionID, 0, 0)
	return r.Events, err
}

// LoadEventsRange is LoadEvents restricted to fromSeq ≤ seq ≤ toSeq, both
// inclusive; toSeq ≤ 0 means no upper bound. The filter runs on the range.
func (s *Store) LoadEventsRange(ctx context.Context, sessionID, fromSeq, toSeq int64) ([]StoredEvent, error) {
	r, err := s.Load(ctx, sessionID, fromSeq, toSeq)
	return r.Events, err
}

// Load is LoadEventsRange that also reports how many rows it skipped.
// fromSeq ≤ 0 and toSeq ≤ 0 mean no bound.
//
// Whole-session loads go through the Store's cache of decoded rows (see
// eventCache), and so do range loads of a cached session; other range
// loads read just their range.
func (s *Store) Load(ctx context.Context, sessionID, fromSeq, toSeq int64) (LoadResult, error) {
	events, skipped, err := s.load(ctx, sessionID, fromSeq, toSeq)
	if err != nil {
		return LoadResult{}, fmt.Errorf("load events of session %d: %w", sessionID, err)
	}
	return LoadResult{Events: FilterInjected(events), Skipped: skipped}, nil
}

func (s *Store) load(ctx context.Context, sessionID, fromSeq, toSeq int64) ([]StoredEvent, int, error) {
	db, _, err := s.reader(ctx)
	if err != nil || db == nil {
		return nil, 0, err
	}
	whole := fromSeq <= 0 && toSeq <= 0
	if fromSeq <= 0 {
		fromSeq = minSeq
	}
	if toSeq <= 0 {
		toSeq = maxSeq
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true}) // one snapshot for all queries
	if err != nil {
		return nil, 0, classify(err)
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	if whole || s.events.has(sessionID) {
		e, err := s.cachedRows(ctx, tx, sessionID)
		if err != nil {
			return nil, 0, classify(err)
		}
		events, skipped := e.slice(fromSeq, toSeq)
		return events, skipped, nil
	}
	var n int
	err = tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM events WHERE session_id = ? AND seq >= ? AND seq <= ?",
		sessionID, fromSeq, toSeq).Scan(&n)
	if err != nil {
		return nil, 0, classify(err)
	}
	d, err := s.decodeRange(ctx, tx, sessionID, "seq >= ? AND seq <= ?", []any{fromSeq, toSeq}, n)
	if err != nil {
		return nil, 0, classify(err)
	}
	events, skippedSeqs := d.split()
	return events, len(skippedSeqs), nil
}

// internKind returns the kind column as a Kind, without allocating for the
// known variant names.
func internKind(b []byte) Kind {
	for _, k := range allKinds {
		if string(k) == string(b) {
			return k
		}
	}
	return Kind(b)
}

var allKinds = []Kind{KindToolResult, KindToolCall, KindAssistantText, KindUserMessage, KindComplete,
	KindInit, KindHook, KindCommand, KindPlan, KindCompacting, KindCompacted, KindModelSwitch,
	KindMayBeCompacting, KindFiltered}

// decodePayload decodes a stored data value like AZUREAL's load path: a
// payload that is not UTF-8 is dropped (serde would see an empty string).
// Unlike AZUREAL, a plain-JSON payload (v1 TEXT rows) is accepted.
func (s *Store) decodePayload(data []byte) (Event, bool) {
	js, err := s.codec.payload(data)
	if err != nil || !utf8.Valid(js) {
		return Event{}, false
	}
	if ev, ok := decodeEventFast(js); ok {
		return ev, true
	}
	ev, err := DecodeEventJSON(js)
	return ev, err == nil
}
