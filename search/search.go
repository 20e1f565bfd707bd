package search

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
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
	// copyOf is the parent's event a fork's event copies; it ranks just
	// after that event (collector.add). Zero for any other hit.
	copyOf eventKey
	// at is the match's byte range in the text (scannedText for an
	// event), and src a thought's text: kept to make the snippet of a hit
	// on the page only.
	src string
	at  [2]int
}

// Result is what a search found.
type Result struct {
	Hits []Hit // newest first; nil with Options.Sessions
	// Sessions are the sessions with hits, ranked (see SessionHit); only
	// with Options.Sessions.
	Sessions []SessionHit
	More     bool // there are more hits (or sessions) after this page
	// Partial reports that not every event could be searched: the index
	// is still being built, a query of two characters looked at the
	// newest events only, or Options.Budget ran out. Note says which.
	Partial bool
	// Note is a sentence for the user about the result: why it may be
	// incomplete, or that the store was read without the index. "" when
	// there is nothing to say.
	Note string
}

// Search finds the events, compaction summaries and thoughts whose text
// contains every word of query, ignoring case (see the package
// documentation for what is searched and how a query is read), newest
// first, and returns the page of them (or of their sessions) that opt
// asks for. Every candidate the index returns is checked against the
// store, so hits of deleted sessions never appear and a stale index only
// misses the newest events. Queries whose words all have fewer than three
// characters cannot use the index: they scan the newest events instead
// (see Scan). The answer is complete unless opt.Budget ran out (the
// Result is then Partial, with a Note): only the hits on the page get a
// snippet, and a search for hits stops as soon as it knows the page and
// whether more follow.
func (x *Index) Search(ctx context.Context, query string, opt Options) (Result, error) {
	q, err := parseQuery(query)
	if err != nil {
		return Result{}, err
	}
	if len(q.parts) == 0 {
		return scan(ctx, x.st, q, opt, ShortQueryEvents)
	}
	res, err := x.searchLocked(ctx, q, opt)
	if isDamage(err) && ctx.Err() == nil {
		// Start the index over, build it, and ask again: the answer is
		// whole, and the note says what happened, once.
		if err = x.rebuildDamaged(ctx); err == nil {
			res, err = x.searchLocked(ctx, q, opt)
			res.Note = strings.TrimSpace(DamagedNote(x.st.Path()) + " " + res.Note)
		}
	}
	if err != nil {
		return Result{}, fmt.Errorf("search %s: %w", x.st.Path(), err)
	}
	return res, nil
}

// searchLocked runs one search with the pools held open.
func (x *Index) searchLocked(ctx context.Context, q *query, opt Options) (Result, error) {
	x.dbMu.RLock()
	defer x.dbMu.RUnlock()
	if x.r == nil {
		return Result{}, errors.New("search index is closed")
	}
	return x.search(ctx, q, opt)
}

