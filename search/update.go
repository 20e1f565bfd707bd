package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/indexdb"
	"github.com/lazuli-app/lazuli/store"
)

// Stats says what an Update or Rebuild did.
type Stats struct {
	Events      int64 // event rows read from the store
	Indexed     int64 // rows added to the index: events with text, and compaction summaries
	Compactions int64 // compaction summaries among them
	TextBytes   int64 // bytes of text indexed
	Purged      int   // deleted sessions whose rows were removed
	// Rebuilt reports that the index was started over: a new file, a
	// damaged one, another store at the same path, or Rebuild.
	Rebuilt bool
	// Damaged reports that the index was found damaged (see ErrDamaged)
	// and started over: tell the user once.
	Damaged bool
	// Fed counts the rows a Feed indexed as the importer handed them
	// over, without reading them from the store (Feed.Close sets it).
	Fed int64
	// Unchanged reports that the store was as the index's last complete
	// Update left it (store.ScanService.Version): nothing was read.
	Unchanged bool
	Elapsed   time.Duration
}

// Progress receives how far an Update has got: done of total events (as
// spans of ids, an estimate). It is called after each transaction
// commits (about every second while building), on the goroutine that
// called Update.
type Progress func(done, total int64)

// marks are the index's high-water marks, kept in its meta table and
// moved in the same transaction as the rows they describe. The events with
// lo ≤ id ≤ hi are indexed (lo 0: every event up to hi), and so are those
// with win ≤ id < next while a backfill window is being filled (win > 0).
//
// A first build indexes the newest events first: it starts with hi at the
// store's largest id and moves lo down, one window of backfillWindow
// events at a time, while later appends move hi up. A window is filled in
// ascending id order, so that a transaction's lists mostly come in order.
type marks struct {
	hi, lo    int64
	win, next int64 // the backfill window being filled: [win, next) done
	comp      int64 // largest compactions.id indexed
	// The thought indexed last (lazuli_thinking.id), its session and a
	// hash of its text: see catchUpThinking.
	think, thinkSession int64
	thinkHash           string
	// The row at hi, to recognise another file at the store's path.
	hiSession, hiSeq          int64
	hiKind, hiCreated, hiHash string
	fresh                     bool // no marks yet: nothing indexed
}

var markKeys = []string{"hi", "lo", "win", "next", "comp", "hi_session", "hi_seq", "hi_kind", "hi_created", "hi_hash",
	"think", "think_session", "think_hash"}

func readMarks(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}) (marks, error) {
	rows, err := q.QueryContext(ctx, "SELECT key, COALESCE(value, '') FROM meta")
	if err != nil {
		return marks{}, err
	}
	defer rows.Close()
	kv := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return marks{}, err
		}
		kv[k] = v
	}
	if err := rows.Err(); err != nil {
		return marks{}, err
	}
	if _, ok := kv["hi"]; !ok {
		return marks{fresh: true}, nil
	}
	n := func(k string) int64 {
		v, _ := strconv.ParseInt(kv[k], 10, 64) // written by writeMarks; a bad value reads as 0
		return v
	}
	return marks{hi: n("hi"), lo: n("lo"), win: n("win"), next: n("next"), comp: n("comp"),
		hiSession: n("hi_session"), hiSeq: n("hi_seq"), hiKind: kv["hi_kind"], hiCreated: kv["hi_created"],
		hiHash: kv["hi_hash"], think: n("think"), thinkSession: n("think_session"), thinkHash: kv["think_hash"]}, nil
}

func writeMarks(ctx context.Context, tx *sql.Tx, m marks) error {
	values := []any{m.hi, m.lo, m.win, m.next, m.comp, m.hiSession, m.hiSeq, m.hiKind, m.hiCreated, m.hiHash,
		m.think, m.thinkSession, m.thinkHash}
	for i, k := range markKeys {
		v := values[i]
		if n, ok := v.(int64); ok {
			v = strconv.FormatInt(n, 10)
		}
		if err := indexdb.SetMeta(ctx, tx, k, v); err != nil {
			return err
		}
	}
	return nil
}

// setHi moves hi to event e of session s. The caller sets hiHash, which
// costs an encoding, once per batch (see rowHash).
func (m *marks) setHi(e *store.ScannedEvent, s store.Session) {
	m.hi, m.hiSession, m.hiSeq, m.hiKind, m.hiCreated, m.hiHash = e.ID, e.SessionID, e.Seq, string(e.Kind), s.Created, ""
}

// rowHash identifies an event's content: 16 hex digits of the SHA-256 of
// its JSON.
func rowHash(e *store.ScannedEvent) string {
	js, err := codec.EncodeEventJSON(e.Event)
	if err != nil || e.Event.Kind == "" {
		js = nil // undecodable: the kind and position still identify it
	}
	return indexdb.RowHash(js)
}

// complete reports whether every event up to hi is indexed.
func (m marks) complete(minID int64) bool { return m.lo == 0 || m.lo <= minID }

