package listcache

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"sync"
	"time"
)

// Querier runs queries: a *sql.DB, *sql.Tx or *sql.Conn. The cache reads
// the store file only through the Querier its caller passes, inside the
// caller's read (or write) transaction.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// File is the store file the counts belong to, as its owner sees it: the
// cache records both facts in the cache file and compares them with the
// file's before it trusts the counts without a refresh.
type File interface {
	// Header reads the file's 100-byte SQLite header in q's transaction.
	Header(ctx context.Context, q Querier) ([100]byte, error)
	// ID returns what the file system says about the file now; ok is
	// false when it cannot be read.
	ID() (id FileID, ok bool)
}

// Agg holds the per-session counts Sessions().List reports.
type Agg struct {
	Count, Msgs, MaxID int64 // rows, UserMessage+AssistantText rows, MAX(events.id)
	Chars              int64 // SUM(char_len) for seq > AfterSeq
	AfterSeq           int64 // latest compaction's after_seq
	Compacted          bool  // the session has a compaction
	BadSeqs            int64 // rows whose seq is not an integer
	Overflow           bool  // Chars is too large to be true (see CharSum)
}

// Damage says why the session cannot be read as it should, or "".
func (a Agg) Damage() string {
	switch {
	case a.BadSeqs > 0:
		return fmt.Sprintf("%d event(s) have a seq that is not an integer: the session cannot be loaded", a.BadSeqs)
	case a.Overflow:
		return "char_len values too large to add up: the context size is unknown"
	}
	return ""
}

// Cache keeps the per-session counts between Sessions().List calls. Counting
// needs the kind and char_len of every row, which no index covers, so a
// full count reads the whole events table (see rebuildSQL). The cache is kept up to date
// incrementally instead, relying on what AZUREAL's format guarantees: events
// get increasing AUTOINCREMENT ids and are never changed or deleted one by
// one, only with their session. Each refresh folds in the rows with a larger id,
// recounts chars for sessions whose latest compaction moved, and compares the
// total row count; any mismatch (a session deleted by another program)
// triggers a full recount.
//
// The counts also outlive the Store, in a cache file (see disk.go): a
// Store's first list starts from them when they check out against the
// file, and saves them after a full count, and after refreshes that changed
// enough to matter (at most every SaveEvery).
type Cache struct {
	mu     sync.Mutex
	valid  bool
	lastID int64 // largest events.id folded in
	total  int64 // rows counted
	aggs   map[int64]Agg
	// proof is the contentProof of the rows up to proofID, when proved is
	// set. Every refresh first checks that the file still
	// has these rows (see proven): a file replaced by another store's copy
	// while the Store is open (a restored backup) gets a full count.
	proof   contentProof
	proofID int64
	proved  bool

	file    File      // the store file
	disk    *listDisk // the cache file; nil keeps the counts in memory only
	loaded  bool      // the cache file was tried
	unsaved int       // rows (and compactions, weighted) folded in since the last save
	urgent  bool      // save at the next list: a full count, or a session deleted
	savedAt time.Time // the last save
	counted int       // full counts made (tests and benchmarks look at it)
	// seen is the file as it was when the counts were last found to add
	// up with it: while its header's stamp (a trusted one: rollback
	// journal mode) and the file system's facts are the same, the file is
	// unchanged and a refresh would find nothing (see unchanged).
	seen     Stamp
	seenFile FileID
	seenOK   bool
	skipped  int // refreshes left out for an unchanged file (tests look at it)
}

// New returns the counts of the store file f, kept between runs in
// cacheFile; "" keeps them in memory only.
func New(f File, cacheFile string) *Cache {
	return &Cache{file: f, disk: newListDisk(cacheFile)}
}

// Close waits for a cache file write under way; later saves do nothing.
func (c *Cache) Close() { c.disk.close() }

// CacheFile returns the cache file's path ("" when there is none).
func (c *Cache) CacheFile() string { return c.disk.file }