func (x *Index) search(ctx context.Context, q *query, opt Options) (Result, error) {
	now := x.now
	if now == nil {
		now = time.Now
	}
	start := now()
	hb, err := newHitBuilder(ctx, x.st, q)
	if err != nil {
		return Result{}, err
	}
	cands, comps, tc, err := x.candidates(ctx, q)
	if err != nil {
		return Result{}, err
	}
	thoughts, err := x.indexedThoughts(ctx, hb, tc)
	if err != nil {
		return Result{}, err
	}
	c := newCollector(opt, thoughts)
	partial := false
	for chunk := firstChunk; !c.full(); chunk = min(2*chunk, maxChunk) {
		if opt.Budget > 0 && chunk > firstChunk && now().Sub(start) > opt.Budget {
			partial = true
			break
		}
		n := min(chunk, c.wanted())
		var ids []int64
		for len(ids) < n {
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
		if err := x.checkIDs(ctx, hb, ids, comps, c); err != nil {
			return Result{}, err
		}
		if len(ids) < n {
			break // every candidate is checked: the budget is not spent on an empty read
		}
	}
	full := c.full()
	if !full && !partial {
		if err := comps.emitAbove(ctx, hb, c, math.MinInt64); err != nil {
			return Result{}, err
		}
	}
	if err := hb.err(); err != nil {
		return Result{}, err
	}
	res := c.result(full || partial, hb.thoughtSnippet)
	if partial {
		res.Partial, res.Note = true, budgetNote
		return res, nil
	}
	return res, x.coverage(ctx, &res)
}

// checkIDs reads the events of ids, newest first, checks them against the
// query and hands their hits to c, with the matching compaction summaries
// in their places. An event is first checked without its full text
// (store.FullTextTable), which is read only for the events that do not
// match without it and for the hits whose snippet is made. Events that
// together decode to more than one load reads (store.MaxLoadBytes: a few
// kilobytes of zstd can hold tens of megabytes) are read and checked one
// at a time, so that one of them at most is decoded at once.
func (x *Index) checkIDs(ctx context.Context, hb *hitBuilder, ids []int64, comps *compactionQueue, c *collector) error {
	evs, err := x.st.Scan().EventsByID(ctx, ids)
	var tooMuch *store.LoadLimitError
	if errors.As(err, &tooMuch) && len(ids) > 1 {
		for _, id := range ids {
			if c.full() {
				return nil
			}
			if err := x.checkIDs(ctx, hb, []int64{id}, comps, c); err != nil {
				return err
			}
		}
		return nil
	}
	if err != nil {
		return err
	}
	if len(evs) < len(ids) {
		if err := checkOf(x).unknownCandidates(ctx, hb.q.parts, ids, evs); err != nil {
			return err
		}
	}
	checked := hb.events(evs)
	var again []int // not matched without the full text
	for i := range evs {
		if !checked[i].ok {
			again = append(again, i)
		}
	}
	if len(again) > 0 {
		if err := x.attachFull(ctx, evs, again); err != nil {
			return err
		}
		var with []int // those that have a full text
		for _, i := range again {
			if evs[i].Full != "" {
				with = append(with, i)
			}
		}
		hb.eventsAt(evs, with, checked)
		for _, i := range again {
			if checked[i].ok {
				continue
			}
			if bad, err := checkOf(x).falseCandidate(ctx, hb, &evs[i]); err != nil || bad {
				return cmp.Or(err, fmt.Errorf("%w: event %d is not what the index holds", ErrDamaged, evs[i].ID))
			}
		}
	}
	var page []int // hits on the page, whose snippets are made
	for i := range evs {
		if c.full() {
			break
		}
		if err := comps.emitAbove(ctx, hb, c, evs[i].ID); err != nil {
			return err
		}
		if !checked[i].ok || c.full() {
			continue
		}
		if checked[i].hit.copyOf == (eventKey{}) && c.wants(evs[i].SessionID, evs[i].ID) {
			page = append(page, len(c.hits))
		}
		c.add(checked[i].hit)
	}
	return x.snippets(ctx, hb, evs, c, page)
}

// snippets makes the snippets of the hits of c at page (indexes of
// c.hits, or, with sessions, of every session's first hit), from their
// events in evs, reading the full texts they lack.
func (x *Index) snippets(ctx context.Context, hb *hitBuilder, evs []store.ScannedEvent, c *collector, page []int) error {
	var targets []*Hit
	if c.sessions != nil {
		for _, s := range c.sessions {
			if s.Newest.Snippet == "" && s.Newest.Highlights == nil && s.Newest.Kind != KindCompaction {
				targets = append(targets, &s.Newest)
			}
		}
	} else {
		for _, p := range page {
			targets = append(targets, &c.hits[p])
		}
	}
	// A hit found without the event's full text has its match before it:
	// the full text, which follows, shows in the snippet only when the
	// snippet reaches the end of the event's own text.
	if len(targets) == 0 {
		return nil
	}
	index := make(map[int64]int, len(evs))
	for i := range evs {
		index[evs[i].ID] = i
	}
	var need []int
	for _, h := range targets {
		if i := index[h.order]; evs[i].Full == "" && snippetReachesEnd(hb.q, &evs[i], h) {
			need = append(need, i)
		}
	}
	if err := x.attachFull(ctx, evs, need); err != nil {
		return err
	}
	parallel(len(targets), func(k int) {
		h := targets[k]
		hb.eventSnippet(h, &evs[index[h.order]])
	})
	return nil
}

// snippetReachesEnd reports whether the snippet of h, the hit of e, made
// from e's text without its full text, reaches the end of that text.
func snippetReachesEnd(q *query, e *store.ScannedEvent, h *Hit) bool {
	text, _ := scannedText(e)
	_, to := snippetRange(text, h.at[0], h.at[1])
	return to >= len(text)
}

// attachFull fills the Full field of the events of evs at idx.
func (x *Index) attachFull(ctx context.Context, evs []store.ScannedEvent, idx []int) error {
	if len(idx) == 0 {
		return nil
	}
	sub := make([]store.ScannedEvent, len(idx))
	for k, i := range idx {
		sub[k] = store.ScannedEvent{ID: evs[i].ID, SessionID: evs[i].SessionID, Seq: evs[i].Seq}
	}
	if err := x.st.FullText().Attach(ctx, sub); err != nil {
		return err
	}
	for k, i := range idx {
		evs[i].Full = sub[k].Full
	}
	return nil
}

// budgetNote explains a search that ran out of Options.Budget.
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

// emitAbove hands c the hits among the pending compactions that sit at
// or above event id order (a summary sits right after the event it
// follows), with their snippets.
func (cq *compactionQueue) emitAbove(ctx context.Context, hb *hitBuilder, c *collector, order int64) error {
	n := 0
	for n < len(cq.pending) && cq.pending[n].ord >= order {
		n++
	}
	if n == 0 {
		return nil
	}
	ids := make([]int64, n)
	ords := make(map[int64]int64, n)
	for i, c := range cq.pending[:n] {
		ids[i], ords[c.id] = c.id, c.ord
	}
	cq.pending = cq.pending[n:]
	comps, err := cq.st.Scan().CompactionsByID(ctx, ids)
	if err != nil {
		return err
	}
	for i := range comps {
		if h, ok := hb.compaction(&comps[i], ords[comps[i].ID]); ok {
			c.add(h)
		}
	}
	return nil
}
