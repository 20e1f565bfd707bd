package parse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"

	"github.com/lazuli-app/lazuli/codec"
)

// ReadAll feeds every line of r to p, over-long lines counted as malformed
// (see EachLine), and returns the events p produced, Finish's included,
// and its stats.
func ReadAll(r io.Reader, p Parser) ([]codec.Event, Stats, error) {
	var events []codec.Event
	err := EachLine(bufio.NewReaderSize(r, 1<<20), func(line []byte, tooLong bool) {
		if tooLong {
			FeedTooLong(p)
			return
		}
		events = append(events, p.Feed(line)...)
	})
	events = append(events, p.Finish()...)
	return events, p.Stats(), err
}

// FeedTooLong counts an over-long line as malformed without parsing it.
func FeedTooLong(p Parser) {
	if c, ok := p.(interface{ SkipLine() }); ok {
		c.SkipLine()
	}
}

// EachLine calls fn for every line of br (terminators and a final '\r'
// removed). Lines longer than MaxLineSize are drained and reported with
// tooLong set and a nil line.
func EachLine(br *bufio.Reader, fn func(line []byte, tooLong bool)) error {
	var long []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if !tooLong {
				long = append(long, chunk...)
				if len(long) > MaxLineSize {
					long, tooLong = nil, true
				}
			}
			continue
		}
		if len(chunk) > 0 || long != nil || tooLong {
			line := chunk
			if long != nil {
				line = append(long, chunk...)
			}
			if !tooLong && len(line) > MaxLineSize {
				tooLong = true
			}
			if tooLong {
				fn(nil, true)
			} else {
				fn(bytes.TrimRight(line, "\r\n"), false)
			}
			long, tooLong = nil, false
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// ReadFile is ReadAll over the file at path.
func ReadFile(path string, p Parser) ([]codec.Event, Stats, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, Stats{}, err
	}
	defer fh.Close()
	return ReadAll(fh, p)
}

// PeekLines returns up to n complete lines from the start of br without
// consuming them (bounded by the reader's buffer).
func PeekLines(br *bufio.Reader, n int) ([][]byte, error) {
	buf, err := br.Peek(br.Size())
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	var lines [][]byte
	for len(buf) > 0 && len(lines) < n {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			lines = append(lines, buf)
			break
		}
		lines = append(lines, bytes.TrimRight(buf[:i], "\r"))
		buf = buf[i+1:]
	}
	return lines, nil
}
