package store

import (
	"bytes"
	"fmt"
	"sync/atomic"

	"github.com/klauspost/compress/zstd"
	"github.com/lazuli-app/lazuli/codec"
)

// MaxLoadBytes bounds the decoded size of the events one load reads (a
// session, or a range of it): each event is at most MaxEventSize decoded,
// but a few kilobytes of zstd can hold an event of tens of megabytes, so a
// small store could otherwise make a load take gigabytes. A load over the
// bound fails with a *LoadLimitError before decoding the events past it.
// Real sessions stay well below it: 50,000 events of agent work decode to
// 50 to 100 MiB. What a command makes of a load (a transcript, a prompt,
// an export) takes a few times the load's size.
const MaxLoadBytes = 128 << 20

// LoadLimitError reports a load refused because its events decode to more
// than Limit bytes.
type LoadLimitError struct {
	Session int64 // 0: events of several sessions (EventsByID)
	Bytes   int64 // the decoded size of the events asked for, as far as known
	Limit   int64
}

func (e *LoadLimitError) Error() string {
	if e.Session == 0 {
		return fmt.Sprintf("the events asked for hold at least %s of decoded text, more than one load reads (%s): not loaded, to keep memory bounded",
			mib(e.Bytes), mib(e.Limit))
	}
	return fmt.Sprintf("session S%d holds %s of decoded events, more than one load reads (%s): not loaded, to keep memory bounded",
		e.Session, mib(e.Bytes), mib(e.Limit))
}

// mib formats a byte count in MiB, as the limit is set.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

// loadBudget counts the decoded bytes of one load against limit.
type loadBudget struct {
	limit int64
	used  atomic.Int64
	over  atomic.Bool
}

func newLoadBudget(held int64) *loadBudget {
	b := &loadBudget{limit: MaxLoadBytes}
	b.used.Store(held)
	return b
}

// charge adds n decoded bytes and reports whether the load is still within
// its limit.
func (b *loadBudget) charge(n int64) bool {
	if b.used.Add(n) > b.limit {
		b.over.Store(true)
	}
	return !b.over.Load()
}

// declaredSize is the decoded size a payload announces: the content size
// in its zstd frame header, or its own length when it is stored plain. It
// is 0 when a zstd frame does not say; the decoder then counts what it
// decodes. It is 0 too for a payload over MaxEventSize: it is refused
// without being decoded, and costs the load nothing.
func declaredSize(data []byte) int64 {
	if !bytes.HasPrefix(data, codec.ZstdMagic) {
		if len(data) > codec.MaxEventSize {
			return 0
		}
		return int64(len(data))
	}
	var h zstd.Header
	if h.Decode(data) != nil || !h.HasFCS || h.FrameContentSize > codec.MaxEventSize {
		return 0
	}
	return int64(h.FrameContentSize)
}
