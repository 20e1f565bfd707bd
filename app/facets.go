package app

import (
	"sync"

	"github.com/lazuli-app/lazuli/agents"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// facetCache keeps the sidebar filters' facets of each session, read again
// only when the session has new events.
type facetCache struct {
	mu     sync.Mutex
	byID   map[views.SessionRef]facetEntry
	loaded map[string]bool // stores whose saved facets were read (facetsfile.go)
}

type facetEntry struct {
	lastEventID int64
	created     string // the session's created time: an id reused for another session reads again
	facets      views.SessionFacets
}

// refreshFacets reads the facets of the sessions in groups that are new or
// changed since they were last read, and gives the sidebar all of them. It
// runs in the background, after the list is shown.
func (sl *sessionList) refreshFacets(groups []views.WorktreeGroup) {
	c := &sl.facets
	c.mu.Lock()
	if c.byID == nil {
		c.byID, c.loaded = map[views.SessionRef]facetEntry{}, map[string]bool{}
	}
	for _, g := range groups {
		if !c.loaded[g.StorePath] && g.StorePath != views.TeamStore {
			c.loaded[g.StorePath] = true
			loadFacets(g.StorePath, c.byID)
		}
	}
	stale := map[string][]store.Session{}
	for _, g := range groups {
		for _, s := range g.Sessions {
			ref := views.SessionRef{StorePath: g.StorePath, ID: s.ID}
			if e, ok := c.byID[ref]; !ok || e.lastEventID != s.LastEventID || e.created != s.Created {
				stale[g.StorePath] = append(stale[g.StorePath], s)
			}
		}
	}
	c.mu.Unlock()
	for path, sessions := range stale {
		st, err := sl.pw.store(path)
		if err != nil {
			continue // the list reported it
		}
		ids := make([]int64, len(sessions))
		for i, s := range sessions {
			ids[i] = s.ID
		}
		facets, err := st.Sessions().Facets(sl.pw.ctx, ids)
		if err != nil {
			sl.pw.showError("read sessions' agents", err)
			continue
		}
		native, _ := st.Native().Imports(sl.pw.ctx) // none: the model tells
		agentOf := map[int64]string{}
		for k, rec := range native {
			agentOf[rec.SessionID] = k.Agent
		}
		c.mu.Lock()
		for _, s := range sessions {
			f := facets[s.ID]
			ref := views.SessionRef{StorePath: path, ID: s.ID}
			c.byID[ref] = facetEntry{lastEventID: s.LastEventID, created: s.Created,
				facets: views.SessionFacets{Agent: agentName(agentOf[s.ID], f.Backend, f.Model, s.LastClaudeUUID), Model: f.Model, Failed: f.Failed}}
		}
		saveFacets(path, c.byID)
		c.mu.Unlock()
	}
	c.mu.Lock()
	all := make(map[views.SessionRef]views.SessionFacets, len(c.byID))
	for ref, e := range c.byID {
		all[ref] = e.facets
	}
	c.mu.Unlock()
	onUI(func() { sl.pw.mv.Sidebar().SetFacets(all) })
}

// agentName names the agent of a session (its backend's title, see
// agents.SessionBackend); "" when not known.
func agentName(native, usage, model, claudeUUID string) string {
	if b := agents.SessionBackend(native, usage, model, claudeUUID); b != "" {
		return b.Title()
	}
	return ""
}
