package store

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/lazuli-app/lazuli/codec"
)

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

// encodeAsync starts encoding events with up to GOMAXPROCS workers, each
// with its own zstd encoder. A single chunk is encoded before it returns.
func (r *eventRows) encodeAsync(events []codec.Event) *encodedBatch {
	n := len(events)
	b := &encodedBatch{rows: make([]encodedRow, n), chunks: max(1, (n+encodeChunk-1)/encodeChunk)}
	b.done, b.errs = make([]chan struct{}, b.chunks), make([]error, b.chunks)
	keep := !r.dropFull.Load()
	for k := range b.done {
		b.done[k] = make(chan struct{})
	}
	work := func() {
		cd, err := r.encoders.get()
		defer r.encoders.put(cd)
		for k := int(b.next.Add(1) - 1); k < b.chunks; k = int(b.next.Add(1) - 1) {
			if err != nil || b.stop.Load() {
				b.errs[k] = err
			} else {
				b.errs[k] = encodeRange(cd, events, b.rows, k*encodeChunk, min(n, (k+1)*encodeChunk), keep)
			}
			close(b.done[k])
		}
	}
	if b.chunks == 1 {
		work()
		return b
	}
	for range min(runtime.GOMAXPROCS(0), b.chunks) {
		b.wg.Go(work)
	}
	return b
}

// encodeRange encodes events[lo:hi] into rows[lo:hi].
func encodeRange(cd *codec.Codec, events []codec.Event, rows []encodedRow, lo, hi int, keepFull bool) error {
	for i := lo; i < hi; i++ {
		r, err := encodeEvent(cd, events[i], keepFull)
		if err != nil {
			return fmt.Errorf("encode event %d (%s): %w", i, events[i].Kind, err)
		}
		rows[i] = r
	}
	return nil
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
