package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"time"
)

// sessionAgg holds the per-session counts ListSessions reports.
type sessionAgg struct {
	count, msgs, maxID int64 // rows, UserMessage+AssistantText rows, MAX(events.id)
	chars              int64 // SUM(char_len) for seq > afterSeq
	afterSeq           int64 // latest compaction's after_seq
	compacted          bool  // the session has a compaction
	badSeqs            int64 // rows whose seq is not an integer
	overflow           bool  // chars is too large to be true (see charSum)
}

// damage says why the session cannot be read as it should, or "".
func (a sessionAgg) damage() string {
	switch {
	case a.badSeqs > 0:
		return fmt.Sprintf("%d event(s) have a seq that is not an integer: the session cannot be loaded", a.badSeqs)
	case a.overflow:
		return "char_len values too large to add up: the context size is unknown"
	}
	return ""
}

// listCache keeps the per-session counts between ListSessions calls. Counting
// needs the kind and char_len of every row, which no index covers, so a
// full count reads the whole events table (see rebuildSQL). The cache is kept up to date
// incrementally instead, relying on what AZUREAL's format guarantees: events
// get increasing AUTOINCREMENT ids and are never changed or deleted one by
// one, only with their session. Each refresh folds in the rows with a larger id,
// recounts chars for sessions whose latest compaction moved, and compares the
// total row count; any mismatch (a session deleted by another program)
// triggers a full recount.
//
// The counts also outlive the Store, in a cache file (see listdisk.go): a
// Store's first list starts from them when they check out against the
// file, and saves them after a full count, and after refreshes that changed
// enough to matter (at most every listSaveEvery).
type listCache struct {
	mu     sync.Mutex
	valid  bool
	lastID int64 // largest events.id folded in
	total  int64 // rows counted
	aggs   map[int64]sessionAgg
	// proof is the contentProof of the rows up to proofID, when proved is
	// set. Every refresh first checks that the file still
	// has these rows (see proven): a file replaced by another store's copy
	// while the Store is open (a restored backup) gets a full count.
	proof   contentProof
	proofID int64
	proved  bool

	disk    *listDisk // the cache file; nil keeps the counts in memory only
	loaded  bool      // the cache file was tried
	unsaved int       // rows (and compactions, weighted) folded in since the last save
	urgent  bool      // save at the next list: a full count, or a session deleted
	savedAt time.Time // the last save
	counted int       // full counts made (tests and benchmarks look at it)
}

// When a refresh's changes are worth saving: enough rows that the next
// run's refresh would take a noticeable time, and not too often.
const (
	listSaveRows  = 1000
	listSaveEvery = 10 * time.Second
	movedWeight   = 100 // a moved compaction costs about this many rows to recount
)

// snapshot brings the cache up to date within q's read transaction and
// returns a copy of the per-session counts. A full count uses aux, a
// helper connection pool, for half of the work; aux may be nil.
func (c *listCache) snapshot(ctx context.Context, q querier, info *schemaInfo, aux *sql.DB) (map[int64]sessionAgg, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fresh := c.adopt(ctx, q)
	var err error
	if c.valid && !fresh {
		if c.valid, err = c.proven(ctx, q); c.valid && err == nil {
			err = c.refresh(ctx, q, info)
		}
	}
	if !c.valid || err != nil {
		if err = c.rebuild(ctx, q, info, aux); err != nil {
			c.valid = false
			return nil, err
		}
		c.urgent, c.counted, c.proved = true, c.counted+1, false
	}
	if err := c.prove(ctx, q); err != nil {
		c.valid = false
		return nil, err
	}
	c.maybeSave(ctx, q)
	out := make(map[int64]sessionAgg, len(c.aggs))
	for id, a := range c.aggs {
		out[id] = a
	}
	return out, nil
}

// cached reports whether the counts are at hand without a full count: in
// memory, or in a cache file that belongs to this file (adopted then, and
// brought up to date by the next snapshot).
func (c *listCache) cached(ctx context.Context, q querier) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.adopt(ctx, q) // fresh or not, the snapshot runs in another transaction: it refreshes
	return c.valid
}

// proven reports whether the rows the counts were made of are still in the
// file, checked in q's transaction. c.mu must be held.
func (c *listCache) proven(ctx context.Context, q querier) (bool, error) {
	if !c.proved {
		return false, nil
	}
	p, err := proveContent(ctx, q, c.proofID)
	return err == nil && p == c.proof, err
}

