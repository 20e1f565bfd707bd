package store

import (
	"bytes"
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/lazuli-app/lazuli/codec"
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
	kind             codec.Kind
	data             []byte
	declared         int64 // declaredSize(data), charged to the load's budget when read
}

// decoding is the result of decodeRange.
type decoding struct {
	events   []StoredEvent
	state    []rowState // whether each row decoded
	got      int        // rows the query returned; n+1 means more than n
	complete bool       // the query returned exactly the expected number of rows

	payloadBytes atomic.Int64 // decoded payloads the events point into
}

// memory estimates the memory the decoded events hold: the structs and
// the decoded payloads their strings point into.
func (d *decoding) memory() int {
	return len(d.events)*int(unsafe.Sizeof(StoredEvent{})) + int(d.payloadBytes.Load())
}

// errRowsChanged reports a query that returned another number of rows than
// counted in the same snapshot.
var errRowsChanged = errors.New("rows changed during the load")

// kindColumn selects events.kind as a small integer for the known variants
// (an index into allKinds plus one), and as the text itself otherwise, so
// that the driver does not allocate a string per row.
var kindColumn = kindCase("CAST(kind AS TEXT)")

// kindCase is the CASE expression of kindColumn, with otherwise for the
// kinds that are not known variants.
func kindCase(otherwise string) string {
	var b strings.Builder
	b.WriteString("CASE kind")
	for i, k := range codec.AllKinds {
		b.WriteString(" WHEN '" + string(k) + "' THEN " + strconv.Itoa(i+1))
	}
	b.WriteString(" ELSE " + otherwise + " END")
	return b.String()
}

// kindBits is the number of low bits of packedColumn that hold the kind.
const kindBits = 5 // 31 codes; allKinds has 14

// packedColumn selects a row's char_len (as charLenColumn) and kind in one
// integer, char_len<<kindBits | kind code, where the code is kindColumn's
// for a known variant and 0 otherwise. Every value a row hands over costs
// the reader a few calls into SQLite, each taking the connection's mutex
// (modernc opens connections with SQLITE_OPEN_FULLMUTEX), and the reader is
// the critical path of a large load: one column fewer took 5 % off the CPU
// time of a 50,000-event load. A char_len too large to shift overflows into
// a REAL; such rows, and those of another kind, get both values from a
// query of their own (see fixOddRows). The arithmetic shift undoes the
// packing of a negative char_len too.
var packedColumn = charLenColumn + " * " + strconv.Itoa(1<<kindBits) + " + " + kindCase("0")

// charLenColumn is char_len as a load reports it: the integer value of any
// storage class, 0 for NULL or text that is not a number.
const charLenColumn = "COALESCE(CAST(char_len AS INTEGER), 0)"

// rowQuery selects rows of one session for decodeRange.
type rowQuery struct {
	where   string // the WHERE clause; its first parameter is the session id
	args    []any  // the parameters after the session id
	idOrder bool   // read in id order, not through the index in seq order
	held    int64  // decoded bytes the load already holds (a cached session it extends)
}

// decodeRange reads the session's rows that sel selects, in seq order, and
// decodes them while reading: chunks of rows go to GOMAXPROCS decoding
// goroutines, each with a zstd decoder of its own (see codec.DecoderPool), which
// write straight into the result. n is the expected number of rows; with
// more or fewer, the result is not complete.
//
// The rows are read through the driver of t's connection (see scanRaw).
// The decoded JSON of each worker goes into large buffers that the events'
// strings point into (see decodeEventInPlace), so a load allocates a few
// buffers rather than several strings per event.
func (r *eventRows) decodeRange(ctx context.Context, t *readTx, session int64, sel rowQuery, n int) (*decoding, error) {
	d := &decoding{complete: true}
	if n == 0 {
		return d, nil
	}
	budget := newLoadBudget(sel.held)
	query := "SELECT id, seq, " + packedColumn + ", data FROM events WHERE " + sel.where
	if !sel.idOrder {
		query += " ORDER BY seq"
	}
	// The result is allocated (and zeroed: 12 MB for 50,000 events) while
	// the first rows are read; the decoders wait for it.
	allocated := make(chan struct{})
	go func() {
		d.events, d.state = make([]StoredEvent, n), make([]rowState, n)
		close(allocated)
	}()
	workers := min(runtime.GOMAXPROCS(0), (n+loadChunk-1)/loadChunk)
	p := chunkPipe{work: make(chan rowChunk, 4*workers), free: make(chan []rawRow, 5*workers+1)}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			out := codec.Arena{Dec: r.decoders.Get()}
			defer func() {
				r.decoders.Put(out.Dec, out.Big)
				d.payloadBytes.Add(int64(out.Kept))
			}()
			<-allocated
			for c := range p.work {
				r.decodeChunk(c, d, &out, budget)
				p.reuse(c.rows)
			}
		})
	}
	var odd []int // indexes of rows whose kind and char_len packedColumn could not carry
	got, err := t.scanRaw(ctx, query, append([]any{session}, sel.args...), func(rows driver.Rows) (int, error) {
		return scanChunks(rows, n, &p, &odd, budget)
	})
	close(p.work)
	wg.Wait()
	if err == nil && budget.over.Load() {
		err = &LoadLimitError{Session: session, Bytes: budget.used.Load(), Limit: budget.limit}
	}
	if err == nil && len(odd) > 0 {
		err = t.fixOddRows(ctx, d.events, odd)
	}
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

