package cli

import (
	"bufio"
	"io"
	"time"
)

// lineBuffer buffers a command's output and writes it out at most every
// lineFlushEvery, so that a command printing a line per item (import-native
// prints one per transcript, thousands) makes a few writes, not one per
// line, while a person watching still sees it go. Flush writes the rest.
type lineBuffer struct {
	*bufio.Writer
	last time.Time
}

// lineFlushEvery is how long output may wait in a lineBuffer.
const lineFlushEvery = 100 * time.Millisecond

func newLineBuffer(w io.Writer) *lineBuffer {
	return &lineBuffer{Writer: bufio.NewWriterSize(w, 64<<10), last: time.Now()}
}

// Write buffers p, writing out what is buffered when the last write out
// is lineFlushEvery old.
func (b *lineBuffer) Write(p []byte) (int, error) {
	n, err := b.Writer.Write(p)
	if err == nil && time.Since(b.last) >= lineFlushEvery {
		b.last = time.Now()
		err = b.Flush()
	}
	return n, err
}
