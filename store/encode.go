package store

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"

	"github.com/lazuli-app/lazuli/codec"
)

// encodeAsync starts encoding events with up to GOMAXPROCS workers, each
// with its own zstd encoder. A single chunk is encoded before it returns.
func (r *eventRows) encodeAsync(events []codec.Event) *encodedBatch {
	return r.encode(events, runtime.GOMAXPROCS(0))
}

// encodeNow encodes events on the calling goroutine.
func (r *eventRows) encodeNow(events []codec.Event) *encodedBatch {
	return r.encode(events, 0)
}

// encode encodes events with up to workers goroutines; with none, or a
// single chunk, on the calling goroutine before it returns.
func (r *eventRows) encode(events []codec.Event, workers int) *encodedBatch {
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
	if b.chunks == 1 || workers == 0 {
		work()
		return b
	}
	for range min(workers, b.chunks) {
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

// encodeEvent applies spec §2.1 steps 2.1–2.5 to one event.
// With keepFull, what compaction shortened is kept for FullTextTable (up
// to MaxEventSize).
func encodeEvent(cd *codec.Codec, e codec.Event, keepFull bool) (encodedRow, error) {
	if e.Kind == codec.KindThinking { // kept in ThinkingTable, never in events
		return encodedRow{skip: true, thinking: e.Text != "", event: e}, nil
	}
	if e.Kind == codec.KindRunFailure { // kept in RunFailureTable, never in events
		e.Text = runFailureText(e.Text)
		return encodedRow{skip: true, failure: e.Text != "", event: e}, nil
	}
	c, keep := storedForm(e)
	if !keep {
		return encodedRow{skip: true}, nil
	}
	js, charLen, err := codec.EncodeCompacted(c)
	if err != nil {
		return encodedRow{}, err
	}
	r := encodedRow{event: c, data: cd.Compress(js), charLen: charLen}
	if keepFull {
		if field, text, ok := fullTextOf(e, c); ok && len(text) <= codec.MaxEventSize {
			r.fullField, r.fullSize, r.full, r.fullText = field, int64(len(text)), codec.CompressText(text), text
		}
	}
	return r, nil
}

// storedForm is the event a row of events stores for e (compacted), and
// false when e stores no row there (thinking is kept in ThinkingTable).
func storedForm(e codec.Event) (codec.Event, bool) {
	if e.Kind == codec.KindFiltered || e.Kind == codec.KindMayBeCompacting || e.Kind == codec.KindThinking || e.Kind == codec.KindRunFailure {
		return codec.Event{}, false
	}
	c := codec.CompactEvent(e)
	if e.Kind == codec.KindUserMessage && c.Content == "" && (codec.HasContextTag(e.Content) || codec.IsHiddenCodexContext(e.Content)) {
		return codec.Event{}, false
	}
	return c, true
}

// fullTextOf returns what compaction removed from e (c is CompactEvent(e)):
// the field and its full text, or ok false when nothing was shortened.
func fullTextOf(e, c codec.Event) (field, text string, ok bool) {
	switch e.Kind {
	case codec.KindToolResult:
		// Compaction always trims trailing white space; only a cut that
		// loses more is worth keeping.
		if c.Content != codec.TrimEnd(e.Content) {
			return FullContent, e.Content, true
		}
	case codec.KindToolCall:
		if e.ToolName != "Write" && e.ToolName != "write" {
			return "", "", false
		}
		var in struct {
			Content *string `json:"content"`
		}
		if json.Unmarshal(e.Input, &in) != nil || in.Content == nil || *in.Content == "" {
			return "", "", false
		}
		return FullWriteContent, *in.Content, true
	}
	return "", "", false
}

// runFailureText is what RunFailureTable keeps of a reason.
func runFailureText(reason string) string {
	reason = strings.TrimSpace(reason)
	if len(reason) > MaxRunFailureLen {
		cut := len(reason) - MaxRunFailureLen
		for cut < len(reason) && reason[cut]&0xC0 == 0x80 { // a UTF-8 continuation byte
			cut++
		}
		reason = "…" + reason[cut:]
	}
	return reason
}
