package codec

import (
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// This file holds what a load decodes into: an arena that keeps the
// decoded payloads back to back, and a pool of zstd decoders for the
// goroutines of a load.

// Arena holds decoded payloads back to back in large buffers, and the
// strings that Event.FilePath points to. Bytes handed out are never
// written again by the arena: it only appends. A decoding goroutine may
// give it a zstd decoder of its own (see DecoderPool); without one the
// Store's shared decoder decompresses.
type Arena struct {
	buf  []byte
	strs []string
	Dec  *Codec // nil: the Store's
	Big  bool   // dec decompressed a payload over BigPayload
	Kept int    // bytes of payloads kept, which the events point into
}

// BigPayload is the decoded size from which a pooled zstd decoder is
// dropped after the load rather than kept: its buffers grew with it.
const BigPayload = 1 << 20

// DecoderPool keeps zstd decoders for the goroutines of a load, one each.
// The Store's shared decoder is safe for concurrent use, but it hands its
// state from call to call through a channel, and with every event its own
// zstd frame, two goroutines contending for that channel cost several
// milliseconds per 50,000 events.
type DecoderPool struct {
	mu     sync.Mutex
	free   []*Codec // decoders only: enc is nil
	closed bool
}

// Get returns a decoder, or nil (use the shared one) if none can be made.
func (p *DecoderPool) Get() *Codec {
	p.mu.Lock()
	if n := len(p.free); n > 0 && !p.closed {
		c := p.free[n-1]
		p.free = p.free[:n-1]
		p.mu.Unlock()
		return c
	}
	p.mu.Unlock()
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(MaxEventSize), zstd.WithDecoderLowmem(false))
	if err != nil {
		return nil
	}
	return &Codec{Dec: dec}
}

// Put returns a decoder from Get; at most GOMAXPROCS are kept, and none
// that decompressed a big payload.
func (p *DecoderPool) Put(c *Codec, big bool) {
	if c == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || big || len(p.free) >= runtime.GOMAXPROCS(0) {
		c.Close()
		return
	}
	p.free = append(p.free, c)
}

// Close closes the kept decoders; later Puts close theirs.
func (p *DecoderPool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, c := range p.free {
		c.Close()
	}
	p.free = nil
}

// newString returns a pointer to a copy of s; a nil arena allocates it.
func (a *Arena) newString(s string) *string {
	if a == nil {
		return new(s)
	}
	if len(a.strs) == cap(a.strs) {
		a.strs = make([]string, 0, 256)
	}
	a.strs = append(a.strs, s)
	return &a.strs[len(a.strs)-1]
}

// ArenaBlock is the size of a Arena buffer.
const ArenaBlock = 256 << 10

// Spare returns an empty slice whose capacity is the unused end of the
// current buffer, starting a new buffer when less than want bytes are left.
func (a *Arena) Spare(want int) []byte {
	if cap(a.buf)-len(a.buf) < want {
		a.buf = make([]byte, 0, max(ArenaBlock, want))
	}
	return a.buf[len(a.buf):len(a.buf)]
}

// Keep marks b, returned by an append to Spare(), as used, and returns it
// with its capacity cut to its length. When b outgrew the spare capacity
// it lives in a buffer of its own and the arena is unchanged.
func (a *Arena) Keep(b []byte) []byte {
	a.Kept += len(b)
	n := len(a.buf)
	if len(b) > 0 && len(b) <= cap(a.buf)-n && &a.buf[:n+1][n] == &b[0] {
		a.buf = a.buf[:n+len(b)]
	}
	return b[:len(b):len(b)]
}
