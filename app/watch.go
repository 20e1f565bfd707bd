package app

import (
	"os"
	"time"

	"github.com/lazuli-app/lazuli/store"
)

// watchInterval is how often the window looks for changes other processes
// (AZUREAL, the CLI, an agent run) made to its stores: one stat per store,
// well within the one-second update the user expects.
const watchInterval = 400 * time.Millisecond

// fileStamp identifies a version of a store file.
type fileStamp struct {
	size    int64
	modTime time.Time
	exists  bool
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{size: fi.Size(), modTime: fi.ModTime(), exists: true}
}

// watch refreshes the sidebar and the shown session when a store file
// changes, until the window closes.
func (pw *projectWindow) watch() {
	stamps := map[string]fileStamp{}
	for _, wt := range pw.wts {
		stamps[wt.StorePath] = stampOf(wt.StorePath)
	}
	tick := time.NewTicker(watchInterval)
	defer tick.Stop()
	for {
		select {
		case <-pw.ctx.Done():
			return
		case <-tick.C:
		}
		changed := false
		for path, old := range stamps {
			if now := stampOf(path); now != old {
				stamps[path], changed = now, true
				pw.shown.followStore(path)
			}
		}
		if changed {
			pw.list.refresh()
			pw.search.poke()
		}
		pw.compact.updateBanner()
	}
}

// followStore appends new events of the shown session when it lives in the
// store at path, and updates its meter.
func (sh *shownSession) followStore(path string) {
	sh.mu.Lock()
	ref, last, gen := sh.current, sh.lastSeq, sh.loadGen
	sh.mu.Unlock()
	if ref.StorePath != path || ref.ID == 0 {
		return
	}
	st, err := sh.pw.store(path)
	if err != nil {
		return
	}
	s, err := st.Sessions().Get(sh.pw.ctx, ref.ID)
	if err != nil {
		return // deleted elsewhere: the refreshed sidebar shows it
	}
	events, err := loadShown(sh.pw.ctx, st, ref.ID, last+1, 0)
	if err != nil {
		sh.pw.showError("load new events", err)
		return
	}
	comps, err := st.Compactions().Of(sh.pw.ctx, ref.ID)
	if err != nil {
		return
	}
	var full map[int64]store.FullText
	if len(events) > 0 {
		if full, err = st.FullText().Range(sh.pw.ctx, ref.ID, last+1, 0); err != nil {
			return
		}
	}
	sh.mu.Lock()
	if gen != sh.loadGen || sh.current != ref {
		sh.mu.Unlock()
		return
	}
	if len(events) > 0 {
		sh.lastSeq = lastSeqOf(events)
	}
	sh.currentChars = s.CharsSinceCompaction
	var fresh []store.Compaction
	if len(comps) > sh.compCount {
		fresh = comps[sh.compCount:]
		sh.compCount = len(comps)
	}
	sh.mu.Unlock()
	onUI(func() {
		if len(events) > 0 {
			sh.pw.mv.Transcript().AddFullText(full)
			sh.pw.mv.Transcript().AppendEvents(events)
		}
		for _, c := range fresh {
			sh.pw.mv.Transcript().AddCompaction(c)
		}
		sh.pw.mv.Meter().Set(s.CharsSinceCompaction)
	})
}
