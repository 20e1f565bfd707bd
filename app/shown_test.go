package app

import (
	"context"
	"fmt"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/views"
)

// testWindow builds a project window on wts for a test, without its
// background watch and refresh (the test calls what it needs).
func testWindow(t *testing.T, fa fyne.App, wts ...Worktree) *projectWindow {
	t.Helper()
	pw := newWindowParts(&gui{ctx: context.Background(), fa: fa}, wts, false)
	pw.win = test.NewTempWindow(t, pw.mv.Content())
	t.Cleanup(func() { // no background work of this window outlives its test (it would draw while the next one does)
		pw.cancel()
		pw.wg.Wait()
	})
	return pw
}

// TestLoadBigSessionFromItsEnd shows a long session's newest events, with
// the model of an Init outside them; earlier events come in batches or all
// at once, and a search hit among those not loaded loads from it.
func TestLoadBigSessionFromItsEnd(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	const total = tailFirstEvents + 500
	events := []codec.Event{codec.Init("/w", "claude-sonnet-4-5")}
	for i := 0; len(events) < total; i++ {
		events = append(events, codec.UserMessage(fmt.Sprintf("prompt %d", i)), codec.AssistantText(fmt.Sprintf("reply %d", i)))
	}
	events = events[:total]
	s, n, err := st.Sessions().CreateWithEvents(bg, "main", "big", events)
	st.Close()
	if err != nil || n != len(events) {
		t.Fatalf("stored %d of %d: %v", n, len(events), err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	ref := views.SessionRef{StorePath: wt.StorePath, ID: s.ID}
	tr := pw.mv.Transcript()
	check := func(step string, wantFirst int64) {
		t.Helper()
		if pw.shown.firstSeq != wantFirst || pw.shown.lastSeq != total || tr.Loader().Earlier() != int(wantFirst-1) {
			t.Errorf("%s: seqs %d..%d shown, %d earlier; want %d..%d, %d earlier",
				step, pw.shown.firstSeq, pw.shown.lastSeq, tr.Loader().Earlier(), wantFirst, total, wantFirst-1)
		}
	}

	pw.shown.loadSession(ref, pw.shown.loadGen)
	if pw.shown.current != ref || tr.Session().ID != s.ID {
		t.Fatalf("load: current %v, transcript session %d; want %v", pw.shown.current, tr.Session().ID, ref)
	}
	check("load", total-windowEvents+1)
	if got := pw.mv.PromptBox().Model(); got != "sonnet" {
		t.Errorf("model = %q, want sonnet (from the Init before the events shown)", got)
	}

	pw.shown.LoadEarlier(ref, false)
	pw.wg.Wait()
	check("one batch earlier", total-2*windowEvents+1)

	pw.shown.mu.Lock()
	pw.shown.showEvent = &eventTarget{ref: ref, seq: 42}
	pw.shown.mu.Unlock()
	pw.shown.showPendingEvent(ref)
	pw.wg.Wait()
	check("search hit at seq 42", 42)

	pw.shown.LoadEarlier(ref, true)
	pw.wg.Wait()
	check("all", 1)
	pw.shown.LoadEarlier(ref, true) // nothing left: no request, nothing changes
	pw.wg.Wait()
	check("all again", 1)
}

// TestOpenHitInLongSessionLoadsFromIt: a search hit in a long session,
// among the events a load from the end leaves out, loads the session from
// the hit: it is shown at once, with no second load above the end.
func TestOpenHitInLongSessionLoadsFromIt(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	const total = tailFirstEvents + 500
	events := make([]codec.Event, 0, total)
	for i := 0; len(events) < total; i++ {
		events = append(events, codec.UserMessage(fmt.Sprintf("prompt %d", i)), codec.AssistantText(fmt.Sprintf("reply %d", i)))
	}
	s, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", "big", events[:total])
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	ref := views.SessionRef{StorePath: wt.StorePath, ID: s.ID}
	st2, err := pw.store(ref.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	if evs, earlier, ok, err := loadFromHit(context.Background(), st2, s.ID, 42); !ok || err != nil || len(evs) == 0 || evs[0].Seq != 42 || earlier != 41 {
		t.Errorf("loadFromHit(42) = %d events from %v, %d earlier, %v, %v; want from 42, 41 earlier", len(evs), firstSeqOf(evs), earlier, ok, err)
	}
	if _, _, ok, err := loadFromHit(context.Background(), st2, s.ID, total-10); ok || err != nil {
		t.Errorf("loadFromHit(a seq in the end) = %v, %v; want false: the end holds it", ok, err)
	}
	for _, tc := range []struct {
		name      string
		seq       int64
		wantFirst int64
	}{
		{"AmongTheLeftOut", 42, 42},
		{"InTheEnd", total - 10, total - windowEvents + 1},
	} {
		pw.shown.mu.Lock()
		pw.shown.showEvent = &eventTarget{ref: ref, seq: tc.seq}
		pw.shown.mu.Unlock()
		pw.shown.loadSession(ref, pw.shown.loadGen)
		pw.wg.Wait()
		tr := pw.mv.Transcript()
		if pw.shown.firstSeq != tc.wantFirst || pw.shown.lastSeq != total || tr.Loader().Earlier() != int(tc.wantFirst-1) {
			t.Errorf("%s: seqs %d..%d shown, %d earlier; want %d..%d, %d earlier", tc.name,
				pw.shown.firstSeq, pw.shown.lastSeq, tr.Loader().Earlier(), tc.wantFirst, total, tc.wantFirst-1)
		}
		pw.shown.mu.Lock()
		pending := pw.shown.showEvent
		pw.shown.mu.Unlock()
		if pending != nil {
			t.Errorf("%s: the hit is still pending after the load", tc.name)
		}
	}
}

// Going back to a session shown moments ago shows it at once, from the
// rows the transcript kept laid out and its last header, before any load:
// the prompt box already sends to it. The load that follows finds the same
// events and changes nothing; a session the transcript does not keep
// waits for its load.
func TestSwitchBackShowsKeptAtOnce(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	var refs []views.SessionRef
	for _, name := range []string{"first", "second", "third"} {
		s, _, err := st.Sessions().CreateWithEvents(bg, "main", name, []codec.Event{codec.UserMessage("hello " + name), codec.AssistantText("hi")})
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, views.SessionRef{StorePath: wt.StorePath, ID: s.ID})
	}
	st.Close()
	pw := testWindow(t, fa, wt)
	defer pw.close()
	tr := pw.mv.Transcript()
	for _, ref := range refs[:2] {
		pw.shown.SelectSession(ref)
		pw.wg.Wait()
	}
	serialUI(func() { // as the app does, on the Fyne goroutine: the load's own hand-off waits for it
		pw.shown.SelectSession(refs[0]) // kept: shown at once
		if got := tr.Session().ID; got != refs[0].ID {
			t.Errorf("going back to S%d shows S%d before its load", refs[0].ID, got)
		}
		if cur, ok := pw.mv.PromptBox().Session(); !ok || cur != refs[0] {
			t.Errorf("the prompt box sends to %v", cur)
		}
	})
	pw.wg.Wait()
	if got := tr.Session().ID; got != refs[0].ID {
		t.Errorf("after its load the transcript shows S%d", got)
	}
	serialUI(func() {
		pw.shown.SelectSession(refs[2]) // never shown: waits for its load
		if got := tr.Session().ID; got == refs[2].ID {
			t.Error("a session never shown was shown before its load")
		}
	})
	pw.wg.Wait()
	if got := tr.Session().ID; got != refs[2].ID {
		t.Errorf("after its load the transcript shows S%d", got)
	}
}
