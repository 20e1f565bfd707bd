package search

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"
)

// Options say which part of the answer a search returns, and whether it
// may stop early.
type Options struct {
	// Limit is how many hits (or sessions, with Sessions) to return at
	// most: DefaultLimit when ≤ 0.
	Limit int
	// Offset is how many of the first hits (or sessions) to skip: Offset
	// and Limit make a page of the answer, and Result.More says that
	// others follow it.
	Offset int
	// Sessions asks for the matching sessions (Result.Sessions), each once,
	// ranked as SessionHit says, instead of the hits. The answer then
	// checks every candidate, however many hits there are.
	Sessions bool
	// Budget, when positive, is how long a search checks candidates before
	// it stops: the Result is then Partial, with a Note. Zero checks every
	// candidate, so the answer is complete however long that takes. Only
	// a search whose answer is soon replaced (the window's as-you-type
	// results, see TypingBudget) should set it.
	Budget time.Duration
}

// TypingBudget is the Budget of the window's as-you-type search, which
// the next keystroke replaces: only a phrase of very common words gets
// near it, since the index stores no positions and every event that holds
// all the phrase's 4-grams is a candidate.
const TypingBudget = 400 * time.Millisecond

// limit returns o.Limit, or DefaultLimit when it is not positive.
func (o Options) limit() int {
	if o.Limit <= 0 {
		return DefaultLimit
	}
	return o.Limit
}

// end is the position just after the page: Offset+Limit, without overflow.
func (o Options) end() int {
	return int(min(int64(max(o.Offset, 0))+int64(o.limit()), math.MaxInt32))
}

// SessionHit is a session with hits, as a search with Options.Sessions
// lists it. Sessions are ranked by their number of hits, most first; among
// sessions with as many, the one whose newest hit is newer comes first.
type SessionHit struct {
	StorePath   string `json:"store"`
	SessionID   int64  `json:"session_id"`
	DisplayName string `json:"display_name"`
	Worktree    string `json:"worktree"`
	// Hits is how many events, compaction summaries and thoughts of the
	// session match.
	Hits int `json:"hits"`
	// Newest is the session's newest hit, with its snippet.
	Newest Hit `json:"newest"`
}

// rankSessions sorts sessions best first (see SessionHit): by hits, then
// by the newest hit's session time, place among the store's events, store
// and id, so that the order is the same on every run.
func rankSessions(list []SessionHit) {
	slices.SortStableFunc(list, func(a, b SessionHit) int {
		return cmp.Or(cmp.Compare(b.Hits, a.Hits), cmp.Compare(b.Newest.Time, a.Newest.Time),
			cmp.Compare(b.Newest.order, a.Newest.order), cmp.Compare(a.StorePath, b.StorePath),
			cmp.Compare(a.SessionID, b.SessionID))
	})
}

// pageOf returns the page of list that opt asks for, and whether items
// follow it.
func pageOf[T any](list []T, opt Options) ([]T, bool) {
	from, to := min(max(opt.Offset, 0), len(list)), min(opt.end(), len(list))
	return list[from:to], len(list) > opt.end()
}

// collector gathers a search's hits newest first, as its checks find
// them, and says which need their snippet: only those on the page (with
// Options.Sessions, each session's newest). The thoughts are known before
// the events are checked, so the place a hit takes among all hits is known
// when it is found.
type collector struct {
	opt      Options
	thoughts []Hit // the matching thoughts, newest first, without snippets
	hits     []Hit // event and compaction hits, newest first
	sessions map[int64]*SessionHit
	// copies are the hits of forks' copies whose original is not among
	// the hits yet: each goes just after its original (release).
	copies []Hit
}

func newCollector(opt Options, thoughts []Hit) *collector {
	c := &collector{opt: opt, thoughts: thoughts}
	if opt.Sessions {
		c.sessions = map[int64]*SessionHit{}
	}
	return c
}

// thoughtsAbove is the number of thoughts that come before a hit at order:
// a thought sits just below the event it came before.
func (c *collector) thoughtsAbove(order int64) int {
	return sort.Search(len(c.thoughts), func(i int) bool { return c.thoughts[i].order <= order })
}

// wants reports whether the next event or compaction hit, of session
// sessionID at order, needs its snippet.
func (c *collector) wants(sessionID, order int64) bool {
	if c.sessions != nil {
		_, seen := c.sessions[sessionID]
		return !seen
	}
	p := len(c.hits) + c.thoughtsAbove(order)
	return p >= c.opt.Offset && p < c.opt.end()
}

