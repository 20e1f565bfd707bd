package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
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
	got      int    // rows the query returned; n+1 means more than n
	complete bool   // the query returned exactly the expected number of rows
}

// errRowsChanged reports a query that returned another number of rows than
// counted in the same snapshot.
var errRowsChanged = errors.New("rows changed during the load")

// kindColumn selects events.kind as a small integer for the known variants
// (an index into allKinds plus one), and as the text itself otherwise, so
// that the driver does not allocate a string per row.
var kindColumn = func() string {
	var b strings.Builder
	b.WriteString("CASE kind")
	for i, k := range allKinds {
		b.WriteString(" WHEN '" + string(k) + "' THEN " + strconv.Itoa(i+1))
	}
	b.WriteString(" ELSE CAST(kind AS TEXT) END")
	return b.String()
}()

// rowQuery selects rows of one session for decodeRange.
type rowQuery struct {
	where   string // the WHERE clause; its first parameter is the session id
	args    []any  // the parameters after the session id
	idOrder bool   // read in id order, not through the index in seq order
}

// decodeRange reads the session's rows that q selects, in seq order, and
// decodes them while reading: chunks of rows go to GOMAXPROCS
// decoders (the zstd decoder is safe for concurrent use), which write
// straight into the result. n is the expected number of rows; with more or
// fewer, the result is not complete.
//
// The decoded JSON of each worker goes into large buffers that the events'
// strings point into (see decodeEventInPlace), so a load allocates a few
// buffers rather than several strings per event.
func (s *Store) decodeRange(ctx context.Context, q querier, session int64, sel rowQuery, n int) (*decoding, error) {
	d := &decoding{events: make([]StoredEvent, n), ok: make([]bool, n), complete: true}
	if n == 0 {
		return d, nil
	}
	query := "SELECT id, seq, " + kindColumn + ", COALESCE(CAST(char_len AS INTEGER), 0), data FROM events WHERE " + sel.where
	if !sel.idOrder {
		query += " ORDER BY seq"
	}
	rows, err := q.QueryContext(ctx, query, append([]any{session}, sel.args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	workers := min(runtime.GOMAXPROCS(0), (n+loadChunk-1)/loadChunk)
	work := make(chan rowChunk, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var out jsonArena
			for c := range work {
				s.decodeChunk(c, d, &out)
			}
		})
	}
	got, err := scanChunks(rows, n, work)
	close(work)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	d.got, d.complete = got, got == n
	if sel.idOrder && d.complete {
		d.sortBySeq()
	}
	return d, nil
}

// sortBySeq puts rows read in id order into seq order. Rows are appended
// with increasing seq, so they almost always are in order already.
func (d *decoding) sortBySeq() {
	if slices.IsSortedFunc(d.events, func(a, b StoredEvent) int { return cmpInt(a.Seq, b.Seq) }) {
		return
	}
	sort.Sort(bySeq{d})
}

// bySeq sorts a decoding's events and ok flags together.
type bySeq struct{ d *decoding }

func (b bySeq) Len() int           { return len(b.d.events) }
func (b bySeq) Less(i, j int) bool { return b.d.events[i].Seq < b.d.events[j].Seq }
func (b bySeq) Swap(i, j int) {
	b.d.events[i], b.d.events[j] = b.d.events[j], b.d.events[i]
	b.d.ok[i], b.d.ok[j] = b.d.ok[j], b.d.ok[i]
}

