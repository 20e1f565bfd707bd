package listcache

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// The counts Sessions().List reports are kept on disk between runs, in
// Lazuli's cache folder (store.CacheDir()/list/store.CacheKey(path).list,
// the file New is given), not in the
// user's file: no index of AZUREAL's schema covers them, and its schema
// must stay as it is. A Store's first list loads them and checks them
// against the file inside its read transaction before trusting them (see
// Cache.load); the incremental refresh then folds in what changed since.
// Anything doubtful, a damaged cache file included, means a full recount,
// which writes the file anew. Nothing here is needed for correctness:
// deleting the folder only costs one full count per store.

// listFileVersion is the layout of the cache file; other versions are
// ignored (and replaced).
const listFileVersion = 2

// listMagic starts every list cache file.
const listMagic = "lazuli list counts\n"

// listMaxFile bounds the cache file Lazuli reads: far more than 100,000
// sessions need.
const listMaxFile = 64 << 20

// listState is what the cache file holds: the counts, and the facts of the
// file they were counted in, all read in one transaction.
type listState struct {
	stamp    Stamp        // the header's change counter and page count
	file     FileID       // the file's inode, size and mtime
	sessions []sessionKey // every sessions row, in id order
	last     eventKey     // the row at lastID (zero when lastID is 0)
	lastID   int64
	total    int64
	proof    contentProof // of the rows up to lastID
	aggs     map[int64]Agg
}

// sessionKey identifies a sessions row: ids can be reused, created tells
// the rows apart.
type sessionKey struct {
	id      int64
	created string
}

// eventKey is what identifies an events row besides its id.
type eventKey struct{ session, seq, charLen int64 }

// readFacts reads the facts of f for a listState in q's transaction.
func readFacts(ctx context.Context, q Querier, f File, lastID int64) (Stamp, []sessionKey, eventKey, error) {
	h, err := f.Header(ctx, q)
	if err != nil {
		return Stamp{}, nil, eventKey{}, err
	}
	keys, err := sessionKeys(ctx, q)
	if err != nil {
		return Stamp{}, nil, eventKey{}, err
	}
	last, err := eventAt(ctx, q, lastID)
	return StampOf(&h), keys, last, err
}

