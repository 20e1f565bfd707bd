package search

// A hitBuilder checks the candidates of one search against the query and
// makes their hits: the session's fields, the match, and (for the hits of
// the page only) the snippet.

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/lazuli-app/lazuli/store"
)

// hitBuilder checks candidates against the query and makes their hits.
type hitBuilder struct {
	q    *query
	path string
	// sessions reads the store's sessions, with each one's DisplayName,
	// when a hit first needs them: a search that finds nothing never reads
	// them.
	sessions func() (map[int64]sessionOfHit, error)
	read     atomic.Bool // sessions was called
}

// sessionOfHit is what a hit needs of its session.
type sessionOfHit struct {
	store.Session
	name string         // DisplayName
	fork store.ForkLink // when it is a fork: its parent and how many events it copied
}

// eventKey names an event: its session and seq.
type eventKey struct{ session, seq int64 }

func newHitBuilder(ctx context.Context, st *store.Store, q *query) (*hitBuilder, error) {
	load := sync.OnceValues(func() (map[int64]sessionOfHit, error) {
		list, err := st.Scan().Sessions(ctx)
		if err != nil {
			return nil, err
		}
		forks, err := st.Forks().All(ctx)
		if err != nil {
			return nil, err
		}
		m := make(map[int64]sessionOfHit, len(list))
		for _, s := range list {
			m[s.ID] = sessionOfHit{s, s.DisplayName(), forks[s.ID]}
		}
		return m, nil
	})
	return &hitBuilder{q: q, path: st.Path(), sessions: load}, nil
}

// session returns the session of id as the search saw it when it first
// needed the sessions; false when it had been deleted, or the sessions
// could not be read (err says why).
func (hb *hitBuilder) session(id int64) (sessionOfHit, bool) {
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
// of a large event and searching it is most of a search's work. The hits
// have no snippets (see eventSnippet).
func (hb *hitBuilder) events(evs []store.ScannedEvent) []checkedEvent {
	out := make([]checkedEvent, len(evs))
	parallel(len(evs), func(i int) { out[i].hit, out[i].ok = hb.event(&evs[i]) })
	return out
}

// eventsAt checks the events of evs at idx again, into out.
func (hb *hitBuilder) eventsAt(evs []store.ScannedEvent, idx []int, out []checkedEvent) {
	parallel(len(idx), func(k int) {
		i := idx[k]
		out[i].hit, out[i].ok = hb.event(&evs[i])
	})
}

// parallel calls fn(i) for each i in [0, n), on up to GOMAXPROCS
// goroutines when n is large enough to be worth it.
func parallel(n int, fn func(int)) {
	workers := min(runtime.GOMAXPROCS(0), (n+7)/8)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// event returns the hit of an event, without its snippet, if its text
// matches.
func (hb *hitBuilder) event(e *store.ScannedEvent) (Hit, bool) {
	if e.Event.Kind == "" {
		return Hit{}, false // undecodable
	}
	s, ok := hb.session(e.SessionID)
	if !ok {
		return Hit{}, false // deleted since the search began
	}
	own, full := scannedParts(e)
	start, end, ok := hb.q.matchJoined(own, full)
	if !ok {
		return Hit{}, false
	}
	h := hb.newHit(s)
	h.Seq, h.Kind, h.order, h.at = e.Seq, string(e.Kind), e.ID, [2]int{start, end}
	if fullAt := joinedAt(own, full); fullAt >= 0 && start >= fullAt {
		h.InFull, h.Offset = true, start-fullAt
	}
	if of, created, ok := hb.original(s, e.Seq); ok {
		// A fork's copy: it happened when the original did, and ranks just
		// after it (collector.add), wherever the page is; its snippet is
		// made now, while its event is at hand.
		h.Time, h.copyOf = created, of
		hb.eventSnippet(&h, e)
	}
	return h, true
}

// original reports whether the event seq of session s is a fork's copy of
// its parent's event, which it returns (a fork's events 1 to Copied are its
// parent's with the same seqs: AZUREAL numbers a session's events from 1
// without gaps), with the created time of the session the event first
// happened in (the parent's, or further up when the parent is a fork too).
func (hb *hitBuilder) original(s sessionOfHit, seq int64) (of eventKey, created string, ok bool) {
	m, _ := hb.sessions()
	for hops := 0; seq <= s.fork.Copied && hops < 64; hops++ {
		p, found := m[s.fork.ParentID]
		if !found {
			break
		}
		if !ok {
			of, ok = eventKey{p.ID, seq}, true
		}
		s = p
	}
	return of, s.Created, ok
}

// eventSnippet makes the snippet of h, the hit of e (event found its
// match, at h.at).
func (hb *hitBuilder) eventSnippet(h *Hit, e *store.ScannedEvent) {
	if h.Highlights != nil {
		return // made already (a fork's copy)
	}
	own, full := scannedParts(e)
	start, end := h.at[0], h.at[1]
	h.Snippet, h.Highlights = hb.q.makeSnippet(snippetText(own, full, end), start, end)
	h.at = [2]int{}
}

// thoughtSnippet makes the snippet of a thought's hit, from the text
// matchingThoughts kept.
func (hb *hitBuilder) thoughtSnippet(h *Hit) {
	if h.src != "" {
		h.Snippet, h.Highlights = hb.q.makeSnippet(h.src, h.at[0], h.at[1])
	}
	h.src, h.at = "", [2]int{}
}

// compaction returns the hit of a compaction summary, with its snippet,
// if it matches.
func (hb *hitBuilder) compaction(c *store.Compaction, order int64) (Hit, bool) {
	text := capText(c.Summary)
	h, start, end, ok := hb.hit(c.SessionID, text)
	if ok {
		h.Snippet, h.Highlights = hb.q.makeSnippet(text, start, end)
	}
	h.Seq, h.Kind, h.order = c.AfterSeq, KindCompaction, order
	if c.Created != "" {
		h.Time = c.Created
	}
	return h, ok
}

// hit matches text and makes the hit, without its snippet, with the
// match's range in text.
func (hb *hitBuilder) hit(sessionID int64, text string) (Hit, int, int, bool) {
	s, ok := hb.session(sessionID)
	if !ok {
		return Hit{}, 0, 0, false // deleted since the search began
	}
	start, end, ok := hb.q.match(text)
	if !ok {
		return Hit{}, 0, 0, false
	}
	return hb.newHit(s), start, end, true
}

// newHit returns a hit of session s with the session's fields set.
func (hb *hitBuilder) newHit(s sessionOfHit) Hit {
	return Hit{StorePath: hb.path, SessionID: s.ID, DisplayName: s.name, Worktree: s.Worktree, Time: s.Created}
}
