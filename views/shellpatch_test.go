package views

import (
	"testing"

	"fyne.io/fyne/v2"

	"github.com/lazuli-app/lazuli/codec"
	"github.com/lazuli-app/lazuli/store"
)

// A Codex Bash call that runs apply_patch through the shell (how older
// rollouts record edits) shows as a diff card naming the patched file, not
// as a shell command.
func TestTranscriptShellPatchIsDiff(t *testing.T) {
	tr, _, q := newTestTranscript(t, fyne.NewSize(800, 1000))
	cmd := []string{"bash", "-lc", "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: src/a.go\n@@\n-old\n+new\n*** End Patch\nPATCH\n"}
	tr.SetSession(store.Session{ID: 1}, stored(
		codec.ToolCall("c1", "Bash", nil, rawJSON(t, map[string]any{"command": cmd})),
		codec.ToolCall("c2", "Bash", nil, rawJSON(t, map[string]any{"command": []string{"bash", "-lc", "ls"}})),
	), nil)
	q.drain()
	cards := cardsByRow(tr)
	if c := cards[0]; c == nil || c.title.Text != "Bash" || c.detail.Text != "src/a.go" || cardBody(c) != "diff" ||
		c.added.Text != "+1" {
		t.Fatalf("shell patch card = %+v", c)
	}
	if c := cards[1]; c == nil || cardBody(c) == "diff" {
		t.Errorf("a plain Bash call shows as a diff")
	}
}
