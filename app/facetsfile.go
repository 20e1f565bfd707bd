package app

// The sidebar's facets of a store's sessions are kept between runs in the
// cache folder (facets-2/KEY.json): reading them decodes every Init,
// ModelSwitch and Complete event of the store (1.7 s of CPU at each start
// for the 1 GB scale store), and a session's facets change only with its
// events. An entry is used while the session has the same last event id
// and created time; the file is only a cache, and one that cannot be read
// is read again from the store. The folder's name changes when what an
// entry means does (facets-2: the agent named by the last usage row), so
// that entries of the old meaning are never read.

import (
	"encoding/json"
	"log"
	"os"
	"path/filepath"

	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// savedFacet is one session's facets in the file.
type savedFacet struct {
	ID      int64  `json:"id"`
	Created string `json:"created"`
	Last    int64  `json:"last_event_id"`
	Agent   string `json:"agent,omitempty"`
	Model   string `json:"model,omitempty"`
	Failed  bool   `json:"failed,omitempty"`
}

// facetsDir is the cache folder's subfolder of facets files.
const facetsDir = "facets-2"

// facetsFile is the file of the facets of the store at storePath; "" when
// there is no cache folder.
func facetsFile(storePath string) string {
	dir, err := store.CacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, facetsDir, store.CacheKey(storePath)+".json")
}

// loadFacets adds the saved facets of the store at storePath to byID.
func loadFacets(storePath string, byID map[views.SessionRef]facetEntry) {
	path := facetsFile(storePath)
	if path == "" {
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return // none yet
	}
	var saved []savedFacet
	if err := json.Unmarshal(b, &saved); err != nil {
		log.Printf("facets cache %s: %v (read again from the store)", path, err)
		return
	}
	for _, f := range saved {
		byID[views.SessionRef{StorePath: storePath, ID: f.ID}] = facetEntry{lastEventID: f.Last, created: f.Created,
			facets: views.SessionFacets{Agent: f.Agent, Model: f.Model, Failed: f.Failed}}
	}
}

// saveFacets writes the facets in byID of the store at storePath, whole
// (a temporary file renamed over the old one).
func saveFacets(storePath string, byID map[views.SessionRef]facetEntry) {
	path := facetsFile(storePath)
	if path == "" {
		return
	}
	var saved []savedFacet
	for ref, e := range byID {
		if ref.StorePath == storePath {
			saved = append(saved, savedFacet{ID: ref.ID, Created: e.created, Last: e.lastEventID,
				Agent: e.facets.Agent, Model: e.facets.Model, Failed: e.facets.Failed})
		}
	}
	b, err := json.Marshal(saved)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o700)
	}
	if err == nil {
		tmp := path + ".tmp"
		if err = os.WriteFile(tmp, b, 0o600); err == nil {
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		log.Printf("save the facets cache: %v", err) // only a cache: the next start reads the store
	}
}
