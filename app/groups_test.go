package app

import (
	"testing"

	"github.com/lazuli-app/lazuli/store"
)

// A bare store (opened directly, of no worktree) groups its sessions by
// their worktree, as a worktree's store does; sessions without one go
// under the file's name. It put every session under the file's name.
func TestGroupByWorktreeBareStore(t *testing.T) {
	sessions := []store.Session{{ID: 3, Worktree: "feat"}, {ID: 2, Worktree: "main"}, {ID: 1, Worktree: "feat"}}
	got := groupByWorktree(Worktree{StorePath: "/x/team.azs"}, sessions)
	want := []struct {
		name string
		ids  []int64
	}{{"feat", []int64{3, 1}}, {"main", []int64{2}}}
	if len(got) != len(want) {
		t.Fatalf("groups = %+v, want %d", got, len(want))
	}
	for i, w := range want {
		var ids []int64
		for _, s := range got[i].Sessions {
			ids = append(ids, s.ID)
		}
		if got[i].Worktree != w.name || len(ids) != len(w.ids) || ids[0] != w.ids[0] {
			t.Errorf("group %d = %s %v, want %s %v", i, got[i].Worktree, ids, w.name, w.ids)
		}
	}
	got = groupByWorktree(Worktree{StorePath: "/x/team.azs"}, append(sessions, store.Session{ID: 4}))
	if len(got) != 3 || got[0].Worktree != "team.azs" || len(got[0].Sessions) != 1 || got[0].Sessions[0].ID != 4 {
		t.Errorf("a session without a worktree: groups %+v", got)
	}
}
