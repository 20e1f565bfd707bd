package codec

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
)

// A zstd frame of a few kilobytes can decode to hundreds of megabytes, and
// it need not say so: AZUREAL's frames, like any a streaming encoder
// writes, carry no content size. Decoding such a payload whole to learn
// that it is over MaxEventSize costs that size in memory, several times
// over while the output grows. checkDecodedSize tells beforehand, from
// what the frames declare: every block decodes to at most blockMax bytes
// (the decoder enforces it), raw and RLE blocks state their size, and a
// frame may state its content size. Only a payload whose blocks could add
// up to more than MaxEventSize is decoded once more without keeping its
// output, counting, to learn its real size.

// ZstdBlockMax is the most one zstd block decodes to (Block_Maximum_Size).
const ZstdBlockMax = 128 << 10

// boundedLen is the payload length up to which no count is needed: every
// block takes at least three bytes, so a payload this short holds at most
// MaxEventSize/blockMax blocks.
const boundedLen = 3 * (MaxEventSize / ZstdBlockMax)

// checkDecodedSize returns ErrEventTooLarge when the zstd frames in data
// decode to more than MaxEventSize, without holding their output. size is
// what they decode to when it had to be counted, else -1.
func checkDecodedSize(data []byte) (size int64, err error) {
	if len(data) <= boundedLen {
		return -1, nil
	}
	bound, ok := decodedBound(data)
	if ok && bound <= MaxEventSize {
		return -1, nil
	}
	if ok && bound == declaredTooLarge {
		return -1, ErrEventTooLarge
	}
	n, err := countDecoded(data, MaxEventSize+1)
	if n > MaxEventSize {
		return -1, ErrEventTooLarge
	}
	if err != nil {
		return -1, fmt.Errorf("zstd: %w", err)
	}
	return n, nil
}

// declaredTooLarge is decodedBound's bound for frames of which one
// declares a content size over MaxEventSize.
const declaredTooLarge = ^uint64(0)

// decodedBound returns the most the frames in data can decode to, from
// their headers and block headers; ok is false when data is not a run of
// whole frames (the decoder will say what is wrong with it).
func decodedBound(data []byte) (bound uint64, ok bool) {
	for len(data) > 0 {
		var h zstd.Header
		rest, err := h.DecodeAndStrip(data)
		if err != nil {
			return 0, false
		}
		if h.Skippable {
			if uint64(len(rest)) < uint64(h.SkippableSize) {
				return 0, false
			}
			data = rest[h.SkippableSize:]
			continue
		}
		if h.HasFCS && h.FrameContentSize > MaxEventSize {
			return declaredTooLarge, true
		}
		frame, n, ok := blocksBound(rest)
		if !ok {
			return 0, false
		}
		if h.HasCheckSum {
			n += 4
		}
		if n > len(rest) {
			return 0, false
		}
		if h.HasFCS {
			frame = min(frame, h.FrameContentSize)
		}
		bound += frame
		data = rest[n:]
	}
	return bound, true
}

// blocksBound walks the blocks of one frame starting at b: the most they
// decode to, and the bytes they take.
func blocksBound(b []byte) (bound uint64, n int, ok bool) {
	for {
		if len(b)-n < 3 {
			return 0, 0, false
		}
		h := uint32(b[n]) | uint32(b[n+1])<<8 | uint32(b[n+2])<<16
		n += 3
		size := int(h >> 3)
		switch (h >> 1) & 3 {
		case 0: // raw
			bound, n = bound+uint64(size), n+size
		case 1: // RLE: one byte repeated size times
			bound, n = bound+uint64(size), n+1
		case 2: // compressed
			bound, n = bound+ZstdBlockMax, n+size
		default:
			return 0, 0, false
		}
		if n > len(b) {
			return 0, 0, false
		}
		if h&1 != 0 { // the frame's last block
			return bound, n, true
		}
	}
}

// countDecoded decodes data as a stream, discarding the output, and
// returns how many bytes it decodes to, stopping at limit. It holds no
// more than the frame's window.
func countDecoded(data []byte, limit int64) (int64, error) {
	dec, err := zstd.NewReader(bytes.NewReader(data), zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderLowmem(true), zstd.WithDecoderMaxMemory(uint64(limit)))
	if err != nil {
		return 0, err
	}
	defer dec.Close()
	n, err := io.CopyN(io.Discard, dec, limit)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
		return limit, nil
	}
	return n, err
}
