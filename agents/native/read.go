package native

// This file reads a native transcript for import: all of it the first
// time, and only what was appended since on later imports, with a checksum
// that tells whether the part already imported is still the same.

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/lazuli-app/lazuli/agents/claude"
	"github.com/lazuli-app/lazuli/agents/codex"
	"github.com/lazuli-app/lazuli/agents/parse"
	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// checksumWindow is how much of the head and of the tail of the imported
// part the checksum covers. Native transcripts are append-only; a file that
// was rewritten, truncated or replaced differs in its length, its first
// bytes or the lines just before the imported end, which the window covers
// without reading the whole file on every scan.
const checksumWindow = 16 << 10

// errNativeChanged reports a native file whose imported part changed.
var errNativeChanged = errors.New("the file was rewritten or truncated after it was imported")

// Checksum identifies the first n bytes of f: a hash of n, of the
// first and of the last 16 KiB of those bytes.
func Checksum(f io.ReaderAt, n int64) (string, error) {
	h := sha256.New()
	var size [8]byte
	binary.LittleEndian.PutUint64(size[:], uint64(n))
	h.Write(size[:])
	buf := make([]byte, min(n, checksumWindow))
	for _, off := range []int64{0, max(0, n-checksumWindow)} {
		if _, err := f.ReadAt(buf, off); err != nil && !errors.Is(err, io.EOF) {
			return "", err
		}
		h.Write(buf)
	}
	return "v1:" + hex.EncodeToString(h.Sum(nil)[:16]), nil
}

// State says how a native session compares with a store's record.
type State string

// The states of a native session.
const (
	StateNew        State = "new"        // not imported
	StateNewLines   State = "new lines"  // imported, and lines were added since
	StateUpToDate   State = "imported"   // imported, nothing new
	StateChanged    State = "changed"    // imported, then rewritten or truncated
	StateUnreadable State = "unreadable" // the file cannot be read now
)

// State compares the session and its sub-agents with records (what
// store.NativeService.Imports returned), reading at most a few KiB per file. The
// main transcript decides, then any sub-agent with something to import.
func (n Session) State(records map[store.NativeKey]store.NativeImport) State {
	st := fileState(n, records)
	if st != StateUpToDate {
		return st
	}
	for _, s := range n.Subagents {
		switch fileState(s, records) {
		case StateNew, StateNewLines:
			return StateNewLines
		}
	}
	return StateUpToDate
}

// fileState compares one file with its record.
func fileState(n Session, records map[store.NativeKey]store.NativeImport) State {
	rec, ok := records[n.Key()]
	if !ok {
		return StateNew
	}
	if n.unchangedSince(rec) {
		return StateUpToDate
	}
	f, err := openRegular(n.Path)
	if err != nil {
		return StateUnreadable
	}
	defer f.Close()
	st, err := checkRecord(f, rec)
	switch {
	case errors.Is(err, errNativeChanged):
		return StateChanged
	case err != nil:
		return StateUnreadable
	case st.size == rec.Bytes:
		return StateUpToDate
	}
	if complete, err := hasCompleteLine(f, rec.Bytes); err != nil {
		return StateUnreadable
	} else if complete {
		return StateNewLines
	}
	return StateUpToDate
}

// fileStat is what checkRecord learned: the file's stat.
type fileStat struct {
	size int64
	stat store.FileStat
}

// statOf is an open file's stat as a record keeps it.
func statOf(f *os.File) (store.FileStat, error) {
	fi, err := f.Stat()
	if err != nil {
		return store.FileStat{}, err
	}
	return store.FileStat{Size: fi.Size(), ModTime: fi.ModTime().UnixNano(), Inode: inodeOf(fi)}, nil
}

// checkRecord verifies that the part of f that rec imported is unchanged.
func checkRecord(f *os.File, rec store.NativeImport) (fileStat, error) {
	st, err := statOf(f)
	if err != nil {
		return fileStat{}, err
	}
	fs := fileStat{size: st.Size, stat: st}
	if st.Size < rec.Bytes {
		return fs, errNativeChanged
	}
	sum, err := Checksum(f, rec.Bytes)
	if err != nil {
		return fileStat{}, err
	}
	if sum != rec.Checksum {
		return fs, errNativeChanged
	}
	return fs, nil
}

// hasCompleteLine reports whether f has a newline after offset off.
func hasCompleteLine(f *os.File, off int64) (bool, error) {
	br := bufio.NewReaderSize(io.NewSectionReader(f, off, 1<<62), 64<<10)
	for {
		_, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, io.EOF):
			return false, nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return false, err
		}
	}
}

