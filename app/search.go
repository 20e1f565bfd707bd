package app

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"github.com/lazuli-app/lazuli/search"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/trace"
	"github.com/lazuli-app/lazuli/views"
)

// indexDelay is how long a new window waits before it starts indexing, so
// that showing the sessions comes first.
const indexDelay = time.Second

// searcher keeps the search index of each of the window's stores up to
// date in the background (after the window opens and whenever the store
// watcher sees a change) and answers the search panel. Its run loop is one
// of the window's goroutines; it closes the indexes when the window closes.
type searcher struct {
	pw    *projectWindow
	panel *views.SearchPanel
	wake  chan struct{} // a buffered poke: something changed

	mu       sync.Mutex
	indexes  map[string]*search.Index // by store path
	failed   map[string]bool          // stores whose index cannot be used
	progress map[string]float64       // fraction indexed, while building
	cancel   context.CancelFunc       // of the search running, if any
	closed   bool                     // the window closed: open no more indexes

	insight *insightKeeper // the insight indexes, updated in the same pass (insight.go)

	// fed, when set (tests), receives what each import's feed did.
	fed func(path string, s search.Stats)
	// started, when set (tests), is told each query that reads the index.
	started func(query string)
	// pause returns when a query may read the index: after searchPause.
	pause func() <-chan time.Time
}

func newSearcher(pw *projectWindow) *searcher {
	s := &searcher{pw: pw, wake: make(chan struct{}, 1), indexes: map[string]*search.Index{},
		failed: map[string]bool{}, progress: map[string]float64{}, insight: newInsightKeeper(),
		pause: func() <-chan time.Time { return time.After(searchPause) }}
	s.panel = views.NewSearchPanel(searchIntents{s, pw.shown})
	s.panel.SetBackdrop(pw.mv.Backdrop())
	return s
}

// searchIntents routes the search panel's intents (views.SearchActions):
// the query to the searcher, the hit to the shown session's owner.
type searchIntents struct {
	*searcher
	*shownSession
}

// poke asks the run loop to update the indexes; it never blocks.
func (s *searcher) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// run updates the indexes until ctx ends, then closes them.
func (s *searcher) run(ctx context.Context) {
	defer s.closeAll()
	select {
	case <-time.After(indexDelay):
	case <-ctx.Done():
		return
	}
	for {
		s.updateAll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
	}
}

// updateAll brings the index of every store that exists up to date.
func (s *searcher) updateAll(ctx context.Context) {
	for _, wt := range s.pw.wts {
		st, err := s.pw.store(wt.StorePath)
		if err != nil || !st.Exists() {
			continue // the sidebar reports stores that cannot be opened
		}
		if x := s.index(ctx, st); x != nil {
			path := st.Path()
			stats, err := x.Update(ctx, func(done, total int64) { s.setProgress(path, done, total) })
			s.setProgress(path, 1, 1)
			if err != nil && ctx.Err() == nil {
				log.Printf("search index: %v", err)
			}
			if stats.Damaged {
				note := search.DamagedNote(path)
				log.Print(note)
				onUI(func() { s.panel.SetIndexing(note) })
			}
		}
		s.insight.update(ctx, st)
		if ctx.Err() != nil {
			return
		}
	}
}

// index returns the open index of st, opening it on first use; nil when
// it cannot be used (the search then reads the store itself).
func (s *searcher) index(ctx context.Context, st *store.Store) *search.Index {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := st.Path()
	if x, ok := s.indexes[path]; ok || s.failed[path] || s.closed {
		return x
	}
	x, err := search.Open(ctx, st)
	if err != nil {
		log.Printf("search without an index: %v", err)
		s.failed[path] = true
		return nil
	}
	s.indexes[path] = x
	return x
}

