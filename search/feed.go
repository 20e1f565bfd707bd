package search

import (
	"context"
	"fmt"

	"github.com/lazuli-app/lazuli/indexdb"
	"github.com/lazuli-app/lazuli/store"
)

// Feed indexes events in the same pass as they are stored: an importer
// hands each group of rows it has just committed to Add (with their ids,
// payloads and full text, as store.NativeService.Import returns them), and the
// feed indexes them on a goroutine of its own while the importer reads
// and stores the next group, without reading or decoding the store again.
//
// Rows are indexed the way Update's catch-up indexes new events, in the
// index's own transactions that move its marks with the rows, so a process
// killed at any point leaves an index that the next Update continues. Rows
// that do not directly follow what the index holds (another program
// appended to the store in between, say) are read from the store instead.
// Close ends the feed with an Update, which indexes anything the feed did
// not (older events, a failed feed) and merges the index once it is
// complete; a feed that left nothing of the kind (an append to an index
// that was complete) ends without one.
//
// A Feed holds the index's update lock from NewFeed to Close: Update and
// Rebuild of the same *Index wait for it.
type Feed struct {
	x    *Index
	ctx  context.Context
	in   chan feedRows
	done chan struct{}
	s    Stats
	// inHand counts the rows indexed as they were handed over (not read
	// from the store); read after done.
	inHand int64
	// caughtUp is set when the feed committed and left nothing for Close's
	// Update (see Index.caughtUp); read after done.
	caughtUp bool
}

type feedRows struct {
	created map[int64]string
	rows    []store.ScannedEvent
}

// feedChunk is how many rows the feed indexes at a time: its transactions
// commit between chunks when due (see commitIfDue).
const feedChunk = 1024

// NewFeed starts a feed into the index. Rows added after ctx ends are
// dropped; Close reports ctx's error.
func (x *Index) NewFeed(ctx context.Context) *Feed {
	f := &Feed{x: x, ctx: ctx, in: make(chan feedRows), done: make(chan struct{})}
	go f.run()
	return f
}

// Add queues rows the caller has just stored, with the created time of
// each of their sessions, for indexing. It blocks until the feed has
// indexed the rows of the previous call, which bounds the memory they hold. The feed keeps the
// slices until it has indexed them; the caller must not change them.
func (f *Feed) Add(created map[int64]string, rows []store.ScannedEvent) {
	if len(rows) == 0 {
		return
	}
	select {
	case f.in <- feedRows{created, rows}:
	case <-f.done: // feeding stopped; Close's Update indexes them
	}
}

// Close indexes what is left with an Update (see Feed) and returns what
// the feed and the Update did together. progress may be nil.
func (f *Feed) Close(progress Progress) (Stats, error) {
	close(f.in)
	<-f.done
	if err := f.ctx.Err(); err != nil {
		return f.s, fmt.Errorf("update search index of %s: %w", f.x.st.Path(), err)
	}
	if f.caughtUp { // an append: the feed indexed it all, an Update would read the store for nothing
		s := f.s
		s.Fed = f.inHand
		return s, nil
	}
	// A feed that failed (a damaged index, a busy file) leaves the rest
	// to this Update, which rebuilds what is damaged and reports what it
	// cannot do.
	s, err := f.x.Update(f.ctx, progress)
	s.Events += f.s.Events
	s.Indexed += f.s.Indexed
	s.TextBytes += f.s.TextBytes
	s.Purged += f.s.Purged
	s.Rebuilt = s.Rebuilt || f.s.Rebuilt
	s.Fed = f.inHand
	return s, err
}

// run indexes what Add queues, holding the update lock, until Close.
func (f *Feed) run() {
	x := f.x
	x.mu.Lock()
	defer x.mu.Unlock()
	defer close(f.done)
	err := x.reopenIfReplaced(f.ctx)
	var u *updater
	if err == nil {
		u, err = x.newUpdater(f.ctx, &f.s, nil)
	}
	for r := range f.in {
		if err == nil {
			err = u.feed(f.ctx, r, &f.inHand)
		}
		if err != nil {
			break
		}
	}
	// Whatever stopped the feed (an error here, or a failed commit) is
	// left to Close's Update, which reads what is missing from the store.
	if u != nil {
		if err == nil {
			err = u.commit()
		}
		u.rollback()
		if err == nil {
			f.caughtUp = x.caughtUp(f.ctx)
		}
	}
}