// Counted returns how many full counts the cache made: for tests and
// benchmarks, which tell by it whether a list used the saved counts.
func (c *Cache) Counted() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counted
}

// Wait waits for the cache file writes under way: for tests, which read
// the file.
func (c *Cache) Wait() { c.disk.wait() }

// MarkSaved sets when the counts were last saved: for tests of the save
// policy (SaveRows, SaveEvery), which must not depend on how long a busy
// machine takes between two lists.
func (c *Cache) MarkSaved(at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.savedAt = at
}

// Lock holds the counts still while the caller deletes a session in a
// write transaction (see Deleting). A Snapshot waits meanwhile.
func (c *Cache) Lock() { c.mu.Lock() }

// Unlock ends what Lock began.
func (c *Cache) Unlock() { c.mu.Unlock() }

// When a refresh's changes are worth saving: enough rows that the next
// run's refresh would take a noticeable time, and not too often.
const (
	SaveRows    = 1000             // rows folded in since the last save
	SaveEvery   = 10 * time.Second // since the last save
	movedWeight = 100              // a moved compaction costs about this many rows to recount
)

// Snapshot brings the cache up to date within q's read transaction and
// returns a copy of the per-session counts. compactions tells whether the
// file has a compactions table. A full count uses aux, a helper
// connection pool, for half of the work; aux may be nil.
func (c *Cache) Snapshot(ctx context.Context, q Querier, compactions bool, aux *sql.DB) (map[int64]Agg, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fresh := c.adopt(ctx, q) || c.unchanged(ctx, q)
	var err error
	if c.valid && !fresh {
		if c.valid, err = c.proven(ctx, q); c.valid && err == nil {
			err = c.refresh(ctx, q, compactions)
		}
	}
	if !c.valid || err != nil {
		if err = c.rebuild(ctx, q, compactions, aux); err != nil {
			c.valid = false
			return nil, err
		}
		c.urgent, c.counted, c.proved = true, c.counted+1, false
	}
	if err := c.prove(ctx, q); err != nil {
		c.valid = false
		return nil, err
	}
	c.see(ctx, q)
	c.maybeSave(ctx, q)
	out := make(map[int64]Agg, len(c.aggs))
	for id, a := range c.aggs {
		out[id] = a
	}
	return out, nil
}

// Session returns session id's counts when the cache holds this file's,
// brought up to date within q's read transaction as Snapshot does (a
// session with no events has zero counts); ok is false when it holds none,
// or they no longer add up: it never counts the whole table for one
// session, the caller counts that session's rows instead.
func (c *Cache) Session(ctx context.Context, q Querier, compactions bool, id int64) (a Agg, ok bool, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fresh := c.adopt(ctx, q) || c.unchanged(ctx, q)
	if !c.valid {
		return Agg{}, false, nil
	}
	if !fresh {
		if c.valid, err = c.proven(ctx, q); !c.valid || err != nil {
			c.valid = false
			return Agg{}, false, err
		}
		if err = c.refresh(ctx, q, compactions); err != nil || !c.valid {
			c.valid = false
			return Agg{}, false, err
		}
	}
	if err := c.prove(ctx, q); err != nil {
		c.valid = false
		return Agg{}, false, err
	}
	c.see(ctx, q)
	c.maybeSave(ctx, q)
	return c.aggs[id], true, nil
}

// unchanged reports whether the file is the one the counts last added up
// with, read in q's transaction: the same trusted stamp (every write
// transaction moves SQLite's change counter in rollback-journal mode) and
// the same inode, size and mtime (a copy of another store can have the
// same stamp). It is the cache file's rule for adopting counts without a
// refresh (see load), kept in memory: a refresh of a 1M-row store counts
// the whole table, tens of milliseconds. c.mu must be held.
func (c *Cache) unchanged(ctx context.Context, q Querier) bool {
	if !c.valid || !c.seenOK {
		return false
	}
	h, err := c.file.Header(ctx, q)
	if err != nil {
		return false
	}
	id, ok := c.file.ID() // in q's transaction: no SQLite writer changes it now
	if !ok || id != c.seenFile || !StampOf(&h).Same(c.seen) {
		return false
	}
	c.skipped++
	return true
}