// Update brings the index up to date with the store: it removes the rows
// of deleted sessions, then indexes the events and compactions added since
// the last Update, then (on a first build) the older events, newest first.
// It reads the store only through short read queries, never writing to it
// or holding its lock. Each transaction (about a second or a few megabytes
// of text, and each backfill window) also moves the index's marks, so an
// Update interrupted at any point (cancelled, killed) leaves a consistent
// index that the next Update continues. When a first build completes, the
// index is merged into one segment (see optimizeOnce). A damaged index file
// is deleted and built again. progress may be nil.
func (x *Index) Update(ctx context.Context, progress Progress) (Stats, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.run(ctx, progress, false)
}

// Rebuild drops everything the index holds and builds it again.
func (x *Index) Rebuild(ctx context.Context, progress Progress) (Stats, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.run(ctx, progress, true)
}

func (x *Index) run(ctx context.Context, progress Progress, rebuild bool) (Stats, error) {
	start := time.Now()
	var s Stats
	err := x.reopenIfReplaced(ctx)
	if err == nil && rebuild {
		err = x.clear(ctx)
		s.Rebuilt = true
	}
	if err == nil {
		err = x.update(ctx, &s, progress)
	}
	err = cancelled(ctx, err)
	if needsRebuild(err) {
		x.dbMu.Lock()
		err = x.recreateLocked(ctx)
		x.dbMu.Unlock()
		s = Stats{Rebuilt: true, Damaged: true}
		if err == nil {
			err = x.update(ctx, &s, progress)
		}
	}
	if x.damaged {
		s.Damaged, s.Rebuilt, x.damaged = true, true, false
	}
	s.Elapsed = time.Since(start)
	if err = cancelled(ctx, err); err != nil {
		return s, fmt.Errorf("update search index of %s: %w", x.st.Path(), err)
	}
	return s, nil
}

// cancelled reports a failure that ctx's end caused as ctx's error:
// database/sql rolls back a transaction whose context ends, so the failing
// call may report sql.ErrTxDone or an interrupted statement instead.
func cancelled(ctx context.Context, err error) error {
	if err != nil && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// needsRebuild reports an error that the index's file or rows are not what
// they should be: damaged, or a row indexed twice.
func needsRebuild(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CONSTRAINT {
		return true
	}
	return isDamage(err)
}

// clear drops every row, in one transaction, and gives the space back.
func (x *Index) clear(ctx context.Context) error {
	err := x.writeTx(ctx, func(tx *sql.Tx) error { return resetTables(ctx, tx, x.st.Path()) })
	if err != nil {
		return err
	}
	// Best effort: VACUUM fails while another process reads the index,
	// which only leaves the freed pages for the rebuild to reuse.
	_, _ = x.w.ExecContext(ctx, "VACUUM")
	return nil
}

// writeTx runs fn in one BEGIN IMMEDIATE transaction of the writer.
func (x *Index) writeTx(ctx context.Context, fn func(*sql.Tx) error) error {
	return indexdb.WriteTx(ctx, x.w, fn)
}

// update is one Update with the file open.
func (x *Index) update(ctx context.Context, s *Stats, progress Progress) error {
	version, err := x.st.Scan().Version(ctx)
	if err != nil {
		return err
	}
	if version != "" {
		was, err := indexdb.GetMeta(ctx, x.r, storeVersionKey)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if was == version {
			s.Unchanged = true // the store is as the index was last brought up to date with
			return nil
		}
	}
	u, err := x.newUpdater(ctx, s, progress)
	if err != nil {
		return err
	}
	defer u.rollback()
	if err := u.catchUp(ctx); err != nil {
		return err
	}
	if err := u.backfill(ctx); err != nil {
		return err
	}
	if err := u.commit(); err != nil {
		return err
	}
	if err := x.optimizeOnce(ctx); err != nil {
		return err
	}
	return x.noteVersion(ctx, version, u.minID)
}

// storeVersionKey is the meta key of the store.Version the index was last
// brought wholly up to date with: while the store has it, Update has
// nothing to read (the marks only tell that after reading the store's
// sessions, for deleted ones).
const storeVersionKey = "store_version"

// noteVersion records version, read before an Update read the store, once
// the index holds every event of the store (the marks are complete; the
// first build may have been cut short); an index that holds more than the
// version saw is no harm, the next Update reads the store again. "" (a
// store that cannot vouch for itself) is recorded too, so that a version
// left from before never matches.
func (x *Index) noteVersion(ctx context.Context, version string, minID int64) error {
	m, err := readMarks(ctx, x.r)
	if err != nil {
		return err
	}
	if m.fresh || !m.complete(minID) {
		version = ""
	}
	was, err := indexdb.GetMeta(ctx, x.r, storeVersionKey)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	if was == version {
		return nil // no write: the file (and its seal) stay as they are
	}
	return x.writeTx(ctx, func(tx *sql.Tx) error { return indexdb.SetMeta(ctx, tx, storeVersionKey, version) })
}

// newUpdater checks the index against the store (another file at its
// path starts it over), writes the marks of a new index and removes the
// rows of deleted sessions, and returns the updater that indexes the rest.
func (x *Index) newUpdater(ctx context.Context, s *Stats, progress Progress) (*updater, error) {
	b, err := x.st.Scan().IDBounds(ctx)
	if err != nil {
		return nil, err
	}
	u := &updater{x: x, s: s, progress: progress, minID: b.MinEventID, total: b.MaxEventID - b.MinEventID + 1}
	if err := u.loadSessions(ctx); err != nil {
		return nil, err
	}
	m, err := readMarks(ctx, x.w)
	if err != nil {
		return nil, err
	}
	if !m.fresh {
		same, err := sameStore(ctx, x.st, m, b, u.sessions)
		if err != nil {
			return nil, err
		}
		if !same {
			if err := x.clear(ctx); err != nil {
				return nil, err
			}
			s.Rebuilt, m = true, marks{fresh: true}
		}
	}
	if m.fresh {
		if _, err = x.start(ctx, b, u.sessions); err != nil {
			return nil, err
		}
		s.Rebuilt = true
		u.started = true
	}
	if s.Purged, err = x.purge(ctx, u.sessions); err != nil {
		return nil, err
	}
	return u, nil
}

// optimizeOnce merges the index into one segment once its first build is
// complete: a build writes a segment per transaction, and a query reads
// every segment of each of its 4-grams, so this makes queries faster.
// Later appends add small segments that the merges of each commit keep
// few (mergeFanIn).
func (x *Index) optimizeOnce(ctx context.Context) error {
	m, err := readMarks(ctx, x.w)
	if err != nil || m.lo != 0 {
		return err
	}
	if done, _ := indexdb.GetMeta(ctx, x.w, "optimized"); done == "1" {
		return nil
	}
	err = x.writeTx(ctx, func(tx *sql.Tx) error {
		if err := mergeAll(ctx, tx); err != nil {
			return err
		}
		return indexdb.SetMeta(ctx, tx, "optimized", "1")
	})
	if err != nil {
		return err
	}
	// Best effort: give the log's space back; readers may hold it.
	_, _ = x.w.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)")
	return nil
}

