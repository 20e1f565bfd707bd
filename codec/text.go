package codec

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"unsafe"

	"github.com/klauspost/compress/s2"
)

// The full texts Lazuli keeps beside the events (store.FullTextTable, a
// table of its own that AZUREAL ignores) are whole tool outputs and Write
// contents, a few kilobytes each and most of what an import stores: on
// Pi's native workload, 61.6 MB of full text beside 17 MB of events. zstd
// at its fastest level compressed them at about 108 MB/s, a fifth of an
// import's CPU; S2 (klauspost/compress/s2, in the same module as the zstd
// package) does it at about 470 MB/s and decodes them about three times
// faster, for 29 % more room (31.8 MB against 24.7 MB). Rows written before
// hold zstd frames, and TextTo reads both.

// textS2 starts a full text stored as an S2 block: a NUL, which begins no
// zstd frame (28 b5 2f fd), then "LS2".
var textS2 = []byte("\x00LS2")

// CompressText returns the stored form of a full text: textS2 and the S2
// block of text (at most MaxEventSize). It encodes into a pooled buffer and returns a copy of
// just the result: a new buffer of MaxEncodedLen for each text was zeroed
// whole and then held, half empty, until the row was written.
func CompressText(text string) []byte {
	bp := textBufs.Get().(*[]byte)
	defer textBufs.Put(bp)
	need := s2.MaxEncodedLen(len(text)) // texts are at most MaxEventSize, far below s2's limit
	if cap(*bp) < need {
		*bp = make([]byte, need)
	}
	enc := s2.Encode((*bp)[:need], unsafe.Slice(unsafe.StringData(text), len(text))) // Encode only reads src
	out := make([]byte, len(textS2)+len(enc))
	copy(out, textS2)
	copy(out[len(textS2):], enc)
	return out
}

// textBufs holds CompressText's buffers.
var textBufs = sync.Pool{New: func() any { return new([]byte) }}

// TextTo appends the full text stored in data to dst: an S2 block after
// textS2, else a zstd frame (PayloadTo). Either is refused, before it is
// decoded, when it would decode to more than MaxEventSize.
func (c *Codec) TextTo(dst, data []byte) ([]byte, error) {
	block, ok := bytes.CutPrefix(data, textS2)
	if !ok {
		return c.PayloadTo(dst, data)
	}
	n, err := s2.DecodedLen(block)
	if err != nil {
		return nil, fmt.Errorf("s2: %w", err)
	}
	if n > MaxEventSize {
		return nil, ErrEventTooLarge
	}
	dst = slices.Grow(dst, n)
	out, err := s2.Decode(dst[len(dst):len(dst)+n], block)
	if err != nil {
		return nil, fmt.Errorf("s2: %w", err)
	}
	if len(out) != n {
		return nil, fmt.Errorf("s2: %d bytes decoded, the block says %d", len(out), n)
	}
	return dst[:len(dst)+n], nil
}