// nativeRead is a native transcript read for import.
type nativeRead struct {
	events   []codec.Event // the events to store: all, or those after prev
	bytes    int64         // the complete lines read: where the next import goes on
	lines    int64
	checksum string         // Checksum of those bytes
	stat     store.FileStat // the file's, before it was read
	stats    parse.Stats
	usage    []store.Usage // token usage of the lines read (after prev)
	resume   []byte        // what the next import needs to go on from bytes; nil when none
	tail     bool          // only the lines after prev were read
	// subagents are the sub-agents the file holds (Copilot CLI), each
	// with its events after prev; see subagents_infile.go.
	subagents []inFileSub
}

// readNative parses the complete lines of a native transcript. With prev
// (the file's record) it checks that the part already imported is
// unchanged (errNativeChanged otherwise) and returns only the events of the
// lines after it. With resume (what the record keeps for going on, see
// resume.go) it reads only those lines; without, the earlier lines are
// parsed again, without being returned, so that tool results find their
// calls and Codex's doubled messages pair up across the boundary. A last
// line without its newline is being written: it is left for the next
// import.
func readNative(ctx context.Context, n Session, prev *store.NativeImport, resume []byte, opts parse.Options) (nativeRead, error) {
	f, err := openRegular(n.Path)
	if err != nil {
		return nativeRead{}, err
	}
	defer f.Close()
	var r nativeRead
	if r.stat, err = statOf(f); err != nil {
		return nativeRead{}, err
	}
	if prev != nil {
		if _, err := checkRecord(f, *prev); err != nil {
			return nativeRead{}, err
		}
		if prev.Bytes > 0 {
			if fd, before, ok := resumedFeeder(n.Format(), opts, resume); ok {
				return readTail(ctx, f, r, *prev, fd, before)
			}
		}
	}
	fd := newNativeFeeder(n.Format(), opts)
	mark, umark := -1, 0
	if prev == nil || prev.Bytes == 0 {
		mark = 0
	}
	err = eachCompleteLine(ctx, f, func(line []byte, end int64, tooLong bool) error {
		fd.feed(line, tooLong)
		r.bytes, r.lines = end, r.lines+1
		if prev != nil && end == prev.Bytes {
			mark, umark = fd.mark(), len(fd.usage())
			fd.freeze()
		}
		return nil
	})
	if err != nil {
		return nativeRead{}, err
	}
	if mark < 0 { // the record's end is not a line end of this file
		return nativeRead{}, errNativeChanged
	}
	all := fd.events()
	r.stats = fd.stats()
	if prev == nil && len(all) == 0 && r.stats.Malformed > 0 {
		return nativeRead{}, fmt.Errorf("no %s lines found: %w", n.Format(), parse.ErrNotTranscript)
	}
	r.events = storedEvents(all[mark:])
	r.usage = parse.PlaceUsageAfter(r.events, fd.usage()[umark:], parse.CountAnchors(nil, all[:mark]))
	return r, r.finish(f, fd)
}

// readTail reads the lines of f after prev's end with fd, a feeder that
// goes on from there (resumedFeeder; before counts its usage anchors):
// what readNative returns for them, without reading what comes before.
// The caller checked that the part prev imported is unchanged.
func readTail(ctx context.Context, f *os.File, r nativeRead, prev store.NativeImport, fd nativeFeeder, before map[codec.Kind]int) (nativeRead, error) {
	r.tail, r.bytes, r.lines = true, prev.Bytes, prev.Lines
	err := eachCompleteLine(ctx, io.NewSectionReader(f, prev.Bytes, 1<<62), func(line []byte, end int64, tooLong bool) error {
		fd.feed(line, tooLong)
		r.bytes, r.lines = prev.Bytes+end, r.lines+1
		return nil
	})
	if err != nil {
		return nativeRead{}, err
	}
	r.events = storedEvents(fd.events())
	r.stats = fd.stats()
	r.usage = parse.PlaceUsageAfter(r.events, fd.usage(), before)
	return r, r.finish(f, fd)
}

// storedEvents are the events of evs an import stores: not those a later
// line replaced, nor injected context.
func storedEvents(evs []codec.Event) []codec.Event {
	var out []codec.Event
	for _, e := range evs {
		if e.Kind != codec.KindFiltered {
			out = append(out, e)
		}
	}
	return store.FilterInjectedEvents(out)
}

// finish sets the checksum of the bytes read and what the next import
// needs to go on from them.
func (r *nativeRead) finish(f *os.File, fd nativeFeeder) error {
	var err error
	if r.checksum, err = Checksum(f, r.bytes); err != nil {
		return err
	}
	r.resume = fd.resume()
	if sf, ok := fd.(interface{ subagents() []inFileSub }); ok {
		r.subagents = sf.subagents()
	}
	return nil
}

// lineReaders keeps eachCompleteLine's readers (a 1 MiB buffer each)
// between files: an import reads thousands, and allocating (and zeroing)
// a buffer for each was a fifth of what an import allocated.
var lineReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 1<<20) }}

