package store

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"github.com/lazuli-app/lazuli/codec"
)

// rleBomb is a zstd frame of n RLE blocks of 128 KiB of 'a' each, with no
// content size: 4 bytes per block, so 600 blocks (75 MiB) take 2.4 KB.
func rleBomb(n int) []byte {
	b := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x38} // magic, no content size, window 128 KiB
	for i := range n {
		h := uint32(codec.ZstdBlockMax)<<3 | 1<<1 // RLE
		if i == n-1 {
			h |= 1 // last
		}
		b = append(b, byte(h), byte(h>>8), byte(h>>16), 'a')
	}
	return b
}

// repeated reads 'a' forever.
type repeated struct{}

func (repeated) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

// streamedEvent is an AssistantText payload whose text is n bytes of 'a',
// compressed as a stream (as AZUREAL's encoder writes, with no content
// size unless declare is set), without holding the text in memory.
// flushEvery > 0 ends a block after that many bytes of text.
func streamedEvent(t testing.TB, n int64, declare bool, flushEvery int64) []byte {
	t.Helper()
	prefix, suffix := `{"AssistantText":{"text":"`, `"}}`
	var buf bytes.Buffer
	w, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	if declare {
		w.ResetContentSize(&buf, int64(len(prefix))+n+int64(len(suffix)))
	} else {
		w.Reset(&buf)
	}
	write := func(r io.Reader) {
		if _, err := io.Copy(w, r); err != nil {
			t.Fatal(err)
		}
	}
	write(strings.NewReader(prefix))
	for left := n; left > 0; {
		step := left
		if flushEvery > 0 {
			step = min(left, flushEvery)
		}
		write(io.LimitReader(repeated{}, step))
		if flushEvery > 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
		}
		left -= step
	}
	write(strings.NewReader(suffix))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// allocated returns the bytes the process allocated while f ran.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestPayloadBombRefusedUnread: a payload that decodes to more than
// MaxEventSize is refused with ErrEventTooLarge without its output being
// allocated: from the size its frame declares, from its block headers, or
// (a frame of compressed blocks that does not say) by counting what it
// decodes to without keeping it. Frames whose blocks could add up to more
// but do not still decode.
func TestPayloadBombRefusedUnread(t *testing.T) {
	const over = codec.MaxEventSize + 16<<20
	tests := []struct {
		name    string
		data    []byte
		want    error // nil: decodes to an event
		maxHeap uint64
	}{
		{"RLE blocks, no content size", rleBomb(600), codec.ErrEventTooLarge, 1 << 20},
		{"compressed, no content size", streamedEvent(t, over, false, 0), codec.ErrEventTooLarge, 24 << 20},
		{"compressed, content size declared", streamedEvent(t, over, true, 0), codec.ErrEventTooLarge, 1 << 20},
		{"600 small blocks of 1 KiB", streamedEvent(t, 600<<10, false, 1<<10), nil, 24 << 20},
		{"8 MiB in 1,024 blocks", streamedEvent(t, 8<<20, false, 8<<10), nil, 24 << 20},
	}
	c, err := codec.New()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var (
				js   []byte
				perr error
			)
			heap := allocated(func() { js, perr = c.PayloadTo(nil, tc.data) })
			if !errors.Is(perr, tc.want) || (tc.want == nil && perr != nil) {
				t.Fatalf("payloadTo(%d-byte frame) = %v, want %v", len(tc.data), perr, tc.want)
			}
			if tc.want == nil {
				if _, err := codec.DecodeEventJSON(js); err != nil {
					t.Errorf("DecodeEventJSON = %v", err)
				}
			}
			t.Logf("payloadTo(%d-byte frame): %v, %.1f MiB allocated", len(tc.data), perr, float64(heap)/(1<<20))
			if heap > tc.maxHeap {
				t.Errorf("payloadTo(%d-byte frame) allocated %d MiB, want at most %d MiB", len(tc.data), heap>>20, tc.maxHeap>>20)
			}
		})
	}
}

// TestDeclaredBombsCostTheLoadNothing: rows whose frames declare more than
// MaxEventSize are refused without being decoded, so they do not count
// against the load's bound (MaxLoadBytes): three of them do not make the
// session's other events unloadable.
func TestDeclaredBombsCostTheLoadNothing(t *testing.T) {
	ctx := context.Background()
	s := mustOpen(t)
	sess := mustCreateSession(t, s, "main", "bombs")
	mustAppend(t, s, sess.ID, codec.UserMessage("before"), codec.AssistantText("x"), codec.AssistantText("x"), codec.AssistantText("x"), codec.AssistantText("after"))
	path := s.Path()
	s.Close()
	bomb := hex.EncodeToString(streamedEvent(t, codec.MaxEventSize+16<<20, true, 0))
	execRaw(t, path, "UPDATE events SET data = X'"+bomb+"' WHERE seq IN (2, 3, 4)")
	s = mustOpenPath(t, path)
	r, err := s.Events().Load(ctx, sess.ID, 0, 0)
	if err != nil || len(r.Events) != 2 || r.Skipped != 3 {
		t.Fatalf("Load = %d events, %d skipped, %v; want 2, 3, nil", len(r.Events), r.Skipped, err)
	}
}
