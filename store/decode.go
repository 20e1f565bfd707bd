package store

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"sync"
)

// loadChunk is the number of rows decoded as one unit of work.
const loadChunk = 512

// rowChunk is a run of consecutive rows, starting at index lo.
type rowChunk struct {
	lo   int
	rows []rawRow
}

// rawRow is an events row before decoding.
type rawRow struct {
	id, seq, charLen int64
	kind             Kind
	data             []byte
}

// decoding is the result of decodeRange.
type decoding struct {
	events   []StoredEvent
	ok       []bool // decodable
	complete bool   // the query returned exactly the expected number of rows
}

// errRowsChanged reports a query that returned another number of rows than
// counted in the same snapshot.
var errRowsChanged = errors.New("rows changed during the load")

// decodeRange reads the session's rows matching cond (with args) in seq
// order and decodes them while reading: chunks of rows go to GOMAXPROCS
// decoders (the zstd decoder is safe for concurrent use), which write
// straight into the result. n is the expected number of rows; with more or
// fewer, the result is not complete.
func (s *Store) decodeRange(ctx context.Context, q querier, session int64, cond string, args []any, n int) (*decoding, error) {
	d := &decoding{events: make([]StoredEvent, n), ok: make([]bool, n), complete: true}
	if n == 0 {
		return d, nil
	}
	rows, err := q.QueryContext(ctx, "SELECT id, seq, kind, COALESCE(CAST(char_len AS INTEGER), 0), data FROM events"+
		" WHERE session_id = ? AND "+cond+" ORDER BY seq", append([]any{session}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	work := make(chan rowChunk, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for c := range work {
				s.decodeChunk(c, d)
			}
		})
	}
	got, err := scanChunks(rows, n, work)
	close(work)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	d.complete = got == n
	return d, nil
}

// scanChunks reads up to n rows, handing each chunk to work, and returns
// how many rows it read (n+1 means there were more).
func scanChunks(rows *sql.Rows, n int, work chan<- rowChunk) (int, error) {
	var (
		cur        = rowChunk{rows: make([]rawRow, 0, min(n, loadChunk))}
		kind, data sql.RawBytes
		arena      []byte // payload copies, one allocation for many rows
		i          int
	)
	for ; rows.Next(); i++ {
		if i == n {
			return n + 1, nil
		}
		var r rawRow
		if err := rows.Scan(&r.id, &r.seq, &kind, &r.charLen, &data); err != nil {
			return i, err
		}
		r.kind = internKind(kind)
		if cap(arena)-len(arena) < len(data) {
			arena = make([]byte, 0, max(64<<10, len(data)))
		}
		arena = append(arena, data...)
		r.data = arena[len(arena)-len(data) : len(arena) : len(arena)]
		if cur.rows = append(cur.rows, r); len(cur.rows) == loadChunk {
			work <- cur
			cur = rowChunk{lo: i + 1, rows: make([]rawRow, 0, loadChunk)}
		}
	}
	if len(cur.rows) > 0 {
		work <- cur
	}
	return i, rows.Err()
}

// decodeChunk decodes the rows of c into d.
func (s *Store) decodeChunk(c rowChunk, d *decoding) {
	for j, r := range c.rows {
		ev, ok := s.decodePayload(r.data)
		d.ok[c.lo+j] = ok
		d.events[c.lo+j] = StoredEvent{ID: r.id, Seq: r.seq, Kind: r.kind, CharLen: r.charLen, Event: ev}
	}
}

// split returns the decodable events and the seqs of the other rows. A
// result that is not complete has no events.
func (d *decoding) split() ([]StoredEvent, []int64) {
	var skipped []int64
	out := d.events[:0]
	for i := range d.events {
		if !d.complete {
			break
		}
		if d.ok[i] {
			out = append(out, d.events[i])
		} else {
			skipped = append(skipped, d.events[i].Seq)
		}
	}
	return out, skipped
}