// see records the file the counts add up with now (see unchanged). c.mu
// must be held.
func (c *Cache) see(ctx context.Context, q Querier) {
	h, err := c.file.Header(ctx, q)
	id, ok := c.file.ID()
	c.seen, c.seenFile, c.seenOK = StampOf(&h), id, err == nil && ok && c.valid
}

// Skipped returns how many refreshes were left out because the file was
// unchanged: for tests.
func (c *Cache) Skipped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skipped
}

// Cached reports whether the counts are at hand without a full count: in
// memory, or in a cache file that belongs to this file (adopted then, and
// brought up to date by the next Snapshot).
func (c *Cache) Cached(ctx context.Context, q Querier) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.adopt(ctx, q) // fresh or not, the snapshot runs in another transaction: it refreshes
	return c.valid
}

// proven reports whether the rows the counts were made of are still in the
// file, checked in q's transaction. c.mu must be held.
func (c *Cache) proven(ctx context.Context, q Querier) (bool, error) {
	if !c.proved {
		return false, nil
	}
	p, err := proveContent(ctx, q, c.proofID)
	return err == nil && p == c.proof, err
}

// prove records the contentProof of the rows counted, unless it is at
// hand. c.mu must be held.
func (c *Cache) prove(ctx context.Context, q Querier) error {
	if c.proved && c.proofID == c.lastID {
		return nil
	}
	p, err := proveContent(ctx, q, c.lastID)
	c.proof, c.proofID, c.proved = p, c.lastID, err == nil
	return err
}

// adopt tries the cache file, once per Store, when the counts are not at
// hand (see load); fresh reports counts adopted from an unchanged file.
// c.mu must be held.
func (c *Cache) adopt(ctx context.Context, q Querier) (fresh bool) {
	if c.valid || c.loaded || !c.disk.enabled() {
		return false
	}
	c.loaded = true
	return c.load(ctx, q)
}

// load adopts the counts of the cache file if they belong to this file,
// checked in q's transaction: every session they list must still exist
// with the same created time (ids can be reused), the last row they
// counted must be the same row, and the sampled rows they were counted
// from must hold the same bytes (see contentProof): another store copied
// over the path can match on everything else. The refresh that follows
// corrects for anything appended, compacted or deleted since, and falls
// back to a full count when the row count does not add up. fresh reports
// that the file is unchanged since the counts were saved (the same change
// counter and size, see Stamp, and the same inode, size and mtime, see
// FileID), so no refresh is needed. Counts that lag far behind the file are
// not adopted: folding in rows one by one would be slower than counting
// afresh.
func (c *Cache) load(ctx context.Context, q Querier) (fresh bool) {
	st, err := c.disk.read()
	if err != nil {
		return false
	}
	stamp, keys, last, err := readFacts(ctx, q, c.file, st.lastID)
	if err != nil || last != st.last || !keptSessions(st.sessions, keys) {
		return false
	}
	var maxID int64
	if err := q.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) FROM events").Scan(&maxID); err != nil ||
		maxID < st.lastID || maxID-st.lastID > max(st.total/2, 10_000) {
		return false
	}
	if p, err := proveContent(ctx, q, st.lastID); err != nil || p != st.proof {
		return false
	}
	c.aggs, c.lastID, c.total, c.valid = st.aggs, st.lastID, st.total, true
	c.proof, c.proofID, c.proved = st.proof, st.lastID, true
	id, ok := c.file.ID()
	return stamp.Same(st.stamp) && ok && id == st.file
}