// add records the next event or compaction hit, newest first; a fork's
// copy of an event waits for the original, which it follows.
func (c *collector) add(h Hit) {
	if c.sessions == nil {
		if h.copyOf != (eventKey{}) {
			c.copies = append(c.copies, h)
			return
		}
		c.hits = append(c.hits, h)
		c.release(h)
		return
	}
	if s, ok := c.sessions[h.SessionID]; ok {
		s.Hits++
		return
	}
	c.sessions[h.SessionID] = &SessionHit{StorePath: h.StorePath, SessionID: h.SessionID, DisplayName: h.DisplayName,
		Worktree: h.Worktree, Hits: 1, Newest: h}
}

// release adds after h the copies of h's event waiting for it, each
// followed by the copies of it (a fork of a fork).
func (c *collector) release(h Hit) {
	if len(c.copies) == 0 || h.Kind == KindCompaction || h.Kind == KindThinking {
		return
	}
	key := eventKey{h.SessionID, h.Seq}
	for i := 0; i < len(c.copies); {
		cp := c.copies[i]
		if cp.copyOf != key {
			i++
			continue
		}
		c.copies = slices.Delete(c.copies, i, i+1)
		cp.order = h.order // its place among the thoughts too
		c.hits = append(c.hits, cp)
		c.release(cp)
	}
}

// releaseAll adds the copies whose original is not among the hits (it did
// not match, or its session is gone) after them all: the search checked
// every candidate.
func (c *collector) releaseAll() {
	for _, cp := range c.copies {
		if n := len(c.hits); n > 0 {
			cp.order = min(cp.order, c.hits[n-1].order)
		}
		c.hits = append(c.hits, cp)
	}
	c.copies = nil
}

// wanted is how many more hits at most the page and More need: a search
// for hits checks no more candidates at once than that.
func (c *collector) wanted() int {
	if c.sessions != nil {
		return math.MaxInt
	}
	return max(1, c.opt.end()+1-len(c.hits))
}

// full reports that the hits found reach past the page: the next ones
// cannot be on it, and More is true.
func (c *collector) full() bool {
	n := len(c.hits)
	return c.sessions == nil && n > 0 && n-1+c.thoughtsAbove(c.hits[n-1].order) >= c.opt.end()
}

// result returns the page of the hits (or sessions) and thoughts;
// stopped says that not every candidate was checked (the page is full, or
// the budget ran out). snippet makes a thought's snippet.
func (c *collector) result(stopped bool, snippet func(*Hit)) Result {
	if c.sessions != nil {
		return c.sessionResult(snippet)
	}
	if !stopped {
		c.releaseAll()
	}
	thoughts := c.thoughts
	if stopped {
		// Thoughts below the last hit were not compared with the events
		// between them that were never checked.
		if len(c.hits) == 0 {
			thoughts = nil
		} else {
			thoughts = thoughts[:c.thoughtsAbove(c.hits[len(c.hits)-1].order)]
		}
	}
	all := make([]Hit, 0, len(c.hits)+len(thoughts))
	i := 0
	for _, h := range c.hits {
		for i < len(thoughts) && thoughts[i].order > h.order {
			all, i = append(all, thoughts[i]), i+1
		}
		all = append(all, h)
	}
	all = append(all, thoughts[i:]...)
	var res Result
	res.Hits, res.More = pageOf(all, c.opt)
	res.Hits = slices.Clone(res.Hits) // let the rest go
	for i := range res.Hits {
		if res.Hits[i].Kind == KindThinking {
			snippet(&res.Hits[i])
		}
	}
	return res
}

// sessionResult counts the thoughts into the sessions and returns them
// ranked, paged.
func (c *collector) sessionResult(snippet func(*Hit)) Result {
	for _, t := range c.thoughts { // newest first
		s, ok := c.sessions[t.SessionID]
		switch {
		case !ok:
			snippet(&t)
			c.sessions[t.SessionID] = &SessionHit{StorePath: t.StorePath, SessionID: t.SessionID, DisplayName: t.DisplayName,
				Worktree: t.Worktree, Hits: 1, Newest: t}
		case t.order > s.Newest.order && s.Newest.Kind != KindThinking:
			snippet(&t)
			s.Hits, s.Newest = s.Hits+1, t
		default:
			s.Hits++
		}
	}
	list := make([]SessionHit, 0, len(c.sessions))
	for _, s := range c.sessions {
		list = append(list, *s)
	}
	rankSessions(list)
	var res Result
	res.Sessions, res.More = pageOf(list, c.opt)
	return res
}
