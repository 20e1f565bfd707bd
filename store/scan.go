package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/lazuli-app/lazuli/codec"
)

// Reading the events table across sessions, in id order, for readers that
// keep data derived from the store up to date (the search index). Events
// get increasing AUTOINCREMENT ids and are never deleted one by one, only
// with their session, so "everything above the largest id seen" is exactly
// what was appended since.

// Scan batch bounds: a batch holds at most scanBatchRows rows and stops
// after about scanBatchBytes of payload or scanBatchDecoded of decoded
// payload (as the zstd frames declare it; see scanCost), so memory stays
// flat on any store.
const (
	scanBatchRows    = 1024
	scanBatchBytes   = 8 << 20
	scanBatchDecoded = 32 << 20
	scanChunk        = 128 // rows decoded as one unit of work
	byIDChunk        = 256 // ids per query of EventsByID and CompactionsByID
)

// ScanOptions selects the rows ScanService.Events reads.
type ScanOptions struct {
	After  int64        // only ids greater than After
	Before int64        // only ids less than Before; ≤ 0 means no upper bound
	Desc   bool         // largest id first
	Kinds  []codec.Kind // only rows of these kinds; nil means every row
	Batch  int          // rows per batch; ≤ 0 means 1,024
	Raw    bool         // also return each row's stored payload bytes
}

// Events reads the events with After < id < Before in id order
// (descending with Desc) and calls fn with each batch of rows, decoded.
// Each batch is read by a query of its own, not in one long transaction,
// so a scan of the whole table never keeps a writer (AZUREAL, an agent)
// waiting for more than one batch; rows appended during the scan may or
// may not be seen. Batches are read and decoded (in parallel) while fn
// handles the previous one. fn may keep the slice. An error from fn stops
// the scan and is returned as is. A store without a file has no rows.
func (sc ScanService) Events(ctx context.Context, opt ScanOptions, fn func([]ScannedEvent) error) error {
	s := sc.s
	db, _, err := s.reader(ctx)
	if err != nil {
		return fmt.Errorf("scan events: %w", err)
	}
	if db == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan []ScannedEvent, 1)
	var readErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(batches)
		readErr = sc.readBatches(ctx, db, opt, batches)
	})
	var fnErr error
	for b := range batches {
		if fnErr == nil {
			if fnErr = fn(b); fnErr != nil {
				cancel()
			}
		}
	}
	wg.Wait()
	switch {
	case fnErr != nil:
		return fnErr
	case readErr != nil:
		return fmt.Errorf("scan events: %w", formatOrErr(s.path, readErr))
	}
	return nil
}

// scanRow is an events row before decoding.
type scanRow struct {
	id, session, seq, charLen int64
	kind                      codec.Kind
	data                      []byte
}

// readBatches reads and decodes the batches of opt and sends them to out.
func (sc ScanService) readBatches(ctx context.Context, db *sql.DB, opt ScanOptions, out chan<- []ScannedEvent) error {
	after, before := opt.After, opt.Before
	if before <= 0 {
		before = math.MaxInt64
	}
	limit := opt.Batch
	if limit <= 0 {
		limit = scanBatchRows
	}
	query := scanQuery(opt)
	for after < before {
		rows, more, err := readScanBatch(ctx, db, query, after, before, limit)
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		if opt.Desc {
			before = rows[len(rows)-1].id
		} else {
			after = rows[len(rows)-1].id
		}
		select {
		case out <- sc.decodeRows(rows, opt.Raw):
		case <-ctx.Done():
			return ctx.Err()
		}
		if !more {
			return nil
		}
	}
	return nil
}

// scanQuery is the batch query of opt; its parameters are the id bounds
// and the row limit.
func scanQuery(opt ScanOptions) string {
	var b strings.Builder
	b.WriteString("SELECT id, session_id, seq, " + kindColumn + ", data, " + charLenColumn + " FROM events WHERE id > ? AND id < ?")
	if len(opt.Kinds) > 0 {
		b.WriteString(" AND kind IN (")
		for i, k := range opt.Kinds {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString("'" + strings.ReplaceAll(string(k), "'", "''") + "'")
		}
		b.WriteString(")")
	}
	if opt.Desc {
		b.WriteString(" ORDER BY id DESC LIMIT ?")
	} else {
		b.WriteString(" ORDER BY id LIMIT ?")
	}
	return b.String()
}