// sessionKeys returns every sessions row's key, in id order.
func sessionKeys(ctx context.Context, q Querier) ([]sessionKey, error) {
	rows, err := q.QueryContext(ctx, "SELECT id, COALESCE(CAST(created AS TEXT), '') FROM sessions ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var keys []sessionKey
	for rows.Next() {
		var k sessionKey
		if err := rows.Scan(&k.id, &k.created); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

// eventAt returns the key of the events row with the given id; zero for
// id 0, and errNoEvent when there is no such row.
func eventAt(ctx context.Context, q Querier, id int64) (eventKey, error) {
	var k eventKey
	if id == 0 {
		return k, nil
	}
	err := q.QueryRowContext(ctx, "SELECT COALESCE(session_id, 0), COALESCE(seq, 0), "+CharLenColumn+" FROM events WHERE id = ?", id).Scan(&k.session, &k.seq, &k.charLen)
	if err == nil {
		return k, nil
	}
	if errors.Is(err, sql.ErrNoRows) {
		err = errNoEvent
	}
	return k, err
}

// errNoEvent reports that the row a cache file names is gone.
var errNoEvent = errors.New("the last counted event is gone")

// keptSessions reports whether every session of old is in now with the
// same created time. Both are in id order; now may have more.
func keptSessions(old, now []sessionKey) bool {
	j := 0
	for _, k := range old {
		for j < len(now) && now[j].id < k.id {
			j++
		}
		if j == len(now) || now[j] != k {
			return false
		}
	}
	return true
}

// encode returns the cache file's content: the magic string, the version,
// the state, and a CRC-32 of everything before it.
func (st *listState) encode() []byte {
	b := append(make([]byte, 0, 64+len(st.sessions)*32+len(st.aggs)*24), listMagic...)
	b = binary.AppendUvarint(b, listFileVersion)
	b = binary.AppendUvarint(b, uint64(st.stamp.Counter))
	b = binary.AppendUvarint(b, uint64(st.stamp.Pages))
	b = appendBool(b, st.stamp.Trusted)
	b = binary.AppendUvarint(b, st.file.Dev)
	b = binary.AppendUvarint(b, st.file.Ino)
	b = binary.AppendVarint(b, st.file.Size)
	b = binary.AppendVarint(b, st.file.MTime)
	b = append(b, st.proof[:]...)
	b = binary.AppendVarint(b, st.lastID)
	b = binary.AppendVarint(b, st.total)
	b = binary.AppendVarint(b, st.last.session)
	b = binary.AppendVarint(b, st.last.seq)
	b = binary.AppendVarint(b, st.last.charLen)
	b = binary.AppendUvarint(b, uint64(len(st.sessions)))
	for _, k := range st.sessions {
		b = binary.AppendVarint(b, k.id)
		b = binary.AppendUvarint(b, uint64(len(k.created)))
		b = append(b, k.created...)
	}
	b = binary.AppendUvarint(b, uint64(len(st.aggs)))
	for _, id := range slices.Sorted(maps.Keys(st.aggs)) {
		a := st.aggs[id]
		for _, v := range []int64{id, a.Count, a.Msgs, a.MaxID, a.Chars, a.AfterSeq, a.BadSeqs} {
			b = binary.AppendVarint(b, v)
		}
		b = appendBool(b, a.Compacted)
		b = appendBool(b, a.Overflow)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// errBadListFile reports a cache file that is damaged, truncated or of
// another version.
var errBadListFile = errors.New("unusable list cache file")

// decodeListState parses a cache file's content.
func decodeListState(data []byte) (*listState, error) {
	if len(data) < len(listMagic)+4 || string(data[:len(listMagic)]) != listMagic {
		return nil, errBadListFile
	}
	body := data[:len(data)-4]
	if crc32.ChecksumIEEE(body) != binary.LittleEndian.Uint32(data[len(body):]) {
		return nil, errBadListFile
	}
	r := listReader{b: body[len(listMagic):]}
	if r.uint() != listFileVersion {
		return nil, errBadListFile
	}
	st := &listState{stamp: Stamp{Counter: uint32(r.uint()), Pages: uint32(r.uint()), Trusted: r.bool()}}
	st.file = FileID{Dev: r.uint(), Ino: r.uint(), Size: r.int(), MTime: r.int()}
	r.bytes(st.proof[:])
	st.lastID, st.total = r.int(), r.int()
	st.last = eventKey{session: r.int(), seq: r.int(), charLen: r.int()}
	n := r.count(2)
	st.sessions = make([]sessionKey, 0, n)
	for range n {
		k := sessionKey{id: r.int(), created: r.str()}
		if m := len(st.sessions); m > 0 && st.sessions[m-1].id >= k.id {
			r.err = errBadListFile // not in id order
		}
		st.sessions = append(st.sessions, k)
	}
	n = r.count(9)
	st.aggs = make(map[int64]Agg, n)
	for range n {
		id := r.int()
		st.aggs[id] = Agg{Count: r.int(), Msgs: r.int(), MaxID: r.int(), Chars: r.int(), AfterSeq: r.int(),
			BadSeqs: r.int(), Compacted: r.bool(), Overflow: r.bool()}
	}
	if r.err != nil || len(r.b) != 0 || len(st.aggs) != n {
		return nil, errBadListFile
	}
	if !bytes.Equal(st.encode(), data) { // only what encode writes: canonical varints, sorted ids
		return nil, errBadListFile
	}
	return st, nil
}

// listReader reads the varints of a cache file; the first error sticks
// and every later read returns zero.
type listReader struct {
	b   []byte
	err error
}

func (r *listReader) uint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 || r.err != nil {
		r.err, r.b = errBadListFile, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *listReader) int() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 || r.err != nil {
		r.err, r.b = errBadListFile, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *listReader) bool() bool {
	if len(r.b) == 0 || r.b[0] > 1 || r.err != nil {
		r.err, r.b = errBadListFile, nil
		return false
	}
	v := r.b[0] == 1
	r.b = r.b[1:]
	return v
}

// bytes fills b with the next len(b) bytes.
func (r *listReader) bytes(b []byte) {
	if len(r.b) < len(b) || r.err != nil {
		r.err, r.b = errBadListFile, nil
		return
	}
	copy(b, r.b)
	r.b = r.b[len(b):]
}

func (r *listReader) str() string {
	n := r.uint()
	if n > uint64(len(r.b)) {
		r.err, r.b = errBadListFile, nil
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

// count reads a number of items that take at least size bytes each, and
// fails when the rest of the file is too short for them.
func (r *listReader) count(size int) int {
	n := r.uint()
	if n > uint64(len(r.b)/size) {
		r.err, r.b = errBadListFile, nil
		return 0
	}
	return int(n)
}

// listDisk reads and writes one Store's cache file. Writes run in the
// background, one at a time, newest content last; Close waits for them.
type listDisk struct {
	file string // "" when there is no cache folder

	wg      sync.WaitGroup
	mu      sync.Mutex // guards the fields below
	pending []byte     // content to write next
	busy    bool       // a writer goroutine runs
	pruned  bool       // the folder was pruned (once per Store)
	closed  bool
}

// newListDisk returns the cache file at file; "" is none (no cache
// folder: every first list counts).
func newListDisk(file string) *listDisk {
	return &listDisk{file: file}
}

// enabled reports whether there is a cache file to use; d may be nil.
func (d *listDisk) enabled() bool { return d != nil && d.file != "" }

// read returns the cache file's state, or an error when there is none or
// it is unusable.
func (d *listDisk) read() (*listState, error) {
	if !d.enabled() {
		return nil, os.ErrNotExist
	}
	f, err := os.Open(d.file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, listMaxFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > listMaxFile {
		return nil, errBadListFile
	}
	return decodeListState(data)
}

// save writes data to the cache file in the background, replacing what an
// earlier save has not written yet.
func (d *listDisk) save(data []byte) {
	if !d.enabled() {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	d.pending = data
	if !d.busy {
		d.busy = true
		d.wg.Go(d.writeLoop)
	}
}

// writeLoop writes pending content until there is none. The first write
// also prunes the folder (see pruneListDir).
func (d *listDisk) writeLoop() {
	for {
		d.mu.Lock()
		data := d.pending
		d.pending = nil
		prune := !d.pruned
		d.pruned = true
		if data == nil {
			d.busy = false
			d.mu.Unlock()
			return
		}
		d.mu.Unlock()
		_ = writeAtomic(d.file, data) // best effort: a missing cache only costs a recount
		if prune {
			pruneListDir(filepath.Dir(d.file), time.Now())
		}
	}
}

// How long files stay in the list cache folder without being written: a
// store that was moved or deleted leaves its file behind, and a crash in
// the middle of a write leaves a temporary file.
const (
	listKeep    = 60 * 24 * time.Hour
	listTmpKeep = time.Hour
)

// pruneListDir removes the cache files of dir not written for listKeep,
// and temporary files older than listTmpKeep. A store in use whose file
// was pruned because nothing changed for that long counts once, afresh.
func pruneListDir(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		keep := listKeep
		switch name := e.Name(); {
		case strings.HasSuffix(name, ".tmp"):
			keep = listTmpKeep
		case !strings.HasSuffix(name, ".list"):
			continue
		}
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && now.Sub(info.ModTime()) > keep {
			_ = os.Remove(filepath.Join(dir, e.Name())) // best effort, like the rest of the cache
		}
	}
}

// wait waits for the writes under way.
func (d *listDisk) wait() { d.wg.Wait() }

// close waits for the writes under way; later saves do nothing.
func (d *listDisk) close() {
	if d == nil {
		return
	}
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.wg.Wait()
}

// writeAtomic replaces path with data: it writes a temporary file in the
// same folder (0600, the folder 0700) and renames it over path, so readers
// see the old content or the new, never a part. Without fsync a crash may
// leave an empty or partial file, which its checksum rejects.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		_ = os.Remove(f.Name()) // best effort: a stray temp file is only clutter
	}
	return err
}
