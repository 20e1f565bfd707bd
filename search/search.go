package search

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lazuli-app/lazuli/store"
)

// DefaultLimit is the number of hits Search returns when asked for 0.
const DefaultLimit = 50

// Candidates are read from the index in chunks that grow from firstChunk
// to maxChunk rows, each checked against the store.
const (
	firstChunk = 32
	maxChunk   = 256
)

// DefaultBudget is how long Search checks candidates before it gives up
// on finding more hits (see Result.Partial). Only a phrase of very common
// words gets near it: the index stores no positions, so every event that
// holds all the phrase's 4-grams is a candidate.
const DefaultBudget = 400 * time.Millisecond

// Hit is one event or compaction summary that matches a query.
type Hit struct {
	StorePath   string `json:"store"`
	SessionID   int64  `json:"session_id"`
	DisplayName string `json:"display_name"`
	Worktree    string `json:"worktree"` // the session's branch
	// Seq is the event's seq; for a compaction summary, its after_seq
	// (the summary sits after that event in the transcript).
	Seq int64 `json:"seq"`
	// Kind is the event's kind (store.Kind), or KindCompaction.
	Kind string `json:"kind"`
	// Time is when the session was created (events carry no time of their
	// own), or when the compaction was made: UTC "YYYY-MM-DD HH:MM:SS".
	Time string `json:"time"`
	// Snippet is about 160 characters of the text around the first match,
	// on one line, with "…" where it was cut.
	Snippet string `json:"snippet"`
	// Highlights are the byte ranges [start, end) of Snippet where a word
	// of the query occurs, sorted and not overlapping.
	Highlights [][2]int `json:"highlights"`
	// InFull reports a match in the full text of a shortened event (the
	// whole tool output or Write content, store.FullTextTable), which the
	// transcript card shows only when expanded; Offset is the match's
	// byte offset in that full text.
	InFull bool `json:"in_full,omitempty"`
	Offset int  `json:"full_offset,omitempty"`

	order int64 // events.id of the event, or of the event a summary follows
}

// Result is what a search found.
type Result struct {
	Hits []Hit // newest first
	More bool  // there are more hits than Hits holds
	// Partial reports that not every event could be searched: the index
	// is still being built, or a query of two characters looked at the
	// newest events only. Note says which.
	Partial bool
	// Note is a sentence for the user about the result: why it may be
	// incomplete, or that the store was read without the index. "" when
	// there is nothing to say.
	Note string
}

// Search finds the events and compaction summaries whose text contains
// every word of query, ignoring case (see the package documentation for
// what is searched and how a query is read), newest first, at most limit
// of them (DefaultLimit when limit ≤ 0). Every candidate the index returns
// is checked against the store, so hits of deleted sessions never appear
// and a stale index only misses the newest events. Queries whose words
// all have fewer than three characters cannot use the index: they scan
// the newest events instead (see Scan). A search that is still checking
// candidates after DefaultBudget stops there: the Result is Partial, with a
// Note (only a phrase of very common words takes that long).
func (x *Index) Search(ctx context.Context, query string, limit int) (Result, error) {
	q, err := parseQuery(query)
	if err != nil {
		return Result{}, err
	}
	if limit <= 0 {
		limit = DefaultLimit
	}
	if len(q.parts) == 0 {
		return scan(ctx, x.st, q, limit, ShortQueryEvents)
	}
	res, err := x.searchLocked(ctx, q, limit)
	if isDamage(err) && ctx.Err() == nil {
		// Start the index over, build it, and ask again: the answer is
		// whole, and the note says what happened, once.
		if err = x.rebuildDamaged(ctx); err == nil {
			res, err = x.searchLocked(ctx, q, limit)
			res.Note = strings.TrimSpace(DamagedNote(x.st.Path()) + " " + res.Note)
		}
	}
	if err != nil {
		return Result{}, fmt.Errorf("search %s: %w", x.st.Path(), err)
	}
	return res, nil
}