// readScanBatch runs one batch query. more reports that the batch stopped
// at its row or byte budget, so more rows may follow.
func readScanBatch(ctx context.Context, db *sql.DB, query string, after, before int64, limit int) ([]scanRow, bool, error) {
	rows, err := db.QueryContext(ctx, query, after, before, limit)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	var (
		out     = make([]scanRow, 0, min(limit, 256))
		arena   []byte // payload copies, one allocation for many rows
		bytes   int
		decoded int64
		kind    any
		data    sql.RawBytes
	)
	for rows.Next() {
		var r scanRow
		if err := rows.Scan(&r.id, &r.session, &r.seq, &kind, &data, &r.charLen); err != nil {
			return nil, false, err
		}
		if cap(arena)-len(arena) < len(data) {
			arena = make([]byte, 0, max(256<<10, len(data)))
		}
		arena = append(arena, data...)
		r.kind, r.data = kindValue(kind), arena[len(arena)-len(data):len(arena):len(arena)]
		out = append(out, r)
		bytes += len(data)
		if decoded += scanCost(data); (bytes >= scanBatchBytes || decoded >= scanBatchDecoded) && len(out) < limit {
			return out, true, rows.Err() // the rest comes in the next batch
		}
	}
	if err := rows.Err(); err != nil {
		return nil, false, err
	}
	return out, len(out) == limit, nil
}

// scanCost is the most a payload may decode to: its declared size; for a
// zstd frame that does not declare it, the most its one block holds
// (zstd's Block_Maximum_Size, at most the window and 128 KiB: Lazuli's
// small events are such frames), or else the most an event may hold.
func scanCost(data []byte) int64 {
	if n := declaredSize(data); n > 0 || !bytes.HasPrefix(data, codec.ZstdMagic) {
		return n
	}
	var h zstd.Header
	if h.Decode(data) == nil && !h.SingleSegment && h.FirstBlock.OK && h.FirstBlock.Last {
		return int64(min(h.WindowSize, 128<<10))
	}
	return codec.MaxEventSize
}