// importFeed returns the hook of an import into st
// (native.ImportOptions.Stored) and the function that ends it, to call
// once the import returns: the rows each import transaction stores are
// indexed in the same pass (search.ImportFeed), as import-native does, so a
// search right after the import finds them without a catch-up pass. The
// index is opened when the import first stores events. s may be nil (some
// tests' windows have no searcher): the import then indexes nothing.
func (s *searcher) importFeed(ctx context.Context, st *store.Store) (stored func([]store.NativeResult), done func()) {
	if s == nil {
		return nil, func() {}
	}
	f := search.NewImportFeed(ctx, func() (*search.Index, error) {
		if x := s.index(ctx, st); x != nil {
			return x, nil
		}
		return nil, fmt.Errorf("%w: %s", search.ErrUnavailable, st.Path())
	})
	return f.Stored, func() {
		x, stats, err := f.Close(nil)
		if x == nil && err == nil {
			return // nothing stored
		}
		if err != nil && ctx.Err() == nil && x != nil {
			log.Printf("search index: %v", err) // the next update does the rest
		}
		if s.fed != nil {
			s.fed(st.Path(), stats)
		}
	}
}

// setProgress records how far the index of path is and shows the overall
// progress in the panel.
func (s *searcher) setProgress(path string, done, total int64) {
	s.mu.Lock()
	if total <= 0 || done >= total {
		delete(s.progress, path)
	} else {
		s.progress[path] = float64(done) / float64(total)
	}
	text := ""
	if n := len(s.progress); n > 0 {
		sum := 0.0
		for _, f := range s.progress {
			sum += f
		}
		text = fmt.Sprintf("Indexing… %.0f%%", 100*sum/float64(n))
	}
	s.mu.Unlock()
	onUI(func() { s.panel.SetIndexing(text) })
}

// closeAll closes the indexes.
func (s *searcher) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for path, x := range s.indexes {
		if err := x.Close(); err != nil {
			log.Printf("close search index of %s: %v", path, err)
		}
	}
	s.indexes, s.closed = map[string]*search.Index{}, true
	s.insight.closeAll()
}

// showSearch opens the search panel (Ctrl+K).
func (s *searcher) showSearch() {
	s.panel.Show(s.pw.win.Canvas())
}

// searchPause is how long a query of the search panel waits for the next
// key before it reads the index: keys that arrive together (typed while the
// window was busy) search once. It is part of the time from the last key
// to the results, so it is kept below the time between two typed keys.
const searchPause = 25 * time.Millisecond

// Search runs a query of the search panel off the Fyne goroutine, after
// searchPause; a newer query cancels it.
func (s *searcher) Search(id int, query string) {
	team := s.pw.mv.Sidebar().TeamShown() // Ctrl+K searches the source the sidebar shows
	ctx, cancel := context.WithCancel(s.pw.ctx)
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel()
	}
	s.cancel = cancel
	s.mu.Unlock()
	s.pw.wg.Go(func() {
		defer cancel()
		// The panel sends every key typed: wait for the next one here, off
		// the Fyne goroutine, so that a word typed quickly reads the index
		// once and the last key's search starts without a hand-off.
		select {
		case <-s.pause():
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			return // a newer query, or the window closed
		}
		trace.Mark("stage", "search start "+query)
		if s.started != nil {
			s.started(query)
		}
		var res views.SearchResults
		if team {
			res = s.pw.team.search(ctx, query)
		} else {
			res = s.searchAll(ctx, query)
		}
		if ctx.Err() != nil {
			return // a newer query, or the window closed
		}
		trace.Markf("stage", "search done %s: %d hits", query, len(res.Hits))
		onUI(func() { s.panel.SetResults(id, res) })
	})
}

// searchAll searches every store of the window that exists.
func (s *searcher) searchAll(ctx context.Context, query string) views.SearchResults {
	var sources []search.Source
	for _, wt := range s.pw.wts {
		st, err := s.pw.store(wt.StorePath)
		if err != nil || !st.Exists() {
			continue
		}
		sources = append(sources, search.Source{Store: st, Index: s.index(ctx, st)})
	}
	if len(sources) == 0 {
		return views.SearchResults{Err: "There are no sessions to search yet."}
	}
	// As you type: the next keystroke replaces the answer, so it may stop
	// at the budget, and the panel says so (Partial, Note).
	res, err := search.Stores(ctx, sources, query, search.Options{Budget: search.TypingBudget})
	if err != nil {
		return searchError(ctx, query, err)
	}
	return searchResults(res)
}

