package views

import (
	"fmt"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/editdiff"
	"github.com/lazuli-app/lazuli/store"
)

// shownMainView is a main view in a 900 × 700 window, its intents
// recorded, showing session 1 of /p with events.
func shownMainView(t *testing.T, events []store.StoredEvent) (*MainView, *fakeActions, SessionRef) {
	t.Helper()
	test.NewTempApp(t)
	f := &fakeActions{}
	m := NewMainView(f)
	w := test.NewTempWindow(t, m.Content())
	w.Resize(fyne.NewSize(900, 700))
	a := SessionRef{StorePath: "/p", ID: 1}
	m.ShowSession(a, store.Session{ID: 1, Worktree: "main"}, events, nil, 0)
	return m, f, a
}

// TestCompletionRowUsage: a completion row shows its turn's tokens and
// cost, an estimated cost marked so; rows of turns without usage keep the
// event's cost; another session drops the usage.
func TestCompletionRowUsage(t *testing.T) {
	events := stored(codec.UserMessage("one"), codec.Complete(true, 1200, 0),
		codec.UserMessage("two"), codec.Complete(true, 3000, 0.5))
	m, _, a := shownMainView(t, events)
	m.SetSessionInsight(a, SessionInsight{Turns: []TurnUsage{
		{FirstSeq: 1, LastSeq: 2, Input: 12300, Output: 450, Cache: 1_200_000, CostUSD: 0.0421, Estimated: true}}})
	tr := m.Transcript()
	if got, want := tr.rows.rowText(1), "✓ Completed in 1.2s · 12.3k in · 450 out · 1.2M cache · ~$0.0421 (estimated)"; got != want {
		t.Errorf("first completion row %q, want %q", got, want)
	}
	if got, want := tr.rows.rowText(3), "✓ Completed in 3.0s · $0.5000"; got != want {
		t.Errorf("second completion row %q, want %q", got, want)
	}
	cards := cardsByRow(tr)
	if c := cards[1]; c == nil || !strings.Contains(c.detail.Text, "~$0.0421 (estimated)") {
		t.Errorf("the completion card does not show the turn's usage")
	}
	b := SessionRef{StorePath: "/p", ID: 2}
	m.ShowSession(b, store.Session{ID: 2, Worktree: "main"}, events, nil, 0)
	if got := tr.rows.rowText(1); got != "✓ Completed in 1.2s · $0.0000" {
		t.Errorf("usage kept for another session: %q", got)
	}
}

// TestSessionFilesTab: the Files tab lists the session's files with their
// actions merged per path; choosing one asks for its diffs, which show in
// order; a stale answer for another session is dropped, and showing
// another session empties the tab.
func TestSessionFilesTab(t *testing.T) {
	m, f, a := shownMainView(t, nil)
	b := SessionRef{StorePath: "/p", ID: 2}
	m.SetSessionInsight(b, SessionInsight{Files: []InsightFile{{Store: "/p", SessionID: 2, Path: "stale.go", Action: "edit", Count: 1}}})
	if rows := m.SessionFiles().Rows(); len(rows) != 0 {
		t.Fatalf("files of another session shown: %q", rows)
	}
	m.SetSessionInsight(a, SessionInsight{Files: []InsightFile{
		{Store: "/p", SessionID: 1, Path: "a.go", Action: "edit", Count: 2},
		{Store: "/p", SessionID: 1, Path: "b.go", Action: "read", Count: 1},
		{Store: "/p", SessionID: 1, Path: "a.go", Action: "read", Count: 3}}})
	if got, want := strings.Join(m.SessionFiles().Rows(), "|"), "a.go · edit ×2, read ×3|b.go · read ×1"; got != want {
		t.Errorf("rows %q, want %q", got, want)
	}
	m.ShowFilesTab(true)
	m.SessionFiles().Select(0)
	if got := f.String(); got != "diffs /p#1 a.go" {
		t.Errorf("intents %q", got)
	}
	m.SessionFiles().ShowDiffs("a.go", []FileDiff{
		{Seq: 4, Tool: "Edit", Files: []editdiff.File{{Path: "a.go", Lines: editdiff.Lines("x", "y")}}},
		{Seq: 9, Tool: "apply_patch", Files: []editdiff.File{{Path: "a.go", Lines: editdiff.Lines("y", "z")}}}})
	if got := m.SessionFiles().Title(); got != "a.go: 2 changes" {
		t.Errorf("title %q", got)
	}
	m.ShowSession(b, store.Session{ID: 2, Worktree: "main"}, nil, nil, 0)
	if rows := m.SessionFiles().Rows(); len(rows) != 0 {
		t.Errorf("files kept for another session: %q", rows)
	}
}