// caughtUp reports whether the index holds every event and compaction of
// the store, has no older events left to index and was merged after its
// first build: an Update would find nothing to do but the purge of deleted
// sessions, which a feed's start did. The caller holds the update lock.
func (x *Index) caughtUp(ctx context.Context) bool {
	m, err := readMarks(ctx, x.w)
	if err != nil || m.fresh || m.lo != 0 {
		return false
	}
	if done, _ := indexdb.GetMeta(ctx, x.w, "optimized"); done != "1" {
		return false
	}
	b, err := x.st.Scan().IDBounds(ctx)
	if err != nil || b.MaxEventID > m.hi {
		return false
	}
	more := false
	err = x.st.Scan().Compactions(ctx, m.comp, func([]store.Compaction) error {
		more = true
		return nil
	})
	return err == nil && !more
}

// feed indexes rows the caller stored: in hand when they follow the
// index's high-water mark directly, else from the store.
func (u *updater) feed(ctx context.Context, r feedRows, inHand *int64) error {
	for id, created := range r.created {
		u.sessions[id] = store.Session{ID: id, Created: created}
	}
	_, m, err := u.marks(ctx)
	if err != nil {
		return err
	}
	if u.started {
		u.started = false
		if m.win == 0 && m.lo == m.hi+1 && r.rows[0].ID == u.minID && follows(u.minID-1, r.rows) && r.rows[len(r.rows)-1].ID == m.hi {
			return u.fillInHand(ctx, r.rows, inHand)
		}
	}
	if !follows(m.hi, r.rows) {
		return u.catchUp(ctx)
	}
	if err := u.chunks(ctx, r.rows, u.takeNew); err != nil {
		return err
	}
	*inHand += int64(len(r.rows))
	return nil
}

// chunks indexes rows feedChunk at a time (see rows).
func (u *updater) chunks(ctx context.Context, rows []store.ScannedEvent, take func(*marks, *store.ScannedEvent) bool) error {
	for lo := 0; lo < len(rows); lo += feedChunk {
		if err := u.rows(ctx, rows[lo:min(lo+feedChunk, len(rows))], take); err != nil {
			return err
		}
	}
	return nil
}

// fillInHand indexes rows, every event of the store up to the marks' hi,
// from the rows in hand, as the one backfill window they are. This is a
// first import's first transaction: the feed starts once it is stored, so
// the index's start (Index.start) put its rows below lo, and Close's
// Update would otherwise read them back from the store at the end, after
// everything else, and index them into the last segment.
func (u *updater) fillInHand(ctx context.Context, rows []store.ScannedEvent, inHand *int64) error {
	tx, m, err := u.marks(ctx)
	if err != nil {
		return err
	}
	m.win, m.next = rows[0].ID, rows[0].ID
	if err := u.writeMarks(ctx, tx, m); err != nil {
		return err
	}
	if err := u.chunks(ctx, rows, takeWindow); err != nil {
		return err
	}
	if _, err := u.closeWindow(ctx, m.win); err != nil {
		return err
	}
	*inHand += int64(len(rows))
	return nil
}

// follows reports whether rows have the ids hi+1, hi+2, … in order, so
// that nothing between them is missing.
func follows(hi int64, rows []store.ScannedEvent) bool {
	for i := range rows {
		if rows[i].ID != hi+1+int64(i) {
			return false
		}
	}
	return true
}

// ImportFeed is the Feed of an import (native.ImportOptions.Stored): it
// opens the index, with open, when the import first stores events, so an
// import with nothing new neither opens nor updates it.
type ImportFeed struct {
	ctx  context.Context
	open func() (*Index, error)
	x    *Index
	feed *Feed
	err  error // open failed: the import goes on, Close reports it
}

// NewImportFeed returns the feed of an import; open opens the index.
func NewImportFeed(ctx context.Context, open func() (*Index, error)) *ImportFeed {
	return &ImportFeed{ctx: ctx, open: open}
}

// Stored hands the rows of one import transaction to the index (see
// Feed.Add), opening it first.
func (f *ImportFeed) Stored(results []store.NativeResult) {
	created := map[int64]string{}
	var rows []store.ScannedEvent
	for _, r := range results {
		created[r.SessionID] = r.SessionCreated
		rows = append(rows, r.Rows...)
	}
	if len(rows) == 0 || f.err != nil {
		return // only records moved (a touched file): nothing to index
	}
	if f.feed == nil {
		if f.x, f.err = f.open(); f.err != nil {
			return
		}
		f.feed = f.x.NewFeed(f.ctx)
	}
	f.feed.Add(created, rows)
}

// Close ends the feed (Feed.Close) and returns the index it opened (nil
// when none: nothing was stored, or open failed) and what it did. An
// index that could not be opened is the error.
func (f *ImportFeed) Close(progress Progress) (*Index, Stats, error) {
	if f.err != nil {
		return nil, Stats{}, f.err
	}
	if f.feed == nil {
		return nil, Stats{}, nil
	}
	s, err := f.feed.Close(progress)
	return f.x, s, err
}
