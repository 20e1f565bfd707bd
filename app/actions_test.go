package app

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/store"
	"github.com/lazuli-app/lazuli/views"
)

// TestLoadBigSessionTailFirst shows a big session's newest rows without
// taking it over, then the whole session.
func TestLoadBigSessionTailFirst(t *testing.T) {
	fa := test.NewTempApp(t)
	dir := t.TempDir()
	wt := Worktree{Dir: dir, Branch: "main", StorePath: filepath.Join(dir, StoreRelPath)}
	bg := context.Background()
	st, err := store.Open(bg, wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	events := make([]store.Event, 0, tailFirstEvents+500)
	for i := range cap(events) / 2 {
		events = append(events, store.UserMessage(fmt.Sprintf("prompt %d", i)), store.AssistantText(fmt.Sprintf("reply %d", i)))
	}
	s, n, err := st.CreateSessionWithEvents(bg, "main", "big", events)
	st.Close()
	if err != nil || n != len(events) {
		t.Fatalf("stored %d of %d: %v", n, len(events), err)
	}
	ctx, cancel := context.WithCancel(bg)
	pw := &projectWindow{ui: &gui{ctx: bg, fa: fa}, wts: []Worktree{wt}, ctx: ctx, cancel: cancel, stores: map[string]*store.Store{},
		runs: map[views.SessionRef]*runState{}, compactModels: map[views.SessionRef]string{}}
	pw.mv = views.NewMainView(pw)
	pw.win = test.NewTempWindow(t, pw.mv.Content())
	defer pw.close()
	ref := views.SessionRef{StorePath: wt.StorePath, ID: s.ID}
	open, err := pw.store(wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	full, err := open.GetSession(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}

	pw.showTail(open, ref, full, pw.loadGen)
	if got := pw.mv.Transcript().Session().ID; got != s.ID {
		t.Errorf("tail: transcript shows session %d, want %d", got, s.ID)
	}
	if pw.current != (views.SessionRef{}) || pw.lastSeq != 0 {
		t.Errorf("tail took the window over: current %v, lastSeq %d", pw.current, pw.lastSeq)
	}

	pw.loadSession(ref, pw.loadGen)
	if pw.current != ref || pw.lastSeq != int64(len(events)) {
		t.Errorf("whole load: current %v, lastSeq %d, want %v, %d", pw.current, pw.lastSeq, ref, len(events))
	}
}