// TestRefChips: the session's refs show as chips; tapping one sends
// OpenRef with its address (or none, to copy); another session's chips go.
func TestRefChips(t *testing.T) {
	m, f, a := shownMainView(t, nil)
	if m.head.refsRow.Visible() {
		t.Error("the chips' row shows without refs")
	}
	m.SetSessionInsight(a, SessionInsight{Refs: []RefChip{
		{Kind: "pr", Value: "acme/app#7", URL: "https://github.com/acme/app/pull/7"},
		{Kind: "commit", Value: "abc1234def5678", URL: "https://github.com/acme/app/commit/abc1234def5678"},
		{Kind: "branch", Value: "fix/x"},
		{Kind: "url", Value: "https://example.com/docs/page/", URL: "https://example.com/docs/page/"}}})
	if got, want := strings.Join(m.Header().RefChips(), "|"), "PR acme/app#7|Commit abc1234def|Branch fix/x|example.com/docs/page"; got != want {
		t.Errorf("chips %q, want %q", got, want)
	}
	if !m.head.refsRow.Visible() {
		t.Error("the chips' row is hidden")
	}
	headerBottom := m.top.Position().Y + m.top.Size().Height
	if got, want := m.top.Size().Height, m.top.MinSize().Height; got < want {
		t.Errorf("the header has %v of the %v it needs with chips", got, want)
	}
	m.Header().TapRef(1)
	m.Header().TapRef(2)
	if got, want := f.String(), "ref commit abc1234def5678 https://github.com/acme/app/commit/abc1234def5678; ref branch fix/x "; got != want {
		t.Errorf("intents %q, want %q", got, want)
	}
	if top := fyne.CurrentApp().Driver().AbsolutePositionForObject(m.transcript.Content()).Y; top < headerBottom {
		t.Errorf("the transcript starts at y=%v, under the header that ends at y=%v", top, headerBottom)
	}
	m.ShowSession(SessionRef{StorePath: "/p", ID: 2}, store.Session{ID: 2, Worktree: "main"}, nil, nil, 0)
	if len(m.Header().RefChips()) != 0 || m.head.refsRow.Visible() {
		t.Errorf("chips kept for another session: %q", m.Header().RefChips())
	}
}

// A session with many refs shows the first maxRefChips as chips and
// counts the rest.
func TestRefChipsCapped(t *testing.T) {
	m, _, a := shownMainView(t, nil)
	refs := make([]RefChip, maxRefChips+12)
	for i := range refs {
		refs[i] = RefChip{Kind: "branch", Value: fmt.Sprintf("b%d", i)}
	}
	m.SetSessionInsight(a, SessionInsight{Refs: refs})
	chips := m.Header().RefChips()
	if len(chips) != maxRefChips+1 || chips[0] != "Branch b0" || chips[len(chips)-1] != "+12 more" {
		t.Errorf("%d chips %q…%q, want %d chips then %q", len(chips), chips[0], chips[len(chips)-1], maxRefChips, "+12 more")
	}
}

type fakeRecent struct {
	loads  int
	opened []RecentEdit
}

func (f *fakeRecent) LoadRecentEdits()      { f.loads++ }
func (f *fakeRecent) OpenEdit(e RecentEdit) { f.opened = append(f.opened, e) }

// TestRecentEditsView: the view asks for the edits at once, lists them
// newest first as given, and choosing one (twice too) opens it.
func TestRecentEditsView(t *testing.T) {
	test.NewTempApp(t)
	f := &fakeRecent{}
	v := NewRecentEditsView(f)
	test.NewTempWindow(t, v.Content())
	if f.loads != 1 {
		t.Fatalf("loads = %d", f.loads)
	}
	edits := []RecentEdit{
		{Ref: SessionRef{StorePath: "/p/b", ID: 3}, Session: "fix parser", Worktree: "feat", Path: "parser.go", Action: "edit", Count: 2, Seq: 40, At: "2026-11-25 14:03:09"},
		{Ref: SessionRef{StorePath: "/p/a", ID: 1}, Session: "S1", Worktree: "main", Path: "README.md", Action: "write", Count: 1, Seq: 7}}
	v.SetEdits(edits)
	if got, want := strings.Join(v.Rows(), "|"), "2026-11-25 14:03 · feat · fix parser · edit ×2 · parser.go|main · S1 · write ×1 · README.md"; got != want {
		t.Errorf("rows %q, want %q", got, want)
	}
	v.Choose(0)
	v.Choose(0)
	if len(f.opened) != 2 || f.opened[0] != edits[0] {
		t.Errorf("opened %+v", f.opened)
	}
	v.SetEdits(nil)
	if !strings.Contains(v.Status(), "No file edits") {
		t.Errorf("status %q", v.Status())
	}
}