// searchError is the panel's answer to a search that failed.
func searchError(ctx context.Context, query string, err error) views.SearchResults {
	switch {
	case errors.Is(err, search.ErrEmptyQuery), errors.Is(err, search.ErrShortQuery), errors.Is(err, search.ErrLongQuery):
		return views.SearchResults{Err: capitalize(err.Error()) + "."}
	case ctx.Err() == nil:
		log.Printf("search %q: %v", query, err)
	}
	return views.SearchResults{Err: "The search failed: " + userMessage(err).Error()}
}

// searchResults turns a search's result into the panel's.
func searchResults(res search.Result) views.SearchResults {
	out := views.SearchResults{More: res.More, Partial: res.Partial, Note: res.Note, Hits: make([]views.SearchHit, len(res.Hits))}
	for i, h := range res.Hits {
		out.Hits[i] = views.SearchHit{
			Ref: views.SessionRef{StorePath: h.StorePath, ID: h.SessionID}, Session: h.DisplayName,
			Worktree: h.Worktree, Seq: h.Seq, Kind: h.Kind, Time: h.Time, Snippet: h.Snippet, Highlights: h.Highlights,
			InFull: h.InFull, Offset: h.Offset,
		}
	}
	return out
}

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// eventTarget is an event a search hit asked to show once its session is
// loaded.
type eventTarget struct {
	ref        views.SessionRef
	seq        int64
	compaction bool
	full       bool // the match is in the event's full text, at offset
	offset     int
	match      string // the text matched there, marked in the output
	thinking   bool   // a hit in the thinking before the event
}

// OpenSearchHit shows the hit's session scrolled to its event.
func (sh *shownSession) OpenSearchHit(h views.SearchHit) {
	target := &eventTarget{ref: h.Ref, seq: h.Seq, compaction: h.Kind == search.KindCompaction, full: h.InFull, offset: h.Offset,
		match: h.Match(), thinking: h.Kind == search.KindThinking}
	sh.mu.Lock()
	shown := sh.current == h.Ref
	sh.showEvent = target
	sh.mu.Unlock()
	if shown {
		sh.showPendingEvent(h.Ref)
		return
	}
	sh.SelectSession(h.Ref)
}

// showPendingEvent scrolls the transcript to the event a search hit asked
// for, once ref is shown. It runs on the Fyne goroutine.
func (sh *shownSession) showPendingEvent(ref views.SessionRef) {
	sh.mu.Lock()
	t := sh.showEvent
	sh.showEvent = nil // another session shown: the user moved on
	gen, first := sh.loadGen, sh.firstSeq
	sh.mu.Unlock()
	if t == nil || t.ref != ref {
		sh.pw.mv.Backdrop().Thaw()
		return
	}
	sh.pw.mv.ShowFilesTab(false) // the event is in the transcript, not in the Files tab
	tr := sh.pw.mv.Transcript()
	show := func() {
		defer func() {
			sh.pw.mv.Backdrop().Thaw() // frozen since the hit was opened in the search panel
			tr.TraceSettled("open_hit")
		}()
		if t.thinking {
			tr.Nav().ShowThought(t.seq)
			return
		}
		if t.full {
			tr.Nav().ShowFullMatch(t.seq, t.offset, t.match)
			return
		}
		tr.Nav().ShowEvent(t.seq, t.compaction)
	}
	if tr.Loader().Earlier() == 0 || t.seq >= first {
		show()
		return
	}
	// The event is among those not loaded (a compaction hit's seq is the
	// last event its summary covers): load from it up to those shown.
	sh.pw.wg.Go(func() {
		sh.prependEarlier(ref, gen, first, func(st *store.Store) ([]store.StoredEvent, int, error) {
			return loadFrom(sh.pw.ctx, st, ref.ID, t.seq, first)
		}, show)
	})
}
