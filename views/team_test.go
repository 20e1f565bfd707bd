package views

import (
	"testing"

	"fyne.io/fyne/v2/test"
)

type teamRecorder struct {
	selected []int64
	searched []string
}

func (r *teamRecorder) TeamConnect(string)  {}
func (r *teamRecorder) OpenLink(string)     {}
func (r *teamRecorder) TeamSelect(id int64) { r.selected = append(r.selected, id) }
func (r *teamRecorder) TeamSearch(q string) { r.searched = append(r.searched, q) }

// TestTeamBrowserGroups: the Team source groups sessions by repository and
// worktree, a chosen session and a chosen hit ask for that session, and
// the search box sends its query.
func TestTeamBrowserGroups(t *testing.T) {
	test.NewTempApp(t)
	r := &teamRecorder{}
	b := NewTeamBrowser(r, "")
	b.SetSessions([]TeamSession{
		{ID: 3, Repository: "app", Worktree: "main", Name: "fix parser", Machine: "laptop", User: "ana"},
		{ID: 2, Repository: "app", Worktree: "feature/x", Machine: "desktop", User: "bo"},
		{ID: 1, Repository: "lib", Worktree: "main", Name: "docs", Machine: "laptop", User: "ana"},
	})
	if got := b.children[""]; len(got) != 2 || b.nodeLabel(got[0]) != "app" || b.nodeLabel(got[1]) != "lib" {
		t.Fatalf("repositories %q", got)
	}
	app := b.children[""][0]
	if wts := b.children[app]; len(wts) != 2 || b.nodeLabel(wts[0]) != "main" || b.nodeLabel(wts[1]) != "feature/x" {
		t.Fatalf("worktrees of app %q", wts)
	}
	leaf := b.children[b.children[app][1]][0]
	if got := b.nodeLabel(leaf); got != "S2 · bo@desktop · " {
		t.Fatalf("session label %q", got)
	}
	b.tree.Select(leaf)
	b.SetHits([]TeamHit{{SessionID: 1, Title: "docs", Snippet: "the zebra"}})
	b.hits.Select(0)
	test.Type(b.search, "zebra")
	b.search.OnSubmitted(b.search.Text)
	if len(r.selected) != 2 || r.selected[0] != 2 || r.selected[1] != 1 || len(r.searched) != 1 || r.searched[0] != "zebra" {
		t.Fatalf("selected %v, searched %v", r.selected, r.searched)
	}
}