// scanChunks reads up to n rows, handing each chunk to work, and returns
// how many rows it read (n+1 means there were more).
func scanChunks(rows *sql.Rows, n int, work chan<- rowChunk) (int, error) {
	var (
		cur              = rowChunk{rows: make([]rawRow, 0, min(n, loadChunk))}
		id, seq, charLen int64
		kind             any
		data             sql.RawBytes
		arena            []byte // payload copies, one allocation for many rows
		i                int
	)
	for ; rows.Next(); i++ {
		if i == n {
			return n + 1, nil
		}
		if err := rows.Scan(&id, &seq, &kind, &charLen, &data); err != nil {
			return i, err
		}
		if cap(arena)-len(arena) < len(data) {
			arena = make([]byte, 0, max(64<<10, len(data)))
		}
		arena = append(arena, data...)
		r := rawRow{id: id, seq: seq, charLen: charLen, kind: kindValue(kind),
			data: arena[len(arena)-len(data) : len(arena) : len(arena)]}
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

// kindValue turns a value of kindColumn back into a Kind.
func kindValue(v any) Kind {
	switch v := v.(type) {
	case int64:
		if v >= 1 && int(v) <= len(allKinds) {
			return allKinds[v-1]
		}
	case []byte:
		return internKind(v)
	case string:
		return internKind([]byte(v))
	}
	return "" // NULL, or a number: kind is NOT NULL TEXT in every schema
}

// decodeChunk decodes the rows of c into d, with out for the JSON.
func (s *Store) decodeChunk(c rowChunk, d *decoding, out *jsonArena) {
	for j, r := range c.rows {
		ev, ok := s.decodePayloadInto(r.data, out)
		d.ok[c.lo+j] = ok
		d.events[c.lo+j] = StoredEvent{ID: r.id, Seq: r.seq, Kind: r.kind, CharLen: r.charLen, Event: ev}
	}
}

// split returns the decodable events and the seqs of the other rows. A
// result that is not complete has no events.
func (d *decoding) split() ([]StoredEvent, []int64) {
	if !d.complete {
		return d.events[:0], nil
	}
	first := slices.Index(d.ok, false)
	if first < 0 {
		return d.events, nil // the usual case: nothing to move
	}
	var skipped []int64
	out := d.events[:first]
	for i := first; i < len(d.events); i++ {
		if d.ok[i] {
			out = append(out, d.events[i])
		} else {
			skipped = append(skipped, d.events[i].Seq)
		}
	}
	return out, skipped
}

// jsonArena holds decoded payloads back to back in large buffers, and the
// strings that Event.FilePath points to. Bytes handed out are never
// written again by the arena: it only appends.
type jsonArena struct {
	buf  []byte
	strs []string
}

// newString returns a pointer to a copy of s; a nil arena allocates it.
func (a *jsonArena) newString(s string) *string {
	if a == nil {
		return StrPtr(s)
	}
	if len(a.strs) == cap(a.strs) {
		a.strs = make([]string, 0, 256)
	}
	a.strs = append(a.strs, s)
	return &a.strs[len(a.strs)-1]
}

// arenaBlock is the size of a jsonArena buffer.
const arenaBlock = 256 << 10

// spare returns an empty slice whose capacity is the unused end of the
// current buffer, starting a new buffer when less than want bytes are left.
func (a *jsonArena) spare(want int) []byte {
	if cap(a.buf)-len(a.buf) < want {
		a.buf = make([]byte, 0, max(arenaBlock, want))
	}
	return a.buf[len(a.buf):len(a.buf)]
}

// keep marks b, returned by an append to spare(), as used, and returns it
// with its capacity cut to its length. When b outgrew the spare capacity
// it lives in a buffer of its own and the arena is unchanged.
func (a *jsonArena) keep(b []byte) []byte {
	n := len(a.buf)
	if len(b) > 0 && len(b) <= cap(a.buf)-n && &a.buf[:n+1][n] == &b[0] {
		a.buf = a.buf[:n+len(b)]
	}
	return b[:len(b):len(b)]
}

// decodePayloadInto is decodePayload with the JSON decoded into out, and
// the event's strings pointing into it.
func (s *Store) decodePayloadInto(data []byte, out *jsonArena) (Event, bool) {
	var (
		js  []byte
		err error
	)
	if bytes.HasPrefix(data, zstdMagic) {
		// Room for a typical ratio; a larger payload gets a buffer of its own.
		js, err = s.codec.payloadTo(out.spare(min(4*len(data), arenaBlock)), data)
	} else if len(data) > MaxEventSize {
		err = ErrEventTooLarge
	} else {
		js = append(out.spare(len(data)), data...) // decoded in place: keep data intact
	}
	if err != nil {
		return Event{}, false
	}
	js = out.keep(js)
	if !utf8.Valid(js) {
		return Event{}, false
	}
	if ev, ok := decodeEventIn(js, out); ok {
		return ev, true
	}
	// The fast decoder may have rewritten js: decode the payload again.
	return s.decodePayload(data)
}
