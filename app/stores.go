package app

import (
	"context"
	"log"
	"strings"
	"sync"

	"github.com/lazuli-app/lazuli/agents/native"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// storeSet owns the window's open stores: each is opened on first use
// (read-only in a read-only window) and closed with the window.
type storeSet struct {
	pw *projectWindow

	mu     sync.Mutex
	stores map[string]*store.Store // by path
}

func newStoreSet(pw *projectWindow) *storeSet {
	return &storeSet{pw: pw, stores: map[string]*store.Store{}}
}

// open returns the open store at path, opening it on first use.
func (ss *storeSet) open(path string) (*store.Store, error) {
	if strings.HasPrefix(path, views.TeamStore) { // never a file: the team's sessions are in its database
		return nil, errTeamReadOnly
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if st, ok := ss.stores[path]; ok {
		return st, nil
	}
	pw := ss.pw
	var st *store.Store
	var err error
	if pw.readOnly {
		st, err = store.OpenReadOnly(pw.ctx, path)
	} else {
		// Opening to look writes nothing, in the store or in git: the
		// store is kept out of git when the first write creates it.
		st, err = store.Open(pw.ctx, path, store.WithFirstWrite(func() { excludeStore(path) }))
	}
	if err != nil {
		return nil, err
	}
	st.FullText().SetKeep(pw.keepFullText())
	if !pw.readOnly {
		linkSubagents(pw.ctx, st)
	}
	ss.stores[path] = st
	return st, nil
}

// linkSubagents links the sub-agent sessions of st that an import of
// native history stored before Lazuli linked them (native.LinkSubagents),
// so that "open sub-agent ›" and "↖ parent" find them. It runs when a
// window that may write opens a store it validated, before any of its
// sessions is shown; a store whose sub-agents are all linked (every store
// once this ran, and every store never imported into) costs one query
// and is not written. A failure is logged: the store is shown without
// the links.
func linkSubagents(ctx context.Context, st *store.Store) {
	if !st.Exists() {
		return // nothing imported, and opening must not create the file
	}
	n, err := native.LinkSubagents(ctx, st)
	switch {
	case err != nil:
		log.Printf("link sub-agent sessions of %s: %v", st.Path(), err)
	case n > 0:
		log.Printf("linked %d imported sub-agent session(s) of %s to their parent", n, st.Path())
	}
}

// all returns the stores open now.
func (ss *storeSet) all() []*store.Store {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	out := make([]*store.Store, 0, len(ss.stores))
	for _, st := range ss.stores {
		out = append(out, st)
	}
	return out
}

// closeAll closes the stores; the window's goroutines have ended.
func (ss *storeSet) closeAll() {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for _, st := range ss.stores {
		if err := st.Close(); err != nil {
			log.Printf("close store %s: %v", st.Path(), err)
		}
	}
	ss.stores = map[string]*store.Store{}
}