// searchLocked runs one search with the pools held open.
func (x *Index) searchLocked(ctx context.Context, q *query, limit int) (Result, error) {
	x.dbMu.RLock()
	defer x.dbMu.RUnlock()
	if x.r == nil {
		return Result{}, errors.New("search index is closed")
	}
	return x.search(ctx, q, limit)
}

func (x *Index) search(ctx context.Context, q *query, limit int) (Result, error) {
	now := x.now
	if now == nil {
		now = time.Now
	}
	start := now()
	hb, err := newHitBuilder(ctx, x.st, q)
	if err != nil {
		return Result{}, err
	}
	cands, comps, thoughts, err := x.candidates(ctx, q)
	if err != nil {
		return Result{}, err
	}
	var hits []Hit
	res := Result{}
	for chunk := firstChunk; len(hits) <= limit; chunk = min(2*chunk, maxChunk) {
		if chunk > firstChunk && now().Sub(start) > x.budget {
			res.Partial, res.Note = true, budgetNote
			break
		}
		var ids []int64
		for len(ids) < chunk {
			k, ok := cands.next()
			if !ok {
				break
			}
			if k > 0 {
				ids = append(ids, k)
			}
		}
		if err := cands.err(); err != nil {
			return Result{}, err
		}
		if len(ids) == 0 {
			break
		}
		found, checked, err := x.checkIDs(ctx, hb, ids)
		if err != nil {
			return Result{}, err
		}
		for i, id := range found {
			if hits, err = comps.emitAbove(ctx, hb, hits, id); err != nil {
				return Result{}, err
			}
			if checked[i].ok {
				hits = append(hits, checked[i].hit)
			}
			if len(hits) > limit {
				break
			}
		}
		if len(ids) < chunk {
			break // every candidate is checked: the budget is not spent on an empty read
		}
	}
	if len(hits) <= limit && !res.Partial {
		if hits, err = comps.emitAbove(ctx, hb, hits, math.MinInt64); err != nil {
			return Result{}, err
		}
	}
	if err := hb.err(); err != nil {
		return Result{}, err
	}
	res.Hits = hits
	if len(res.Hits) > limit {
		res.Hits, res.More = res.Hits[:limit], true
	}
	thinking, err := x.indexedThoughts(ctx, hb, thoughts)
	if err != nil {
		return Result{}, err
	}
	res = mergeThoughts(res, thinking, limit)
	if res.Partial {
		return res, nil
	}
	return res, x.coverage(ctx, &res)
}

// checkIDs reads the events of ids and checks them against the query; it
// returns the ids found, in the order of ids, with their verdicts. Events
// that together decode to more than one load reads (store.MaxLoadBytes: a
// few kilobytes of zstd can hold tens of megabytes) are read and checked
// one at a time, so that one of them at most is decoded at once.
func (x *Index) checkIDs(ctx context.Context, hb *hitBuilder, ids []int64) ([]int64, []checkedEvent, error) {
	evs, err := x.st.Scan().EventsByID(ctx, ids)
	var tooMuch *store.LoadLimitError
	if errors.As(err, &tooMuch) && len(ids) > 1 {
		var found []int64
		var checked []checkedEvent
		for _, id := range ids {
			f, c, err := x.checkIDs(ctx, hb, []int64{id})
			if err != nil {
				return nil, nil, err
			}
			found, checked = append(found, f...), append(checked, c...)
		}
		return found, checked, nil
	}
	if err != nil {
		return nil, nil, err
	}
	if err := x.st.FullText().Attach(ctx, evs); err != nil {
		return nil, nil, err
	}
	found := make([]int64, len(evs))
	for i := range evs {
		found[i] = evs[i].ID
	}
	if len(evs) < len(ids) {
		if err := x.unknownCandidates(ctx, hb.q.parts, ids, evs); err != nil {
			return nil, nil, err
		}
	}
	checked := hb.events(evs)
	for i := range evs {
		if !checked[i].ok {
			if bad, err := x.falseCandidate(ctx, hb, &evs[i]); err != nil || bad {
				return nil, nil, cmp.Or(err, fmt.Errorf("%w: event %d is not what the index holds", ErrDamaged, evs[i].ID))
			}
		}
	}
	return found, checked, nil
}