// bySeq sorts a decoding's events and states together.
type bySeq struct{ d *decoding }

func (b bySeq) Len() int           { return len(b.d.events) }
func (b bySeq) Less(i, j int) bool { return b.d.events[i].Seq < b.d.events[j].Seq }
func (b bySeq) Swap(i, j int) {
	b.d.events[i], b.d.events[j] = b.d.events[j], b.d.events[i]
	b.d.state[i], b.d.state[j] = b.d.state[j], b.d.state[i]
}

// chunkPipe carries chunks of rows from the reader to the decoders, and
// their emptied slices back, so that a load allocates only a few of them.
type chunkPipe struct {
	work chan rowChunk
	free chan []rawRow
}

// reuse hands a decoded chunk's slice back to the reader.
func (p *chunkPipe) reuse(rows []rawRow) {
	select {
	case p.free <- rows:
	default: // never blocks: at most as many slices exist as the channel holds
	}
}

// rows returns an empty slice for the next chunk.
func (p *chunkPipe) rows(n int) []rawRow {
	select {
	case r := <-p.free:
		return r[:0]
	default:
		return make([]rawRow, 0, n)
	}
}

// scanChunks reads up to n rows, handing each chunk to p's decoders, and
// returns how many rows it read (n+1 means there were more). It appends to
// odd the indexes of the rows whose kind and char_len must be read apart.
// It charges each row's declared decoded size to budget; past the limit it
// hands over no more rows, but goes on counting.
func scanChunks(rows driver.Rows, n int, p *chunkPipe, odd *[]int, budget *loadBudget) (int, error) {
	var (
		cur  = rowChunk{rows: p.rows(min(n, loadChunk))}
		dest = make([]driver.Value, 4)
		i    int
	)
	for ; ; i++ {
		if err := rows.Next(dest); err == io.EOF {
			break
		} else if err != nil {
			return i, err
		}
		if i == n {
			return n + 1, nil
		}
		r, ok, err := rawRowOf(dest)
		if err != nil {
			return i, err
		}
		if !ok {
			*odd = append(*odd, i)
		}
		r.declared = declaredSize(r.data)
		if !budget.charge(r.declared) {
			continue // refused: the rows are only counted
		}
		if cur.rows = append(cur.rows, r); len(cur.rows) == loadChunk {
			p.work <- cur
			cur = rowChunk{lo: i + 1, rows: p.rows(loadChunk)}
		}
	}
	if len(cur.rows) > 0 {
		p.work <- cur
	}
	return i, nil
}

// rawRowOf makes a rawRow of the driver's values of id, seq, packedColumn
// and data, converted as database/sql's Scan would convert them. ok is
// false when the row's kind and char_len are not in packedColumn's value
// (the row has them zero until fixOddRows reads them). The driver hands
// each blob over in a fresh slice, which the row keeps.
func rawRowOf(v []driver.Value) (r rawRow, ok bool, err error) {
	if r.id, err = int64Value(v[0]); err != nil {
		return r, false, fmt.Errorf("id: %w", err)
	}
	if r.seq, err = int64Value(v[1]); err != nil {
		return r, false, fmt.Errorf("%w: seq of event %d: %w", ErrDamaged, r.id, err)
	}
	if packed, isInt := v[2].(int64); isInt {
		code := packed & (1<<kindBits - 1)
		if ok = code >= 1 && int(code) <= len(codec.AllKinds); ok {
			r.kind, r.charLen = codec.AllKinds[code-1], packed>>kindBits
		}
	}
	switch d := v[3].(type) {
	case []byte:
		r.data = d
	case string:
		r.data = []byte(d)
	case int64:
		r.data = strconv.AppendInt(nil, d, 10)
	case float64:
		r.data = strconv.AppendFloat(nil, d, 'g', -1, 64)
	}
	return r, ok, nil
}

// fixOddRows reads kind and char_len of the events at the indexes odd
// (see packedColumn), by id, in t's snapshot: rows of a kind Lazuli does
// not know, kinds stored as BLOBs, char_len values of 2^58 or more. AZUREAL
// writes none of them.
func (t *readTx) fixOddRows(ctx context.Context, events []StoredEvent, odd []int) error {
	stmt, err := t.PrepareContext(ctx, "SELECT "+kindColumn+", "+charLenColumn+" FROM events WHERE id = ?")
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, i := range odd {
		e := &events[i]
		var kind any
		if err := stmt.QueryRowContext(ctx, e.ID).Scan(&kind, &e.CharLen); err != nil {
			return fmt.Errorf("kind of event %d: %w", e.ID, err)
		}
		e.Kind = kindValue(kind)
	}
	return nil
}