// eachCompleteLine calls fn for every newline-terminated line of r with the
// offset just after it; a final line without a newline is not passed. A
// line longer than MaxLineSize is passed as nil with tooLong set. ctx is
// checked every few thousand lines.
func eachCompleteLine(ctx context.Context, r io.Reader, fn func(line []byte, end int64, tooLong bool) error) error {
	br := lineReaders.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil) // the file is not kept
		lineReaders.Put(br)
	}()
	var (
		long    []byte
		tooLong bool
		off     int64
		count   int
	)
	for {
		chunk, err := br.ReadSlice('\n')
		off += int64(len(chunk))
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			if !tooLong {
				if long = append(long, chunk...); len(long) > parse.MaxLineSize {
					long, tooLong = nil, true
				}
			}
			continue
		case errors.Is(err, io.EOF):
			return nil // a partial last line stays for the next import
		case err != nil:
			return err
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
		}
		tooLong = tooLong || len(line) > parse.MaxLineSize
		if tooLong {
			line = nil
		} else {
			line = trimEOL(line)
		}
		if err := fn(line, off, tooLong); err != nil {
			return err
		}
		long, tooLong = nil, false
		if count++; count%4096 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
}

// trimEOL removes the line terminator ("\n" or "\r\n").
func trimEOL(line []byte) []byte {
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line
}

// nativeFeeder runs a transcript parser and counts, at any line, how many
// events an import that stopped at that line would have stored, so that a
// later import of the same file can drop exactly those.
type nativeFeeder interface {
	feed(line []byte, tooLong bool)
	// mark is the number of events the lines fed so far produce when the
	// input ends there (before the filtering of KindFiltered).
	mark() int
	// freeze says that the lines fed so far were imported before: their
	// events are stored, and no later line may replace or drop one of
	// them nor be dropped in favour of one of them.
	freeze()
	// events ends the input and returns all events, aligned with mark:
	// the first mark() events of any earlier point are the same events.
	events() []codec.Event
	// usage returns the usage rows so far; after events, all of them.
	usage() []parse.UsageRow
	stats() parse.Stats
	// resume is what a later import needs to go on after the lines fed
	// (see resume.go), called after events; nil when the format has none.
	resume() []byte
}

// newNativeFeeder returns the feeder of the source whose format is f
// (Claude's for a format no source has).
func newNativeFeeder(f parse.Format, opts parse.Options) nativeFeeder {
	src, ok := sourceForFormat(f)
	if !ok {
		src = sources[Claude]
	}
	return src.feeder(opts)
}

// claudeFeeder: the Claude transcript parser holds every event until the
// end, and marks a prompt replaced by a later one (a rewind) as
// KindFiltered in place, so its held events only grow.
type claudeFeeder struct{ p *claude.TranscriptParser }

func (c *claudeFeeder) feed(line []byte, tooLong bool) {
	if tooLong {
		c.p.SkipLine()
		return
	}
	c.p.Feed(line)
}

func (c *claudeFeeder) mark() int { return len(c.p.Events()) }

func (c *claudeFeeder) freeze() { c.p.Freeze() }

func (c *claudeFeeder) events() []codec.Event { return c.p.Events() }

func (c *claudeFeeder) stats() parse.Stats { return c.p.Stats() }

func (c *claudeFeeder) usage() []parse.UsageRow { return c.p.Usage() }

func (c *claudeFeeder) resume() []byte { return encodeResume(c.p.State()) }

// codexFeeder: the Codex rollout parser emits events as lines come, except
// a session's Init and what follows it, held until the model is known; an
// input ending there would have released them.
type codexFeeder struct {
	p   *codex.RolloutParser
	out []codec.Event
}

func (c *codexFeeder) feed(line []byte, tooLong bool) {
	if tooLong {
		c.p.SkipLine()
		return
	}
	c.out = append(c.out, c.p.Feed(line)...)
}

func (c *codexFeeder) mark() int {
	if c.p.Pending() {
		return len(c.out) + 1 + len(c.p.Held())
	}
	return len(c.out)
}

// freeze: the Codex parser's only look-back pairs the two copies Codex
// writes of one message; across the boundary the copy stored stands for both.
func (c *codexFeeder) freeze() {}

func (c *codexFeeder) events() []codec.Event {
	c.out = append(c.out, c.p.Finish()...)
	return c.out
}

func (c *codexFeeder) stats() parse.Stats { return c.p.Stats() }

func (c *codexFeeder) usage() []parse.UsageRow { return c.p.Usage() }

// resume: a rollout is read from its start on every import that finds it
// grown (its parser's state is not kept).
func (c *codexFeeder) resume() []byte { return nil }