// prove records the contentProof of the rows counted, unless it is at
// hand. c.mu must be held.
func (c *listCache) prove(ctx context.Context, q querier) error {
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
func (c *listCache) adopt(ctx context.Context, q querier) (fresh bool) {
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
// counter and size, see fileStamp, and the same inode, size and mtime, see
// fileID), so no refresh is needed. Counts that lag far behind the file are
// not adopted: folding in rows one by one would be slower than counting
// afresh.
func (c *listCache) load(ctx context.Context, q querier) (fresh bool) {
	st, err := c.disk.read()
	if err != nil {
		return false
	}
	stamp, keys, last, err := readFacts(ctx, q, st.lastID)
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
	id, ok := fileIDOf(c.disk.store)
	return stamp.same(st.stamp) && ok && id == st.file
}

// maybeSave saves the counts to the cache file, with the file's facts read
// in q's transaction, when they changed enough since the last save. The
// file is written in the background.
func (c *listCache) maybeSave(ctx context.Context, q querier) {
	if !c.disk.enabled() || !(c.urgent || (c.unsaved >= listSaveRows && time.Since(c.savedAt) >= listSaveEvery)) {
		return
	}
	stamp, keys, last, err := readFacts(ctx, q, c.lastID)
	id, ok := fileIDOf(c.disk.store) // in q's transaction: no SQLite writer changes it now
	if err != nil || !ok || !c.proved || c.proofID != c.lastID {
		return // the next list tries again
	}
	st := listState{stamp: stamp, file: id, sessions: keys, last: last, lastID: c.lastID, total: c.total, proof: c.proof, aggs: c.aggs}
	c.disk.save(st.encode())
	c.unsaved, c.urgent, c.savedAt = 0, false, time.Now()
}

// deleting runs del, which deletes session id in q's write transaction,
// and keeps the counts in step: they must be proven before (see proven),
// and the proof is made anew after, since the sampled rows may be among
// the deleted ones. c.mu must be held.
func (c *listCache) deleting(ctx context.Context, q querier, id int64, del func() error) error {
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
func (c *listCache) forget(id int64) {
	if a, ok := c.aggs[id]; ok {
		c.total -= a.count
		delete(c.aggs, id)
		c.urgent = true // a next run that did not know would count everything
	}
}

// latestCompactions maps session id to its largest after_seq.
func latestCompactions(ctx context.Context, q querier, info *schemaInfo) (map[int64]int64, error) {
	out := map[int64]int64{}
	if !info.hasTable("compactions") {
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
func (c *listCache) rebuild(ctx context.Context, q querier, info *schemaInfo, aux *sql.DB) error {
	comps, err := latestCompactions(ctx, q, info) // also takes q's read lock first
	if err != nil {
		return err
	}
	if ok, err := c.rebuildSQL(ctx, q, info, comps, aux); err != nil || ok {
		return err
	}
	return c.rebuildScan(ctx, q, comps)
}

// rebuildScan counts everything with one scan of the events table, adding
// each row in Go. comps are the latest compactions.
func (c *listCache) rebuildScan(ctx context.Context, q querier, comps map[int64]int64) error {
	aggs := make(map[int64]sessionAgg, len(comps))
	for id, after := range comps {
		aggs[id] = sessionAgg{afterSeq: after, compacted: true}
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
	charLenColumn + ", id"

// scanMeta reads the eventMeta of a row of metaColumns.
func scanMeta(rows *sql.Rows) (eventMeta, error) {
	var r eventMeta
	var seq sql.NullInt64
	err := rows.Scan(&r.session, &seq, &r.message, &r.charLen, &r.id)
	r.seq, r.badSeq = seq.Int64, !seq.Valid
	return r, err
}

// add counts one row; chars only when countChars is set.
func (a *sessionAgg) add(r eventMeta, countChars bool) {
	a.count++
	if r.message {
		a.msgs++
	}
	if r.badSeq {
		a.badSeqs++
	}
	a.maxID = max(a.maxID, r.id)
	if countChars && (!a.compacted || r.badSeq || r.seq > a.afterSeq) { // SQLite: text > any integer
		sum := a.chars + r.charLen
		if a.overflow = a.overflow || sum >= 1<<53 || sum <= -(1<<53); !a.overflow {
			a.chars = sum
		}
	}
}

// refresh folds in rows added since the last call and compactions that
// moved. It leaves c invalid when the row count does not add up.
func (c *listCache) refresh(ctx context.Context, q querier, info *schemaInfo) error {
	comps, err := latestCompactions(ctx, q, info)
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
		if a.chars, a.overflow, err = sumCharsAfter(ctx, q, id, a.afterSeq, a.compacted); err != nil {
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
func (c *listCache) applyCompactions(comps map[int64]int64) map[int64]bool {
	moved := map[int64]bool{}
	for id, a := range c.aggs {
		after, ok := comps[id]
		if ok != a.compacted || after != a.afterSeq {
			a.afterSeq, a.compacted = after, ok
			c.aggs[id] = a
			moved[id] = true
		}
	}
	for id, after := range comps {
		if _, ok := c.aggs[id]; !ok {
			c.aggs[id] = sessionAgg{afterSeq: after, compacted: true}
			moved[id] = true
		}
	}
	return moved
}

// sumCharsAfter adds up the char_len of a session's rows after its
// compaction (all rows when it has none); overflow reports a total too
// large to be true (see charSum).
func sumCharsAfter(ctx context.Context, q querier, id, afterSeq int64, compacted bool) (n int64, overflow bool, err error) {
	if !compacted {
		afterSeq = minSeq
	}
	var total float64
	err = q.QueryRowContext(ctx, "SELECT "+charTotal+" FROM events WHERE session_id = ? AND seq > ?", id, afterSeq).Scan(&total)
	n, overflow = charSum(total)
	return n, overflow, err
}