// maybeSave saves the counts to the cache file, with the file's facts read
// in q's transaction, when they changed enough since the last save. The
// file is written in the background.
func (c *Cache) maybeSave(ctx context.Context, q Querier) {
	if !c.disk.enabled() || !(c.urgent || (c.unsaved >= SaveRows && time.Since(c.savedAt) >= SaveEvery)) {
		return
	}
	stamp, keys, last, err := readFacts(ctx, q, c.file, c.lastID)
	id, ok := c.file.ID() // in q's transaction: no SQLite writer changes it now
	if err != nil || !ok || !c.proved || c.proofID != c.lastID {
		return // the next list tries again
	}
	st := listState{stamp: stamp, file: id, sessions: keys, last: last, lastID: c.lastID, total: c.total, proof: c.proof, aggs: c.aggs}
	c.disk.save(st.encode())
	c.unsaved, c.urgent, c.savedAt = 0, false, time.Now()
}

// Deleting runs del, which deletes session id in q's write transaction,
// and keeps the counts in step: they must be proven before (see proven),
// and the proof is made anew after, since the sampled rows may be among
// the deleted ones. The caller holds Lock from before the transaction
// began.
func (c *Cache) Deleting(ctx context.Context, q Querier, id int64, del func() error) error {
	ok, err := c.proven(ctx, q)
	if err != nil {
		return err
	}
	if err := del(); err != nil {
		return err
	}
	c.valid = c.valid && ok
	if c.valid {
		c.forget(id)
		c.proved = false
		c.valid = c.prove(ctx, q) == nil // a count afresh at the next list
	}
	return nil
}

// forget drops a session this Store deleted. c.mu must be held.
func (c *Cache) forget(id int64) {
	if a, ok := c.aggs[id]; ok {
		c.total -= a.Count
		delete(c.aggs, id)
		c.urgent = true // a next run that did not know would count everything
	}
}

// latestCompactions maps session id to its largest after_seq.
func latestCompactions(ctx context.Context, q Querier, compactions bool) (map[int64]int64, error) {
	out := map[int64]int64{}
	if !compactions {
		return out, nil
	}
	rows, err := q.QueryContext(ctx, "SELECT session_id, MAX(after_seq) FROM compactions GROUP BY session_id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, after int64
		if err := rows.Scan(&id, &after); err != nil {
			return nil, err
		}
		out[id] = after
	}
	return out, rows.Err()
}

// rebuild counts everything, with SQL aggregates (see rebuildSQL) or, when
// some char_len is not an integer, with one scan of the events table.
func (c *Cache) rebuild(ctx context.Context, q Querier, compactions bool, aux *sql.DB) error {
	comps, err := latestCompactions(ctx, q, compactions) // also takes q's read lock first
	if err != nil {
		return err
	}
	if ok, err := c.rebuildSQL(ctx, q, compactions, comps, aux); err != nil || ok {
		return err
	}
	return c.rebuildScan(ctx, q, comps)
}

// rebuildScan counts everything with one scan of the events table, adding
// each row in Go. comps are the latest compactions.
func (c *Cache) rebuildScan(ctx context.Context, q Querier, comps map[int64]int64) error {
	aggs := make(map[int64]Agg, len(comps))
	for id, after := range comps {
		aggs[id] = Agg{AfterSeq: after, Compacted: true}
	}
	rows, err := q.QueryContext(ctx, "SELECT "+metaColumns+" FROM events")
	if err != nil {
		return err
	}
	defer rows.Close()
	var lastID, total int64
	for rows.Next() {
		r, err := scanMeta(rows)
		if err != nil {
			return err
		}
		a := aggs[r.session]
		a.add(r, true)
		aggs[r.session] = a
		lastID, total = max(lastID, r.id), total+1
	}
	if err := rows.Err(); err != nil {
		return err
	}
	c.aggs, c.lastID, c.total, c.valid = aggs, lastID, total, true
	return nil
}

