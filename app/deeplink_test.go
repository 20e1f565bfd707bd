package app

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

func TestParseDeepLinkFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		path string
		link DeepLink
		bad  bool
	}{
		{args: []string{"--open", "/p", "--session", "S3", "--event", "120"}, path: "/p", link: DeepLink{3, 120}},
		{args: []string{"--session", "4", "/p"}, path: "/p", link: DeepLink{Session: 4}},
		{args: []string{"lazuli://open?path=%2Fp%20q&session=S3&event=7"}, path: "/p q", link: DeepLink{3, 7}},
		{args: []string{Link("/x/y.azs", 2, 9)}, path: "/x/y.azs", link: DeepLink{2, 9}},
		{args: []string{"--event", "5"}, bad: true},
		{args: []string{"--session", "S0"}, bad: true},
		{args: []string{"--session", "3", "--event", "-1"}, bad: true},
		{args: []string{"--open", "/p", "/q"}, bad: true},
		{args: []string{"lazuli://bogus?session=1"}, bad: true},
		{args: []string{"--demo", "--session", "1"}, bad: true},
	} {
		cfg, err := ParseFlags(tc.args, io.Discard)
		if tc.bad {
			if err == nil {
				t.Errorf("ParseFlags(%q) = %+v, want an error", tc.args, cfg)
			}
			continue
		}
		if err != nil || cfg.Path != tc.path || cfg.Link != tc.link {
			t.Errorf("ParseFlags(%q) = %+v, %v; want path %q link %+v", tc.args, cfg, err, tc.path, tc.link)
		}
	}
}

// TestDeepLinkOpensEvent: a link to an event among a long session's
// earlier events shows that session loaded from that event.
func TestDeepLinkOpensEvent(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	bg := context.Background()
	const total = tailFirstEvents + 10
	var events []codec.Event
	for i := 0; len(events) < total; i++ {
		events = append(events, codec.UserMessage(fmt.Sprintf("prompt %d", i)), codec.AssistantText(fmt.Sprintf("reply %d", i)))
	}
	if _, err := st.Sessions().Create(bg, "main", "other"); err != nil {
		t.Fatal(err)
	}
	s, _, err := st.Sessions().CreateWithEvents(bg, "main", "big", events)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	pw.shown.openLink(DeepLink{Session: s.ID, Event: 41})
	pw.wg.Wait()
	if pw.shown.current.ID != s.ID || pw.shown.firstSeq != 41 || pw.mv.Transcript().Session().ID != s.ID {
		t.Errorf("after the link: session %d from seq %d, want session %d from seq 41", pw.shown.current.ID, pw.shown.firstSeq, s.ID)
	}
}

// TestCitationOpensTranscript: a chronicle citation (a lazuli:// link to
// an event, confirmed) shows the transcript at the event even when the
// Files tab was shown, and so does a citation of the session shown.
func TestCitationOpensTranscript(t *testing.T) {
	fa := test.NewTempApp(t)
	wt, st := openTestWorktree(t)
	var events []codec.Event
	for i := range 30 {
		events = append(events, codec.UserMessage(fmt.Sprintf("prompt %d", i)), codec.AssistantText(fmt.Sprintf("reply %d", i)))
	}
	s, _, err := st.Sessions().CreateWithEvents(context.Background(), "main", "cited", events)
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	pw := testWindow(t, fa, wt)
	defer pw.close()
	for _, tc := range []struct {
		name  string
		event int64
	}{{"another session shown", 41}, {"the session shown", 41}, {"the whole session", 0}} {
		name := tc.name
		pw.mv.ShowFilesTab(true)
		pw.shown.openLinkIn(wt.StorePath, DeepLink{Session: s.ID, Event: tc.event})
		pw.wg.Wait()
		pw.shown.mu.Lock()
		current, pending := pw.shown.current, pw.shown.showEvent
		pw.shown.mu.Unlock()
		if current.ID != s.ID || pending != nil {
			t.Errorf("%s: session %d shown, event pending %v; want session %d at its event", name, current.ID, pending, s.ID)
		}
		if pw.mv.FilesTabShown() {
			t.Errorf("%s: the citation left the Files tab shown, want the transcript at the event", name)
		}
	}
}

// openTestWorktree returns a worktree in a temporary folder and its store,
// open for the test to fill (and close before a window opens it).
func openTestWorktree(t *testing.T) (Worktree, *store.Store) {
	t.Helper()
	dir := t.TempDir()
	wt := Worktree{Dir: dir, Branch: "main", StorePath: filepath.Join(dir, StoreRelPath)}
	st, err := store.Open(context.Background(), wt.StorePath)
	if err != nil {
		t.Fatal(err)
	}
	return wt, st
}