// budgetNote explains a search that ran out of DefaultBudget.
const budgetNote = "These words are everywhere, so only the newest events holding all of them were checked in time: older matches may be missing. A longer or rarer phrase finds them."

// candidates returns the events whose text may match q, newest first, as
// they are asked for, and the queue of the compaction summaries that may,
// ordered by where they sit among the events, newest first. It reads the
// lists and docs in one read transaction, so they are one state of the
// index whatever another process's Update does meanwhile; the stream holds
// the lists it read. There are few compactions, so they are all listed at
// once (their keys come first); each is read from the store only when the
// merge with the events reaches it. The thoughts' keys come before them:
// their ids are returned, with the think mark.
func (x *Index) candidates(ctx context.Context, q *query) (*andIter, *compactionQueue, thoughtCandidates, error) {
	var tc thoughtCandidates
	tx, err := x.r.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, tc, err
	}
	defer tx.Rollback() //nolint:errcheck // read only
	m, err := readMarks(ctx, tx)
	if err != nil {
		return nil, nil, tc, err
	}
	tc.above = m.think
	r, err := newReader(ctx, tx)
	if err != nil {
		return nil, nil, tc, err
	}
	defer r.close()
	cands, err := r.stream(q.parts)
	if err != nil {
		return nil, nil, tc, err
	}
	cq := &compactionQueue{st: x.st}
	for {
		k, ok := cands.peek()
		if !ok || k < compactionKeys {
			break
		}
		cands.next()
		if id, ok := thoughtOf(rowOf(k)); ok {
			// The store says whether it is still there (Thinking().ByID).
			tc.ids = append(tc.ids, id)
			continue
		}
		var ord sql.NullInt64
		err := tx.QueryRowContext(ctx, "SELECT ord FROM docs WHERE id = ?", rowOf(k)).Scan(&ord)
		if errors.Is(err, sql.ErrNoRows) {
			continue // a deleted session's: its postings stay until a merge drops them
		}
		if err != nil {
			return nil, nil, tc, err
		}
		cq.pending = append(cq.pending, compactionCandidate{id: -rowOf(k), ord: ord.Int64})
	}
	if err := cands.err(); err != nil {
		return nil, nil, tc, err
	}
	// Newest first: by the event each follows, then by id.
	slices.SortStableFunc(cq.pending, func(a, b compactionCandidate) int {
		return cmp.Or(cmp.Compare(b.ord, a.ord), cmp.Compare(-a.id, -b.id))
	})
	return cands, cq, tc, nil
}

// coverage marks res partial while the index's first build is running, or
// before it started.
func (x *Index) coverage(ctx context.Context, res *Result) error {
	m, err := readMarks(ctx, x.r)
	if err != nil {
		return err
	}
	if !m.fresh && m.lo == 0 {
		return nil
	}
	b, err := x.st.Scan().IDBounds(ctx)
	if err != nil || b.MaxEventID == 0 || (!m.fresh && m.complete(b.MinEventID)) {
		return err
	}
	span := max(1, b.MaxEventID-b.MinEventID+1)
	var pct int64 // nothing indexed yet when fresh
	if !m.fresh {
		pct = 100 * min(span, b.MaxEventID-m.lo+1) / span
	}
	res.Partial = true
	res.Note = "The search index is still being built (" + strconv.FormatInt(pct, 10) +
		"% of events, newest first): older matches may be missing."
	return nil
}

// compactionCandidate is a compaction whose summary may match.
type compactionCandidate struct {
	id, ord int64
}

// compactionQueue hands out compaction hits in their place among the
// event hits.
type compactionQueue struct {
	st      *store.Store
	pending []compactionCandidate // by ord, largest first
}