// decodeRows decodes rows on up to GOMAXPROCS goroutines.
// With raw, each ScannedEvent also carries its stored payload.
func (sc ScanService) decodeRows(rows []scanRow, raw bool) []ScannedEvent {
	out := make([]ScannedEvent, len(rows))
	decode := func(lo, hi int) {
		var arena codec.Arena
		for i := lo; i < hi; i++ {
			r := &rows[i]
			ev, ok := sc.s.decodePayloadInto(r.data, &arena)
			if !ok {
				ev = codec.Event{}
			}
			out[i] = ScannedEvent{ID: r.id, SessionID: r.session, Seq: r.seq, Kind: r.kind, CharLen: r.charLen, Event: ev}
			if raw {
				out[i].Payload = r.data
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), (len(rows)+scanChunk-1)/scanChunk)
	if workers <= 1 {
		decode(0, len(rows))
		return out
	}
	var wg sync.WaitGroup
	next := make(chan int, (len(rows)+scanChunk-1)/scanChunk)
	for lo := 0; lo < len(rows); lo += scanChunk {
		next <- lo
	}
	close(next)
	for range workers {
		wg.Go(func() {
			for lo := range next {
				decode(lo, min(lo+scanChunk, len(rows)))
			}
		})
	}
	wg.Wait()
	return out
}

// EventsByID reads and decodes the events with the given ids, in the order
// of ids; ids that do not exist (a deleted session's) are left out. Events
// that decode to more than MaxLoadBytes in all yield a *LoadLimitError
// before they are decoded.
func (sc ScanService) EventsByID(ctx context.Context, ids []int64) ([]ScannedEvent, error) {
	s := sc.s
	db, _, err := s.reader(ctx)
	if err != nil || db == nil || len(ids) == 0 {
		return nil, wrapByID("events", err)
	}
	var decoded int64
	byID := make(map[int64]ScannedEvent, len(ids))
	for lo := 0; lo < len(ids); lo += byIDChunk {
		part := ids[lo:min(lo+byIDChunk, len(ids))]
		rows, err := readRowsByID(ctx, db, part)
		if err != nil {
			return nil, wrapByID("events", formatOrErr(s.path, err))
		}
		for _, r := range rows {
			decoded += scanCost(r.data)
		}
		if decoded > MaxLoadBytes {
			return nil, wrapByID("events", &LoadLimitError{Bytes: decoded, Limit: MaxLoadBytes})
		}
		for _, e := range sc.decodeRows(rows, false) {
			byID[e.ID] = e
		}
	}
	out := make([]ScannedEvent, 0, len(byID))
	for _, id := range ids {
		if e, ok := byID[id]; ok {
			out = append(out, e)
		}
	}
	return out, nil
}

func wrapByID(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read %s by id: %w", what, err)
}

func readRowsByID(ctx context.Context, db *sql.DB, ids []int64) ([]scanRow, error) {
	list, args := inList(ids)
	rows, err := db.QueryContext(ctx, "SELECT id, session_id, seq, "+kindColumn+", data, "+charLenColumn+" FROM events WHERE id IN "+list, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []scanRow
	var kind any
	for rows.Next() {
		var r scanRow
		if err := rows.Scan(&r.id, &r.session, &r.seq, &kind, &r.data, &r.charLen); err != nil {
			return nil, err
		}
		r.kind = kindValue(kind)
		out = append(out, r)
	}
	return out, rows.Err()
}

// CompactionsByID returns the compactions with the given ids, in the order
// of ids; ids that do not exist are left out.
func (sc ScanService) CompactionsByID(ctx context.Context, ids []int64) ([]Compaction, error) {
	s := sc.s
	db, info, err := s.reader(ctx)
	if err != nil || db == nil || len(ids) == 0 || !info.hasTable("compactions") {
		return nil, wrapByID("compactions", err)
	}
	byID := make(map[int64]Compaction, len(ids))
	for lo := 0; lo < len(ids); lo += byIDChunk {
		list, args := inList(ids[lo:min(lo+byIDChunk, len(ids))])
		err := queryCompactions(ctx, db, "WHERE id IN "+list, args, func(c Compaction) error {
			byID[c.ID] = c
			return nil
		})
		if err != nil {
			return nil, wrapByID("compactions", formatOrErr(s.path, err))
		}
	}
	out := make([]Compaction, 0, len(byID))
	for _, id := range ids {
		if c, ok := byID[id]; ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// Compactions calls fn with the compactions whose id is greater than
// afterID, in id order, in batches read by queries of their own.
func (sc ScanService) Compactions(ctx context.Context, afterID int64, fn func([]Compaction) error) error {
	s := sc.s
	db, info, err := s.reader(ctx)
	if err != nil {
		return fmt.Errorf("scan compactions: %w", err)
	}
	if db == nil || !info.hasTable("compactions") {
		return nil
	}
	for {
		var batch []Compaction
		err := queryCompactions(ctx, db, "WHERE id > ? ORDER BY id LIMIT ?", []any{afterID, scanBatchRows / 4},
			func(c Compaction) error {
				batch = append(batch, c)
				return nil
			})
		if err != nil {
			return fmt.Errorf("scan compactions: %w", formatOrErr(s.path, err))
		}
		if len(batch) == 0 {
			return nil
		}
		if err := fn(batch); err != nil {
			return err
		}
		afterID = batch[len(batch)-1].ID
	}
}

// queryCompactions calls fn with each compactions row the clause selects.
func queryCompactions(ctx context.Context, q querier, clause string, args []any, fn func(Compaction) error) error {
	rows, err := q.QueryContext(ctx, "SELECT "+compactionColumns+" FROM compactions "+clause, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		c, err := scanCompaction(rows)
		if err != nil {
			return err
		}
		if err := fn(c); err != nil {
			return err
		}
	}
	return rows.Err()
}

// Sessions returns every session in id order with its columns only:
// none of the counts Sessions().List computes, so it costs one read of the
// sessions table however many events there are.
func (sc ScanService) Sessions(ctx context.Context) ([]Session, error) {
	s := sc.s
	db, info, err := s.reader(ctx)
	if err != nil || db == nil {
		return nil, wrapSessionRows(err)
	}
	list, err := querySessions(ctx, db, info, "")
	if err != nil {
		return nil, wrapSessionRows(formatOrErr(s.path, err))
	}
	slices.SortFunc(list, func(a, b Session) int { return cmpInt(a.ID, b.ID) })
	return list, nil
}

func wrapSessionRows(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read sessions: %w", err)
}

// IDBounds describes the ids of the events and compactions tables.
type IDBounds struct {
	MinEventID, MaxEventID int64 // 0 when there are no events
	// EventSequence is the largest events id ever assigned in this file
	// (sqlite_sequence): ids are never reused, so it never decreases, even
	// when the newest events are deleted with their session. It is 0 when
	// the file has no sqlite_sequence entry for events.
	EventSequence   int64
	MaxCompactionID int64 // 0 when there are none
}

// IDBounds reads the id bounds in one read transaction. A store without a
// file has zero bounds.
func (sc ScanService) IDBounds(ctx context.Context) (IDBounds, error) {
	s := sc.s
	var b IDBounds
	db, info, err := s.reader(ctx)
	if err != nil || db == nil {
		return b, wrapBounds(err)
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return b, wrapBounds(classify(err))
	}
	defer tx.Rollback() //nolint:errcheck // read-only transaction
	// Two queries: SQLite answers a lone MIN or MAX of the rowid from the
	// ends of the table's b-tree, but both at once by reading every row.
	var lo, hi sql.NullInt64
	if err := tx.QueryRowContext(ctx, "SELECT MIN(id) FROM events").Scan(&lo); err != nil {
		return b, wrapBounds(formatOrErr(s.path, err))
	}
	if err := tx.QueryRowContext(ctx, "SELECT MAX(id) FROM events").Scan(&hi); err != nil {
		return b, wrapBounds(formatOrErr(s.path, err))
	}
	b.MinEventID, b.MaxEventID = lo.Int64, hi.Int64
	if b.EventSequence, err = eventSequence(ctx, tx); err != nil {
		return b, wrapBounds(formatOrErr(s.path, err))
	}
	if info.hasTable("compactions") {
		var c sql.NullInt64
		if err := tx.QueryRowContext(ctx, "SELECT MAX(id) FROM compactions").Scan(&c); err != nil {
			return b, wrapBounds(formatOrErr(s.path, err))
		}
		b.MaxCompactionID = c.Int64
	}
	return b, nil
}

// eventSequence reads sqlite_sequence's value for events; 0 when the file
// has none (no AUTOINCREMENT table ever had a row).
func eventSequence(ctx context.Context, q querier) (int64, error) {
	var n int
	if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'sqlite_sequence'").Scan(&n); err != nil || n == 0 {
		return 0, err
	}
	var seq sql.NullInt64
	err := q.QueryRowContext(ctx, "SELECT seq FROM sqlite_sequence WHERE name = 'events'").Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return seq.Int64, err
}

func wrapBounds(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("read id bounds: %w", err)
}

// EventIDAt returns the id of the session's last event with a seq at most
// seq, or 0 when there is none: where a compaction with that after_seq
// sits among the events.
func (sc ScanService) EventIDAt(ctx context.Context, sessionID, seq int64) (int64, error) {
	s := sc.s
	db, _, err := s.reader(ctx)
	if err != nil || db == nil {
		return 0, wrapEventIDAt(err)
	}
	var id sql.NullInt64
	err = db.QueryRowContext(ctx, "SELECT id FROM events WHERE session_id = ? AND seq <= ? ORDER BY seq DESC LIMIT 1",
		sessionID, seq).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, wrapEventIDAt(formatOrErr(s.path, err))
	}
	return id.Int64, nil
}

func wrapEventIDAt(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("find event by seq: %w", err)
}

// EventIDBelow returns the id of the n-th event below id before (n ≥ 1;
// the largest id less than before is the first), or false when fewer than
// n events lie below it.
func (sc ScanService) EventIDBelow(ctx context.Context, before int64, n int) (int64, bool, error) {
	s := sc.s
	db, _, err := s.reader(ctx)
	if err != nil || db == nil || n < 1 {
		return 0, false, wrapEventIDBelow(err)
	}
	var id int64
	err = db.QueryRowContext(ctx, "SELECT id FROM events WHERE id < ? ORDER BY id DESC LIMIT 1 OFFSET ?", before, n-1).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, wrapEventIDBelow(formatOrErr(s.path, err))
	}
	return id, true, nil
}

func wrapEventIDBelow(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("find event id: %w", err)
}

// FirstEventID returns the smallest events id of a session, or 0 when it
// has no events: an index tells by it whether a session it has not seen
// can have events below its high-water mark.
func (sc ScanService) FirstEventID(ctx context.Context, sessionID int64) (int64, error) {
	s := sc.s
	db, _, err := s.reader(ctx)
	var id int64
	if err == nil && db != nil {
		err = formatOrErr(s.path, db.QueryRowContext(ctx, "SELECT COALESCE(MIN(id), 0) FROM events WHERE session_id = ?", sessionID).Scan(&id))
	}
	if err != nil {
		return 0, fmt.Errorf("read first event id of session %d: %w", sessionID, err)
	}
	return id, nil
}

// Version returns a token that is the same only while the store file is
// unchanged: the mark verified.go keeps of a file checked healthy (SQLite's
// file change counter and page count, which every write transaction of
// AZUREAL and Lazuli in rollback-journal mode moves, with the file's size,
// modification time, device and inode), read the same way. It reads the
// header page and stats the file, whatever the file's size, so a caller
// that did its work for one Version may skip it while the store still has
// that Version (the search index's Update does). It is "" when it cannot
// vouch for that: the file has a -wal or -journal file beside it, its
// header's counter is not valid, or it cannot be read; and for a store
// without a file.
func (sc ScanService) Version(ctx context.Context) (string, error) {
	s := sc.s
	db, _, err := s.reader(ctx)
	if err != nil || db == nil {
		return "", err
	}
	m, ok := currentMark(ctx, db, s.path)
	if !ok {
		return "", nil
	}
	return fmt.Sprintf(markFormat, m.ID.Dev, m.ID.Ino, m.ID.Size, m.ID.MTime, m.Stamp.Counter, m.Stamp.Pages), nil
}