// start writes the marks of an empty index: nothing indexed below the
// store's largest id, which the backfill indexes first.
func (x *Index) start(ctx context.Context, b store.IDBounds, sessions map[int64]store.Session) (marks, error) {
	m := marks{hi: b.MaxEventID, lo: b.MaxEventID + 1}
	if m.hi == 0 {
		m.lo = 0 // no events: complete
	} else {
		evs, err := x.st.Scan().EventsByID(ctx, []int64{m.hi})
		if err != nil {
			return m, err
		}
		if len(evs) == 1 {
			m.setHi(&evs[0], sessions[evs[0].SessionID])
			m.hiHash = rowHash(&evs[0])
		}
	}
	err := x.writeTx(ctx, func(tx *sql.Tx) error { return writeMarks(ctx, tx, m) })
	return m, err
}

// sameStore reports whether the store is still the file the index was
// built from. Event ids only grow, so the row at the index's high-water
// mark must still be there, unchanged, unless its session was deleted.
func sameStore(ctx context.Context, st *store.Store, m marks, b store.IDBounds, sessions map[int64]store.Session) (bool, error) {
	if m.hi == 0 {
		return true, nil // nothing indexed that could contradict it
	}
	if b.EventSequence < m.hi && (b.EventSequence != 0 || b.MaxEventID == 0) {
		return false, nil // ids never go back: a newer, smaller file
	}
	evs, err := st.Scan().EventsByID(ctx, []int64{m.hi})
	if err != nil {
		return false, err
	}
	var now *indexdb.Mark
	if len(evs) == 1 {
		e := &evs[0]
		now = &indexdb.Mark{Session: e.SessionID, Seq: e.Seq, Kind: string(e.Kind), Hash: rowHash(e)}
	}
	s, ok := sessions[m.hiSession]
	at := indexdb.Mark{Session: m.hiSession, Seq: m.hiSeq, Kind: m.hiKind, Created: m.hiCreated, Hash: m.hiHash}
	return at.SameFile(now, s.Created, ok), nil
}

// purge removes the rows of sessions the store no longer has, or whose id
// now belongs to another session (AZUREAL reuses the ids of deleted
// sessions), and returns how many sessions it removed.
func (x *Index) purge(ctx context.Context, sessions map[int64]store.Session) (int, error) {
	gone, err := indexdb.StaleSessions(ctx, x.w, createdOf(sessions))
	if err != nil || len(gone) == 0 {
		return 0, err
	}
	err = x.writeTx(ctx, func(tx *sql.Tx) error {
		for lo := 0; lo < len(gone); lo += 500 {
			list, args := indexdb.InList(gone[lo:min(lo+500, len(gone))])
			if err := markGone(ctx, tx, list, args); err != nil {
				return err
			}
			for _, q := range []string{
				"DELETE FROM docs WHERE session IN " + list,
				"DELETE FROM sessions WHERE id IN " + list,
			} {
				if _, err := tx.ExecContext(ctx, q, args...); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return len(gone), err
}

// createdOf reports the created text of each of sessions, by id.
func createdOf(sessions map[int64]store.Session) func(int64) (string, bool) {
	return func(id int64) (string, bool) {
		s, ok := sessions[id]
		return s.Created, ok
	}
}