// emitAbove appends the hits among the pending compactions that sit at or
// above event id order (a summary sits right after the event it follows).
func (cq *compactionQueue) emitAbove(ctx context.Context, hb *hitBuilder, hits []Hit, order int64) ([]Hit, error) {
	n := 0
	for n < len(cq.pending) && cq.pending[n].ord >= order {
		n++
	}
	if n == 0 {
		return hits, nil
	}
	ids := make([]int64, n)
	ords := make(map[int64]int64, n)
	for i, c := range cq.pending[:n] {
		ids[i], ords[c.id] = c.id, c.ord
	}
	cq.pending = cq.pending[n:]
	comps, err := cq.st.Scan().CompactionsByID(ctx, ids)
	if err != nil {
		return hits, err
	}
	for i := range comps {
		if h, ok := hb.compaction(&comps[i], ords[comps[i].ID]); ok {
			hits = append(hits, h)
		}
	}
	return hits, nil
}

// hitBuilder checks candidates against the query and makes their hits.
type hitBuilder struct {
	q    *query
	path string
	// sessions reads the store's sessions when a hit first needs them: a
	// search that finds nothing never reads them.
	sessions func() (map[int64]store.Session, error)
	read     atomic.Bool // sessions was called
}

func newHitBuilder(ctx context.Context, st *store.Store, q *query) (*hitBuilder, error) {
	load := sync.OnceValues(func() (map[int64]store.Session, error) {
		list, err := st.Scan().Sessions(ctx)
		if err != nil {
			return nil, err
		}
		m := make(map[int64]store.Session, len(list))
		for _, s := range list {
			m[s.ID] = s
		}
		return m, nil
	})
	return &hitBuilder{q: q, path: st.Path(), sessions: load}, nil
}

// session returns the session of id as the search saw it when it first
// needed the sessions; false when it had been deleted, or the sessions
// could not be read (err says why).
func (hb *hitBuilder) session(id int64) (store.Session, bool) {
	hb.read.Store(true)
	m, _ := hb.sessions()
	s, ok := m[id]
	return s, ok
}

// err returns the error of reading the sessions, if they were read.
func (hb *hitBuilder) err() error {
	if !hb.read.Load() {
		return nil
	}
	_, err := hb.sessions()
	return err
}

// checkedEvent is an event's hit, if it has one.
type checkedEvent struct {
	hit Hit
	ok  bool
}

// events checks evs, on up to GOMAXPROCS goroutines: extracting the text
// of a large event and searching it is most of a search's work.
func (hb *hitBuilder) events(evs []store.ScannedEvent) []checkedEvent {
	out := make([]checkedEvent, len(evs))
	workers := min(runtime.GOMAXPROCS(0), (len(evs)+7)/8)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(evs); i = int(next.Add(1) - 1) {
				out[i].hit, out[i].ok = hb.event(&evs[i])
			}
		})
	}
	wg.Wait()
	return out
}

// event returns the hit of an event, if its text matches.
func (hb *hitBuilder) event(e *store.ScannedEvent) (Hit, bool) {
	if e.Event.Kind == "" {
		return Hit{}, false // undecodable
	}
	text, fullAt := scannedText(e)
	h, start, ok := hb.hit(e.SessionID, text)
	h.Seq, h.Kind, h.order = e.Seq, string(e.Kind), e.ID
	if ok && fullAt >= 0 && start >= fullAt {
		h.InFull, h.Offset = true, start-fullAt
	}
	return h, ok
}

// compaction returns the hit of a compaction summary, if it matches.
func (hb *hitBuilder) compaction(c *store.Compaction, order int64) (Hit, bool) {
	h, _, ok := hb.hit(c.SessionID, capText(c.Summary))
	h.Seq, h.Kind, h.order = c.AfterSeq, KindCompaction, order
	if c.Created != "" {
		h.Time = c.Created
	}
	return h, ok
}

// hit matches text and makes the hit, with the match's start in text.
func (hb *hitBuilder) hit(sessionID int64, text string) (Hit, int, bool) {
	s, ok := hb.session(sessionID)
	if !ok {
		return Hit{}, 0, false // deleted since the search began
	}
	start, end, ok := hb.q.match(text)
	if !ok {
		return Hit{}, 0, false
	}
	snippet, hl := hb.q.makeSnippet(text, start, end)
	return Hit{StorePath: hb.path, SessionID: s.ID, DisplayName: s.DisplayName(), Worktree: s.Worktree,
		Time: s.Created, Snippet: snippet, Highlights: hl}, start, true
}