// int64Value converts a driver value to an int64 as database/sql's Scan
// does: integers as they are, text and floats only when they are integers.
func int64Value(v driver.Value) (int64, error) {
	var text string
	switch v := v.(type) {
	case int64:
		return v, nil
	case float64:
		text = strconv.FormatFloat(v, 'g', -1, 64)
	case []byte:
		text = string(v)
	case string:
		text = v
	default:
		return 0, fmt.Errorf("cannot convert %T to an integer", v)
	}
	n, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("cannot convert %q to an integer", text)
	}
	return n, nil
}

// kindValue turns a value of kindColumn back into a Kind.
func kindValue(v any) codec.Kind {
	switch v := v.(type) {
	case int64:
		if v >= 1 && int(v) <= len(codec.AllKinds) {
			return codec.AllKinds[v-1]
		}
	case []byte:
		return codec.InternKind(v)
	case string:
		return codec.InternKind([]byte(v))
	}
	return "" // NULL, or a number: kind is NOT NULL TEXT in every schema
}

// decodeChunk decodes the rows of c into d, with out for the JSON. What a
// payload decodes to beyond its declared size (all of it when the frame
// does not say) is charged to budget; once it is over, no more rows are
// decoded.
func (r *eventRows) decodeChunk(c rowChunk, d *decoding, out *codec.Arena, budget *loadBudget) {
	for j, row := range c.rows {
		if budget.over.Load() {
			return // the load fails: what is left does not matter
		}
		e := &d.events[c.lo+j]
		e.ID, e.Seq, e.Kind, e.CharLen = row.id, row.seq, row.kind, row.charLen
		kept := out.Kept
		d.state[c.lo+j] = r.decodePayloadTo(row.data, out, &e.Event)
		if extra := int64(out.Kept-kept) - row.declared; extra > 0 {
			budget.charge(extra)
		}
	}
}

// split returns the decodable events and the other rows. A result that
// is not complete has no events.
func (d *decoding) split() ([]StoredEvent, []Unreadable) {
	if !d.complete {
		return d.events[:0], nil
	}
	first := slices.IndexFunc(d.state, func(st rowState) bool { return st != rowOK })
	if first < 0 {
		return d.events, nil // the usual case: nothing to move
	}
	var skipped []Unreadable
	out := d.events[:first]
	for i := first; i < len(d.events); i++ {
		if d.state[i] == rowOK {
			out = append(out, d.events[i])
		} else {
			skipped = append(skipped, Unreadable{Seq: d.events[i].Seq, TooLarge: d.state[i] == rowTooLarge})
		}
	}
	return out, skipped
}

// rowState is what became of a row's payload in a load.
type rowState uint8

const (
	rowBad      rowState = iota // not an event (the zero value: not decoded)
	rowOK                       // decoded
	rowTooLarge                 // refused: it decodes to more than MaxEventSize
)

// decodePayloadInto is decodePayload with the JSON decoded into out, and
// the event's strings pointing into it.
func (r *eventRows) decodePayloadInto(data []byte, out *codec.Arena) (codec.Event, bool) {
	var e codec.Event
	st := r.decodePayloadTo(data, out, &e)
	return e, st == rowOK
}

// decodePayloadTo is decodePayloadInto that decodes into *e, which must be
// the zero Event; it is left zero when the payload does not decode.
func (r *eventRows) decodePayloadTo(data []byte, out *codec.Arena, e *codec.Event) rowState {
	var (
		js  []byte
		err error
	)
	if bytes.HasPrefix(data, codec.ZstdMagic) {
		// Room for a typical ratio; a larger payload gets a buffer of its own.
		zc := r.codec
		if out.Dec != nil {
			zc = out.Dec
		}
		js, err = zc.PayloadTo(out.Spare(min(4*len(data), codec.ArenaBlock)), data)
		out.Big = out.Big || len(js) > codec.BigPayload
	} else if len(data) > codec.MaxEventSize {
		err = codec.ErrEventTooLarge
	} else {
		js = append(out.Spare(len(data)), data...) // decoded in place: keep data intact
	}
	if errors.Is(err, codec.ErrEventTooLarge) {
		return rowTooLarge
	}
	if err != nil {
		return rowBad
	}
	js = out.Keep(js)
	if !utf8.Valid(js) {
		return rowBad
	}
	if codec.DecodeEventTo(js, out, e) {
		return rowOK
	}
	// The fast decoder may have rewritten js: decode the payload again.
	ev, ok := r.decodePayload(data)
	*e = ev
	if !ok {
		return rowBad
	}
	return rowOK
}

// decodePayload decodes a stored data value like AZUREAL's load path: a
// payload that is not UTF-8 is dropped (serde would see an empty string).
// Unlike AZUREAL, a plain-JSON payload (v1 TEXT rows) is accepted.
func (r *eventRows) decodePayload(data []byte) (codec.Event, bool) {
	js, err := r.codec.Payload(data)
	if err != nil || !utf8.Valid(js) {
		return codec.Event{}, false
	}
	if ev, ok := codec.DecodeEventFast(js); ok {
		return ev, true
	}
	ev, err := codec.DecodeEventJSON(js)
	return ev, err == nil
}