// eventMeta is the part of an events row the counts need.
type eventMeta struct {
	session, seq, charLen, id int64
	message                   bool // kind is UserMessage or AssistantText
	badSeq                    bool // seq is not an integer
}

// metaColumns selects an eventMeta (see scanMeta).
const metaColumns = "session_id, CASE typeof(seq) WHEN 'integer' THEN seq END, kind IN ('UserMessage', 'AssistantText'), " +
	CharLenColumn + ", id"

// scanMeta reads the eventMeta of a row of metaColumns.
func scanMeta(rows *sql.Rows) (eventMeta, error) {
	var r eventMeta
	var seq sql.NullInt64
	err := rows.Scan(&r.session, &seq, &r.message, &r.charLen, &r.id)
	r.seq, r.badSeq = seq.Int64, !seq.Valid
	return r, err
}

// add counts one row; chars only when countChars is set.
func (a *Agg) add(r eventMeta, countChars bool) {
	a.Count++
	if r.message {
		a.Msgs++
	}
	if r.badSeq {
		a.BadSeqs++
	}
	a.MaxID = max(a.MaxID, r.id)
	if countChars && (!a.Compacted || r.badSeq || r.seq > a.AfterSeq) { // SQLite: text > any integer
		sum := a.Chars + r.charLen
		if a.Overflow = a.Overflow || sum >= 1<<53 || sum <= -(1<<53); !a.Overflow {
			a.Chars = sum
		}
	}
}

// refresh folds in rows added since the last call and compactions that
// moved. It leaves c invalid when the row count does not add up.
func (c *Cache) refresh(ctx context.Context, q Querier, compactions bool) error {
	comps, err := latestCompactions(ctx, q, compactions)
	if err != nil {
		return err
	}
	moved := c.applyCompactions(comps)
	rows, err := q.QueryContext(ctx, "SELECT "+metaColumns+" FROM events WHERE id > ? ORDER BY id", c.lastID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		r, err := scanMeta(rows)
		if err != nil {
			return err
		}
		a := c.aggs[r.session]
		a.add(r, !moved[r.session])
		c.aggs[r.session] = a
		c.lastID, c.total = max(c.lastID, r.id), c.total+1
		c.unsaved++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	c.unsaved += movedWeight * len(moved)
	for id := range moved {
		a := c.aggs[id]
		if a.Chars, a.Overflow, err = SumCharsAfter(ctx, q, id, a.AfterSeq, a.Compacted); err != nil {
			return err
		}
		c.aggs[id] = a
	}
	var total int64
	if err := q.QueryRowContext(ctx, "SELECT COUNT(*) FROM events").Scan(&total); err != nil {
		return err
	}
	c.valid = total == c.total
	return nil
}

// applyCompactions records each session's latest after_seq and returns the
// sessions whose value changed (their chars must be recounted).
func (c *Cache) applyCompactions(comps map[int64]int64) map[int64]bool {
	moved := map[int64]bool{}
	for id, a := range c.aggs {
		after, ok := comps[id]
		if ok != a.Compacted || after != a.AfterSeq {
			a.AfterSeq, a.Compacted = after, ok
			c.aggs[id] = a
			moved[id] = true
		}
	}
	for id, after := range comps {
		if _, ok := c.aggs[id]; !ok {
			c.aggs[id] = Agg{AfterSeq: after, Compacted: true}
			moved[id] = true
		}
	}
	return moved
}

// SumCharsAfter adds up the char_len of a session's rows after its
// compaction (all rows when it has none); overflow reports a total too
// large to be true (see CharSum).
func SumCharsAfter(ctx context.Context, q Querier, id, afterSeq int64, compacted bool) (n int64, overflow bool, err error) {
	if !compacted {
		afterSeq = math.MinInt64
	}
	var total float64
	err = q.QueryRowContext(ctx, "SELECT "+charTotal+" FROM events WHERE session_id = ? AND seq > ?", id, afterSeq).Scan(&total)
	n, overflow = CharSum(total)
	return n, overflow, err
}
