package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/internal/interrupted"
	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// TestWindowLeavesInterruptedStore: a window on a project whose store has
// a hot journal (a writer killed in the middle of a write) or an
// un-checkpointed WAL file lists it, refreshes, shows a session, indexes
// and searches it without changing the file, its modification time or the
// file beside it, and shows what was committed.
func TestWindowLeavesInterruptedStore(t *testing.T) {
	for _, tt := range []struct {
		name, sidecar string
		interrupt     func(string) error
		sessions      int
	}{
		{"Journal", "-journal", interrupted.Journal, 1},
		{"WAL", "-wal", interrupted.WAL, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(store.CacheDirEnv, t.TempDir())
			fa := test.NewTempApp(t)
			dir := t.TempDir()
			wt := Worktree{Dir: dir, Branch: "main", StorePath: filepath.Join(dir, StoreRelPath)}
			bg := context.Background()
			st, err := store.Open(bg, wt.StorePath)
			if err != nil {
				t.Fatal(err)
			}
			s, _, err := st.Sessions().CreateWithEvents(bg, "main", "kept", []codec.Event{
				codec.UserMessage("find the quaggle"), codec.AssistantText("the quaggle is committed")})
			st.Close()
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.interrupt(wt.StorePath); err != nil {
				t.Fatal(err)
			}
			state := func() [2][]byte {
				data, err1 := os.ReadFile(wt.StorePath)
				side, err2 := os.ReadFile(wt.StorePath + tt.sidecar)
				if err1 != nil || err2 != nil {
					t.Fatalf("%v %v", err1, err2)
				}
				return [2][]byte{data, side}
			}
			mtime := func() time.Time {
				fi, err := os.Stat(wt.StorePath)
				if err != nil {
					t.Fatal(err)
				}
				return fi.ModTime()
			}
			before, beforeTime := state(), mtime()

			pw := testWindow(t, fa, wt)
			ctx := pw.ctx
			pw.search = newSearcher(pw)
			for range 2 { // the first list, then a live refresh
				groups, errs := pw.list.listGroups()
				if len(errs) > 0 || len(groups) != 1 || len(groups[0].Sessions) != tt.sessions {
					t.Fatalf("listGroups = %+v, %v", groups, errs)
				}
			}
			ref := views.SessionRef{StorePath: wt.StorePath, ID: s.ID}
			pw.shown.loadSession(ref, pw.shown.loadGen)
			if pw.shown.current != ref || len(pw.mv.Transcript().Session().Name) == 0 {
				t.Errorf("the session did not load: current %v", pw.shown.current)
			}
			pw.search.updateAll(ctx)
			if res := pw.search.searchAll(ctx, "quaggle"); res.Err != "" || len(res.Hits) != 2 {
				t.Errorf("search = %+v", res)
			}
			pw.close() // the last connection to close checkpoints a WAL file, if it may
			pw.search.closeAll()
			after := state()
			if !bytes.Equal(before[0], after[0]) || !beforeTime.Equal(mtime()) {
				t.Error("the window changed the store")
			}
			if !bytes.Equal(before[1], after[1]) {
				t.Errorf("the window changed %s", tt.sidecar)
			}
		})
	}
}
