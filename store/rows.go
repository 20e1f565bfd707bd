package store

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/lazuli-app/lazuli/codec"
)

// eventRows and the state it keeps: the cache of recently loaded
// sessions' decoded rows and the pool of zstd encoders. Decoding is
// decode.go, encoding encode.go, the cache's use evcache.go.

// eventRows turns event rows into events and back: the zstd codec with its
// pools of decoders and encoders (a load decodes on several goroutines,
// an append compresses on several), the decoded rows of recently loaded
// sessions, and whether writes keep full texts.
type eventRows struct {
	codec    *codec.Codec
	decoders codec.DecoderPool // zstd decoders for the goroutines of a load
	encoders encoderPool       // zstd encoders for parallel compression
	events   eventCache        // decoded rows of recently loaded sessions
	dropFull atomic.Bool       // FullText().SetKeep(false): writes keep no full text
}

// encoderPool hands out codecs for compression. codec.go builds each
// encoder with concurrency 1, so parallel workers need one codec each; the
// pool creates up to GOMAXPROCS of them lazily and keeps them.
type encoderPool struct {
	mu   sync.Mutex
	free []*codec.Codec
	all  []*codec.Codec
}

func (p *encoderPool) get() (*codec.Codec, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		c := p.free[n-1]
		p.free = p.free[:n-1]
		return c, nil
	}
	c, err := codec.New()
	if err != nil {
		return nil, err
	}
	p.all = append(p.all, c)
	return c, nil
}

func (p *encoderPool) put(c *codec.Codec) {
	if c == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.free = append(p.free, c)
}

// close releases the codecs' decoders.
func (p *encoderPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.all {
		c.Close()
	}
	p.all, p.free = nil, nil
}

// Limits of the decoded-event cache.
const (
	cacheSessions  = 4        // sessions kept
	cacheMaxEvents = 200_000  // decoded events kept in all
	cacheMaxBytes  = 64 << 20 // their estimated memory (see decoding.memory), in all
)

// eventCache keeps the decoded rows of the sessions loaded last, so that
// loading a session again (switching back to it, building the context of
// the next prompt) only decodes the rows added since. Decoding dominates
// a load: every row is its own zstd frame with its own entropy tables.
//
// An entry is checked against the file on every use with one index-only
// query (row count, MAX(id)), relying on AZUREAL's guarantees: events get
// increasing AUTOINCREMENT ids and are never changed or deleted one by
// one. New rows are decoded and appended; anything else reloads.
type eventCache struct {
	mu      sync.Mutex
	entries []*cachedSession // most recently used first
}

// cachedSession is the decoded, unfiltered rows of a whole session.
type cachedSession struct {
	session int64
	count   int64         // rows, including undecodable ones
	maxID   int64         // MAX(events.id)
	events  []StoredEvent // decodable rows in seq order
	skipped []Unreadable  // undecodable rows, in seq order
	bytes   int           // the memory it holds, estimated (see decoding.memory)
}

// sessionStamp is what identifies a session's rows: their count and MAX(id).
type sessionStamp struct{ count, maxID int64 }

func readStamp(ctx context.Context, q querier, session int64) (sessionStamp, error) {
	var st sessionStamp
	err := q.QueryRowContext(ctx, "SELECT COUNT(*), COALESCE(MAX(id), 0) FROM events WHERE session_id = ?", session).
		Scan(&st.count, &st.maxID)
	return st, err
}

// get returns the entry of session, or nil, marking it most recently used.
func (c *eventCache) get(session int64) *cachedSession {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.session == session {
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			return e
		}
	}
	return nil
}

// put stores e, evicting the least recently used entries over the limits.
func (c *eventCache) put(e *cachedSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = slices.DeleteFunc(c.entries, func(x *cachedSession) bool { return x.session == e.session })
	if len(e.events) > cacheMaxEvents || e.bytes > cacheMaxBytes {
		return // a session this long is loaded whenever it is asked for
	}
	c.entries = append([]*cachedSession{e}, c.entries...)
	events, bytes := 0, 0
	for i, x := range c.entries {
		events += len(x.events)
		if bytes += x.bytes; i >= cacheSessions || events > cacheMaxEvents || bytes > cacheMaxBytes {
			c.entries = c.entries[:i]
			break
		}
	}
}

// has reports whether session has an entry.
func (c *eventCache) has(session int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.ContainsFunc(c.entries, func(x *cachedSession) bool { return x.session == session })
}

// forget drops a session's entry.
func (c *eventCache) forget(session int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = slices.DeleteFunc(c.entries, func(x *cachedSession) bool { return x.session == session })
}

// slice returns the cached events with fromSeq ≤ seq ≤ toSeq, and the
// undecodable rows in that range. The events are the cache's own: callers
// copy them (see detach) and never change them in place.
func (e *cachedSession) slice(fromSeq, toSeq int64) ([]StoredEvent, []Unreadable) {
	lo, _ := slices.BinarySearchFunc(e.events, fromSeq, func(x StoredEvent, seq int64) int { return cmpInt(x.Seq, seq) })
	hi, found := slices.BinarySearchFunc(e.events, toSeq, func(x StoredEvent, seq int64) int { return cmpInt(x.Seq, seq) })
	if found {
		hi++
	}
	var skipped []Unreadable
	for _, u := range e.skipped {
		if u.Seq >= fromSeq && u.Seq <= toSeq {
			skipped = append(skipped, u)
		}
	}
	return e.events[lo:max(lo, hi):max(lo, hi)], skipped
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// encodeChunk is the number of events encoded as one unit of work.
const encodeChunk = 256

// encodedRow is one event ready to insert, or skipped.
type encodedRow struct {
	skip     bool
	thinking bool        // a KindThinking event (skip is set too): kept in ThinkingTable
	failure  bool        // a KindRunFailure event (skip is set too): kept in RunFailureTable
	event    codec.Event // compacted
	data     []byte
	charLen  int64
	// What compaction shortened, kept in FullTextTable: the field, its
	// uncompressed size and its zstd frame; full is nil when nothing was
	// shortened or full text is not kept.
	fullField string
	fullSize  int64
	full      []byte
	fullText  string // full, uncompressed
}

// encodedBatch is a batch of events being encoded in the background, chunk
// by chunk in order, so the inserter can start on the first chunks.
type encodedBatch struct {
	rows   []encodedRow
	done   []chan struct{} // done[k] is closed when chunk k is encoded
	errs   []error
	next   atomic.Int64 // next chunk to encode
	stop   atomic.Bool  // set by finish: skip the remaining chunks
	wg     sync.WaitGroup
	chunks int
	// collect makes insertEvents keep the rows it inserts in stored, as
	// Scan().Events and FullText().Attach would read them back.
	collect bool
	stored  []ScannedEvent
}

// chunk waits for chunk k and returns its rows.
func (b *encodedBatch) chunk(k int) ([]encodedRow, error) {
	<-b.done[k]
	lo := k * encodeChunk
	return b.rows[lo:min(len(b.rows), lo+encodeChunk)], b.errs[k]
}

// finish stops the workers early if the insert gave up, and waits for them.
func (b *encodedBatch) finish() {
	b.stop.Store(true)
	b.wg.Wait()
}
