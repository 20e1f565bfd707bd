package chronicle

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/insight"
	"github.com/lazuli-app/lazuli/store"
)

// TestForkCopiesAreTheParentsWork: a fork made today of an old session
// holds copies of the parent's turns; the standup of the last day lists
// only what the fork did itself, not the copies as today's work.
func TestForkCopiesAreTheParentsWork(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(t.TempDir(), ".azureal", "sessions.azs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	path := "/w/old.go"
	edit, _ := json.Marshal(map[string]string{"file_path": path, "old_string": "a", "new_string": "b"})
	parent, _, err := st.Transfer().CreateAt(ctx, "main", "old work", "2025-01-02 03:04:05", []codec.Event{
		codec.UserMessage("fix the old bug"), codec.ToolCall("1", "Edit", &path, edit), codec.ToolResult("1", "Edit", &path, "ok", false),
		codec.Complete(true, 10, 0),
		codec.UserMessage("now the docs"), codec.AssistantText("done"), codec.Complete(true, 10, 0)})
	if err != nil {
		t.Fatal(err)
	}
	fork, err := st.Forks().Create(ctx, parent.ID, 5, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Events().Append(ctx, fork.ID, []codec.Event{codec.UserMessage("the docs, another way"),
		codec.AssistantText("done"), codec.Complete(true, 10, 0)}); err != nil {
		t.Fatal(err)
	}
	x, err := insight.Open(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	if _, err := x.Update(ctx); err != nil {
		t.Fatal(err)
	}
	win, err := ParseSince("24h", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	f := gather(t, []Source{{Store: st, Index: x}}, Standup, Options{Window: win})
	var got []string
	for _, wt := range f.Worktrees {
		for _, w := range wt.Sessions {
			var prompts []string
			for _, p := range w.Prompts {
				prompts = append(prompts, p.Text)
			}
			got = append(got, w.Cite.String()+" "+strings.Join(prompts, "|")+fmt.Sprintf(" files:%d", len(w.Files)))
		}
	}
	want := []string{fmt.Sprintf("[S%d] the docs, another way files:0", fork.ID)}
	equal(t, "standup of the last day", got, want)
}
